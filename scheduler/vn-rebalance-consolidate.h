/* vn-rebalance-consolidate.h: consolidation — VMs split over host nodes
 * put back on fewer nodes once room appears (another VM left the host).
 *
 * Pure: the caller passes the host, its load and the VMs placed on it;
 * nothing is moved here.  A running guest's NUMA topology cannot change,
 * so a VM keeps its guest cells (count and sizes): vn_plan() is asked for
 * those cells, the VM's own load released, and a consolidation is kept
 * when the answer holds the memory on fewer host nodes (guest cells may
 * then share a node).  Where `t` has measured free memory, a VM's own
 * memory on a node counts as free for its own plan (its pages are in the
 * measured figure; only what moves in needs room).  Only VMs vnuma may
 * move are considered: shared vCPUs, normal pages, guest cells of their
 * own (not interleaved or spilled), no CPU set of another manager — as
 * defragmentation's moves (vn-rebalance-room.h).
 *
 * The VMs are taken by the memory each would leave on other nodes,
 * largest first (the most remote memory made local), each with the load
 * as the previous consolidations left it, until `max_vms` VMs or
 * `max_memory_kib` of memory moved.  Memory moved is what a VM held on a
 * node beyond what it keeps there.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

/* The budget for one VM's stop (the qemu hook's `release`, the
 * simulator's departure): one VM, at most 64 GiB moved.  Measured with
 * `tools/sim-compare.py` (vnumactl(8), README): 1 VM / 64 GiB met the
 * issue's four tests as often as no limit, 16 GiB two cases fewer. */
#define VN_CONSOLIDATE_MAX_VMS 1
#define VN_CONSOLIDATE_MAX_MEMORY_KIB (G_GUINT64_CONSTANT(64) * 1024 * 1024)

typedef struct {
    guint vm;               /* index into the caller's arrays */
    guint nodes_before;     /* host nodes holding its memory, before */
    guint nodes_after;      /* and after (fewer) */
    guint64 moved_kib;      /* memory that moves */
    VnPlacement *placement; /* its placement after (owned) */
} VnConsolidation;

/* The consolidations (of VnConsolidation, with a clear function) on `t`
 * given `load`, which holds the VMs requests[i]/placements[i] (a NULL
 * placement: not placed); possibly none. */
GArray *vn_rebalance_consolidate(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                                 GPtrArray *requests, GPtrArray *placements, guint max_vms,
                                 guint64 max_memory_kib);
