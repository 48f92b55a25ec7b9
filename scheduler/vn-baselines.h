/* vn-baselines.h: placement policies that stand for vnuma's peers.
 *
 * Small, pure placement functions used by the what-if simulator
 * (vn-simulate.h) to compare vnuma's vn_plan() with what other tools do:
 *
 *   first-fit    OpenStack Nova: the fewest guest cells that fit, each on
 *                the first nodes in node order that hold an even share; no
 *                distance awareness.
 *   most-free    numad: the nodes with the most free memory, as many as it
 *                takes for their CPUs to cover the vCPUs one to one (numad
 *                sizes by idle CPUs, without overcommit) and to hold an even
 *                share of the memory.
 *   round-robin  spread: as first-fit, but the scan starts at the node after
 *                the previous VM's first node.
 *   no-pinning   an unmanaged VM: memory on the first node with room
 *                (spilling to the next ones in node order, as the kernel's
 *                local-first allocation does), vCPUs float over every node.
 *                For the load accounting its vCPUs go to the node with the
 *                most vCPU room, one at a time; its placement has a cell on
 *                each node that got vCPUs or memory (a cell may have vCPUs
 *                and no memory, or memory and no vCPUs).
 *
 * Capacity is vn_plan()'s model (vn-plan-capacity.c): a node's memory
 * less the host reservation, the headroom, what is committed and its share
 * of the QEMU overhead; shared vCPUs up to its free CPUs times the
 * overcommit ratio.  So a baseline never admits what the host cannot
 * hold, and vn_load_commit()/vn_load_release() account for its
 * placements.  Baselines handle shared vCPUs on normal pages without a
 * fixed cell count (what a trace holds); other requests are refused with
 * VN_BASELINE_ERROR_INVALID_REQUEST.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

typedef enum {
    VN_BASELINE_FIRST_FIT,
    VN_BASELINE_MOST_FREE,
    VN_BASELINE_ROUND_ROBIN,
    VN_BASELINE_NO_PINNING,
    VN_BASELINE_MAX
} VnBaseline;

#define VN_BASELINE_ERROR (vn_baseline_error_quark())
GQuark vn_baseline_error_quark(void);
typedef enum {
    VN_BASELINE_ERROR_INVALID_REQUEST, /* dedicated, hugepages, fixed cells, 0 vCPUs */
    VN_BASELINE_ERROR_NO_FIT,          /* this policy finds no room */
    VN_BASELINE_ERROR_MAX
} VnBaselineError;

const gchar *vn_baseline_to_string(VnBaseline b);
gboolean vn_baseline_from_string(const gchar *s, VnBaseline *ret_b);

/* Places `req` with policy `b` on `t` given `load`.  `cursor` is the
 * round-robin position (a node index; start at 0), read and advanced by
 * VN_BASELINE_ROUND_ROBIN only; it may be NULL for the others.  Returns a
 * placement with cells (node, vCPU count, memory, the node's CPUs) and no
 * per-vCPU pins, or NULL with VN_BASELINE_ERROR. */
VnPlacement *vn_baseline_place(VnBaseline b, const VnTopology *t, const VnLoad *load,
                               const VnPolicy *policy, const VnRequest *req, guint *cursor,
                               GError **error);
