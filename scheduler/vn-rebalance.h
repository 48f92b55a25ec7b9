/* vn-rebalance.h: the adaptive half of the scheduler — which guest cells to
 * move when load shifts.  Pure: the caller passes the clock ("now") and
 * the VMs placed on the host; nothing is measured or moved here.
 *
 * Node utilisation is max(CPU, memory): CPU = max(measured busy, committed
 * vCPUs / (usable CPUs x overcommit)), memory = committed / (total -
 * reserved).  A moved cell takes what it commits (its charge: with the
 * ledger's count, its share of the QEMU overhead too) to its new node, as
 * the next round's load will count it.  A node is hot when it exceeds
 * the mean of the CPU nodes by `threshold`.  Each round moves whole guest
 * cells off the hottest node, choosing the move that most reduces the
 * imbalance (hottest minus mean) per GiB moved, never increasing a VM's
 * own internal distance by more than it must; high-priority VMs move
 * last and only to the least contended nodes; VMs moved (or started)
 * within `cooldown_s` stay, so nothing ping-pongs; a round stops at
 * `max_moves` or `max_memory_kib`.
 * A VM with an allowed CPU set moves only to nodes with CPUs in it.
 * Inside a node (vn-rebalance-domains.c), with cache domains counted
 * (vn_load_counts_domains()): a cache domain whose committed vCPUs over
 * its usable CPUs x overcommit exceed the mean of its node's domains by
 * `threshold` gives a guest die to a domain of the same node with room
 * before any move between nodes is considered (cheap: no page migration).
 * A cell whose dies each sit in one domain (VnResidentCell.domains) moves
 * to another node die by die into the domains with most room there.
 * On a host the placement packs (vn_policy_balance_at() is memory
 * packing: balance adaptive from VN_BALANCE_ADAPTIVE_PACK_AT of the
 * host's memory committed, or memory-packing chosen outright), nothing
 * moves off a hot node: the nodes are uneven on purpose, so that whole
 * nodes stay free for big VMs, and spreading them would undo it; the
 * round goes straight to consolidation (measured over a host's life:
 * `vnumactl simulate --policy vnuma-rebalance`, README).
 * Once the host is balanced (no node above the threshold) or packed,
 * consolidation: of the VMs split over nodes, the one with the most memory
 * away from its fullest node has its other cells moved onto that node (or
 * its next fullest) when they fit there (vCPU capacity, memory within the
 * headroom, its allowed CPUs) and no node ends above the threshold; one VM
 * a round, within the round's moves and memory.  The qemu hook's consolidation when
 * a VM stops is vn-rebalance-consolidate.h (vn_plan()'s capacity model).
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
    /* What the cell commits on its node (VnNodeLoad.committed_memory_kib),
     * which a move takes with it: memory_kib unless set apart
     * (vn_resident_set_cell_charge()); the ledger's count is its share of
     * the VM's QEMU overhead plus its memory, none when hugepage-backed. */
    guint64 charge_kib;
    /* The cache domains (VnTopology.domains indices) of the cell's guest
     * dies, in die order: its vCPUs split evenly over them in vCPU order,
     * each die's pinned inside its domain (one die: the cell in one
     * domain).  NULL when its vCPUs float over CPUs of several domains.
     * A move keeps the dies, each in one domain of the target node. */
    GArray *domains; /* of guint */
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
    guint64 memory_kib; /* 0 for a move between cache domains */
    gdouble imbalance_before;
    gdouble imbalance_after;
    gchar *reason;
    /* A guest die moved between two cache domains of one node (from_node
     * == to_node; no page migration): the domains (VnTopology.domains
     * indices); -1 for a move between nodes. */
    gint from_domain, to_domain;
    /* The cache domains of the cell's guest dies after the move, in die
     * order (as VnResidentCell.domains); NULL when its vCPUs float over
     * the target node's CPUs. */
    GArray *domains; /* of guint */
} VnMove;

VnResident *vn_resident_new(const gchar *name, VnPriority priority, gboolean dedicated,
                            gint64 last_move);
void vn_resident_add_cell(VnResident *r, guint id, guint node, guint vcpus, guint64 memory_kib);
/* Sets the cache domains of the guest dies of the last cell added
 * (VnResidentCell.domains; copied). */
void vn_resident_set_cell_domains(VnResident *r, const guint *domains, guint n);
/* Sets what the last cell added commits on its node (VnResidentCell.charge_kib). */
void vn_resident_set_cell_charge(VnResident *r, guint64 charge_kib);
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
