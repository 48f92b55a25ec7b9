/* vn-placement.h: the answer.
 *
 * A placement is a list of guest cells, each bound to one host node, plus
 * per-vCPU pins, the emulator pin, IOThread pins and the reasons.  Every
 * vCPU is in exactly one cell; cell memory sums to the request.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"
#include "vn-request.h"

typedef struct {
    guint id;         /* guest cell id, 0.. */
    guint node;       /* host node index (see VnTopology) */
    guint node_os_id; /* host node kernel number */
    guint vcpu_first; /* guest vCPUs vcpu_first .. vcpu_first+n_vcpus-1 */
    guint n_vcpus;
    VnBitmap *cpus; /* host CPUs of this cell (union of its pins) */
    guint64 memory_kib;
} VnCell;

typedef struct {
    guint id; /* libvirt IOThread id, 1.. */
    guint cell;
    VnBitmap *cpus;
} VnIOThreadPin;

/* One candidate node set the scheduler looked at (for `explain`). */
typedef struct {
    GArray *nodes; /* of guint node index, in cell order */
    gboolean feasible;
    gboolean chosen;
    guint internal_distance; /* sum of pairwise distances */
    gdouble load_after;      /* highest node utilisation after placement, 0..1+ */
    guint device_distance;   /* sum over devices of distance to nearest cell */
    gdouble score;           /* lower is better */
    gchar *note;             /* why rejected / chosen */
} VnCandidate;

typedef struct {
    GArray *cells;        /* of VnCell */
    GPtrArray *vcpu_pins; /* of VnBitmap*, one per guest vCPU; vCPUs pinned
                           * alike may hold the same bitmap (vn_bitmap_ref):
                           * replace a pin, never change it in place */
    VnBitmap *emulator_cpus;
    GArray *iothreads; /* of VnIOThreadPin */
    gboolean dedicated;
    guint threads_per_core; /* guest SMT width (1 unless dedicated + SMT) */
    /* guest dies a guest socket (one socket a cell): 1, or the number of
     * host cache domains every cell's vCPUs are split over evenly, in
     * vCPU order, each die's vCPUs pinned inside one domain (QEMU gives
     * each die its own L3, so the guest sees the host's L3 split) */
    guint dies;
    guint64 hugepage_kib;
    /* SMT siblings held idle for a dedicated VM with SMT policy isolate:
     * nobody else may use them while the VM lives. */
    VnBitmap *isolated_cpus;
    GPtrArray *reasons; /* of gchar*: why this placement */
    /* of gchar*: what the placement cannot give the guest as written
     * (added by the domain writer, e.g. cells a guest without ACPI cannot
     * see); empty when nothing is wrong */
    GPtrArray *warnings;
    GPtrArray *candidates; /* of VnCandidate*, best first */
    /* How the memory beyond the CPU node's DRAM was placed (VnTiers):
     *   OFF    cells as above, each a guest cell;
     *   SPILL  cells[0] holds every vCPU and what its node's DRAM takes,
     *          the CPU-less cells[1..] what is expected on slow nodes; the
     *          guest sees one node (no guest cells), its memory allowed
     *          on all the cells' nodes (restrictive, never strict);
     *   GUEST  cells as above, the CPU-less ones on slow nodes, with the
     *          host's HMAT figures written into the guest. */
    VnTiers tiers;
    /* Memory interleaved over the cells' nodes: the guest sees one node
     * (no guest cells), each cell is one node's even share of the memory
     * and every vCPU floats over the CPUs of all the cells. */
    gboolean interleave;
    /* Some guest cell has more vCPUs than its node has CPUs for shared
     * vCPUs: no node set could give each of them a CPU, so they share
     * CPUs with each other (vn_plan() places so only as a last resort). */
    gboolean self_overcommitted;
} VnPlacement;

VnPlacement *vn_placement_new(void);
void vn_placement_free(VnPlacement *p);
void vn_placement_add_reason(VnPlacement *p, const gchar *fmt, ...) G_GNUC_PRINTF(2, 3);
void vn_placement_add_warning(VnPlacement *p, const gchar *fmt, ...) G_GNUC_PRINTF(2, 3);
void vn_candidate_free(VnCandidate *c);

/* Whether the placement's cells are guest NUMA cells (not spill or
 * interleave: one guest node whatever the cells). */
gboolean vn_placement_has_guest_cells(const VnPlacement *p);

/* The host node indices used, ascending, each once. */
GArray *vn_placement_nodes(const VnPlacement *p);
/* How many host nodes hold memory of `p` (cells with memory, each node
 * once). */
guint vn_placement_memory_nodes(const VnPlacement *p);

/* [placement] memory_mode: libvirt <numatune><memory mode=...>.
 * auto (the default) follows what the emulated NUMA host measured
 * (tests/numahost/README.md): restrictive keeps all of a one-node guest's
 * pages on its node and moves them live, but a guest split over nodes
 * keeps per-cell locality only under strict (restrictive leaves each page
 * where the first thread touching it ran).  So auto is restrictive for a
 * placement on one host node and strict for one across nodes.  A
 * spilled placement is always restrictive (an MPOL_BIND process's pages
 * demoted to a slow node are never promoted back); an interleaved one is
 * strict in effect (mbind, fixed while running) and written as
 * mode='interleave'. */
typedef enum {
    VN_MEMORY_MODE_RESTRICTIVE, /* cgroup cpuset.mems: movable live */
    VN_MEMORY_MODE_STRICT,      /* mbind per cell: fixed while running */
    VN_MEMORY_MODE_AUTO,        /* restrictive on one node, strict across nodes */
    VN_MEMORY_MODE_MAX
} VnMemoryMode;

const gchar *vn_memory_mode_to_string(VnMemoryMode m);
gint vn_memory_mode_from_string(const gchar *s); /* -1 if unknown */
/* The names, in enum order, NULL-terminated. */
const gchar *const *vn_memory_mode_names(void);
/* The mode to write for placement `p`: auto resolved, others as they are. */
VnMemoryMode vn_memory_mode_resolve(VnMemoryMode m, const VnPlacement *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnPlacement, vn_placement_free)
