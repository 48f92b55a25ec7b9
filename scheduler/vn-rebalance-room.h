/* vn-rebalance-room.h: defragmentation at admission — the live moves of
 * a few small VMs that let a VM that would be split fit on one node.
 *
 * Pure: the caller passes the host, its load and the VMs placed on it;
 * nothing is moved here.  A move takes a VM held whole on one node to
 * another single node (vn_plan() with one cell, kept off the node being
 * emptied), so every moved VM keeps one cell and its locality.  Dedicated
 * VMs, VMs with hugepages and VMs over several nodes are never moved.
 *
 * For each node, the few nodes with the most memory room first, the
 * moves are chosen greedily: the smallest VM whose move alone lets the
 * new VM fit, else the largest that fits the budget left and has
 * somewhere to go, until the VM fits or the budget (moves, memory moved:
 * the rebalancer's round) is spent.  Of the nodes that can be emptied enough, the plan with the
 * fewest moves, then the least memory moved, wins.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

typedef struct {
    guint vm;        /* index into the caller's arrays */
    guint from_node; /* node indices */
    guint to_node;
    guint64 memory_kib;     /* the VM's memory */
    VnPlacement *placement; /* its placement on to_node (owned) */
} VnRoomMove;

/* The moves (of VnRoomMove, with a clear function) that let `req` (no
 * fixed cells) fit on one node (one with CPUs of its allowed_cpus, when
 * it has them), at most `max_moves` moving at most
 * `max_memory_kib` in all; *ret_node the node it then fits.  NULL when
 * it fits one node already, or no such moves exist.  requests[i] and
 * placements[i] are the placed VMs (a NULL placement: not placed). */
GArray *vn_rebalance_make_room(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                               const VnRequest *req, GPtrArray *requests, GPtrArray *placements,
                               guint max_moves, guint64 max_memory_kib, guint *ret_node);
