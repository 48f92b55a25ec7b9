/* vn-placement.h: the answer.
 *
 * A placement is a list of guest cells, each bound to one host node, plus
 * per-vCPU pins, the emulator pin, IOThread pins and the reasons.  Every
 * vCPU is in exactly one cell; cell memory sums to the request.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"

typedef struct {
    guint id;              /* guest cell id, 0.. */
    guint node;            /* host node index (see VnTopology) */
    guint node_os_id;      /* host node kernel number */
    guint vcpu_first;      /* guest vCPUs vcpu_first .. vcpu_first+n_vcpus-1 */
    guint n_vcpus;
    VnBitmap *cpus;        /* host CPUs of this cell (union of its pins) */
    guint64 memory_kib;
} VnCell;

typedef struct {
    guint id;              /* libvirt IOThread id, 1.. */
    guint cell;
    VnBitmap *cpus;
} VnIOThreadPin;

/* One candidate node set the scheduler looked at (for `explain`). */
typedef struct {
    GArray *nodes;         /* of guint node index, in cell order */
    gboolean feasible;
    gboolean chosen;
    guint internal_distance; /* sum of pairwise distances */
    gdouble load_after;    /* highest node utilisation after placement, 0..1+ */
    guint device_distance; /* sum over devices of distance to nearest cell */
    gdouble score;         /* lower is better */
    gchar *note;           /* why rejected / chosen */
} VnCandidate;

typedef struct {
    GArray *cells;         /* of VnCell */
    GPtrArray *vcpu_pins;  /* of VnBitmap*, one per guest vCPU */
    VnBitmap *emulator_cpus;
    GArray *iothreads;     /* of VnIOThreadPin */
    gboolean dedicated;
    guint threads_per_core;/* guest SMT width (1 unless dedicated + SMT) */
    guint64 hugepage_kib;
    /* SMT siblings held idle for a dedicated VM with SMT policy isolate:
     * nobody else may use them while the VM lives. */
    VnBitmap *isolated_cpus;
    GPtrArray *reasons;    /* of gchar*: why this placement */
    /* of gchar*: what the placement cannot give the guest as written
     * (added by the domain writer, e.g. cells a guest without ACPI cannot
     * see); empty when nothing is wrong */
    GPtrArray *warnings;
    GPtrArray *candidates; /* of VnCandidate*, best first */
} VnPlacement;

VnPlacement *vn_placement_new(void);
void vn_placement_free(VnPlacement *p);
void vn_placement_add_reason(VnPlacement *p, const gchar *fmt, ...) G_GNUC_PRINTF(2, 3);
void vn_placement_add_warning(VnPlacement *p, const gchar *fmt, ...) G_GNUC_PRINTF(2, 3);
void vn_candidate_free(VnCandidate *c);

/* The host node indices used, ascending, each once. */
GArray *vn_placement_nodes(const VnPlacement *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnPlacement, vn_placement_free)
