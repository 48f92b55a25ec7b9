/* vn-plan.h: the placement core.
 *
 * vn_plan() is a pure function: topology + load + policy + request ->
 * placement.  No I/O, no clock, no globals.  Its cost is bounded by
 * O(N^2 * k) for N nodes and k cells whatever the host (no enumeration of
 * subsets or permutations).  Guest cells of their own sizes (c of them,
 * at most 64) add a matching of cells to nodes: O(N^2 * k * c^2) in all
 * (vn-plan-cells.c).
 *
 * On failure it returns NULL with VN_PLAN_ERROR and, when `ret_reasons` is
 * given, the list of what is short ("node 3: 2 GiB free, needs 8 GiB").
 */
#pragma once

#include <glib.h>
#include "vn-topology.h"
#include "vn-load.h"
#include "vn-request.h"
#include "vn-placement.h"

#define VN_PLAN_ERROR (vn_plan_error_quark())
GQuark vn_plan_error_quark(void);
typedef enum {
    VN_PLAN_ERROR_INVALID_REQUEST, /* 0 vCPUs, unknown device node, ... */
    VN_PLAN_ERROR_NO_FIT,          /* no placement on this host now */
    VN_PLAN_ERROR_MAX
} VnPlanError;

VnPlacement *vn_plan(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                     const VnRequest *req, GPtrArray **ret_reasons, GError **error);

/* Adds a placed VM to `load` (the ledger does this for each record). */
void vn_load_commit(VnLoad *load, const VnTopology *t, const VnPolicy *policy, const VnRequest *req,
                    const VnPlacement *p);
