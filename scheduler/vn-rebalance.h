/* vn-rebalance.h: the adaptive half of the scheduler — which guest cells to
 * move when load shifts.  Pure: the caller passes the clock ("now") and
 * the VMs placed on the host; nothing is measured or moved here.
 *
 * Node utilisation is max(CPU, memory): CPU = max(measured busy, committed
 * vCPUs / (usable CPUs x overcommit)), memory = committed / (total -
 * reserved).  A node is hot when it exceeds the mean of the CPU nodes by
 * `threshold`.  Each round moves whole guest cells off the hottest node,
 * choosing the move that most reduces the imbalance (hottest minus mean)
 * per GiB moved, never increasing a VM's own internal distance by more
 * than it must; high-priority VMs move last and only to the least
 * contended nodes; VMs moved (or started) within `cooldown_s` stay, so
 * nothing ping-pongs; a round stops at `max_moves` or `max_memory_kib`.
 * A VM with an allowed CPU set moves only to nodes with CPUs in it.
 * Dedicated VMs are never moved (their CPUs are owned 1:1; moving them is
 * an operator decision: `vnumactl place` + restart), nor are VMs whose
 * cells are one unit (`whole`).
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-request.h"
#include "vn-topology.h"

typedef struct {
    guint id;   /* guest cell id */
    guint node; /* node index (VnTopology order) */
    guint vcpus;
    guint64 memory_kib;
} VnResidentCell;

typedef struct {
    gchar *name;
    VnPriority priority;
    gboolean dedicated;
    gint64 last_move; /* seconds (same clock as limits->now); 0 = never */
    GArray *cells;    /* of VnResidentCell */
    /* Host CPUs the VM may run on (VnRequest.allowed_cpus), owned, or NULL
     * for any: its cells move only to nodes with CPUs in it. */
    VnBitmap *allowed_cpus;
    /* Its cells are one unit (memory interleaved over their nodes, or
     * spilled to a slow node; VnPlacement.interleave, VN_TIERS_SPILL): no
     * cell moves alone, so the rebalancer leaves it where it is. */
    gboolean whole;
} VnResident;

typedef struct {
    gdouble threshold;      /* hot: utilisation > mean + threshold (0.15) */
    guint max_moves;        /* per round (2) */
    guint64 max_memory_kib; /* per round (16 GiB) */
    gint64 now;             /* seconds */
    gint64 cooldown_s;      /* (300) */
} VnRebalanceLimits;

typedef struct {
    const gchar *vm; /* points into the resident's name */
    guint cell;
    guint from_node; /* node indices */
    guint to_node;
    guint vcpus;
    guint64 memory_kib;
    gdouble imbalance_before;
    gdouble imbalance_after;
    gchar *reason;
} VnMove;

VnResident *vn_resident_new(const gchar *name, VnPriority priority, gboolean dedicated,
                            gint64 last_move);
void vn_resident_add_cell(VnResident *r, guint id, guint node, guint vcpus, guint64 memory_kib);
void vn_resident_free(VnResident *r);
void vn_move_free(VnMove *m);
void vn_rebalance_limits_init(VnRebalanceLimits *l, gint64 now);

/* One round.  `residents` (VnResident*) are the VMs whose commitments
 * `load` holds.  Returns the moves (VnMove*, possibly none) in the order
 * to apply them; `ret_notes` (optional) says why a round stopped or what
 * was skipped. */
GPtrArray *vn_rebalance_propose(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                                GPtrArray *residents, const VnRebalanceLimits *limits,
                                GPtrArray **ret_notes);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnResident, vn_resident_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnMove, vn_move_free)
