/* vn-engine.h: the one path from a domain to its placement: the domain's
 * XML (domain/) and the host's facts (host/) make a request, the placement
 * core (scheduler/) answers it, and the answer is written into the domain.
 */
#pragma once

#include <glib.h>
#include "vn-domain.h"
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

/* ---- domain -> request (vn-engine-request.c) ---------------------------
 * vCPUs = the maximum (every vCPU that can come online is pinned); memory =
 * <memory>; cells = the number of existing <cpu><numa> cells (guest ABI:
 * once a domain has cells, re-placing keeps their count; remove <cpu><numa>
 * to let vnuma choose again), 0 = vnuma chooses; cell_sizes = each cell's
 * vCPU count and memory when the cells differ in size and hold every vCPU
 * once (NULL for identical cells: the even split); devices with their host node read under `sysroot` (NULL or ""
 * = "/"), devices without NUMA information skipped.  Device IOThreads are
 * given as ordinals 1..N of the domain's IOThread ids (equal to the ids in
 * the usual case of ids 1..N).  Errors (VN_DOMAIN_ERROR_INVALID): hugepages
 * of several sizes. */
VnRequest *vn_domain_to_request(const VnDomain *d, const gchar *sysroot, GError **error);

/* ---- the whole path (vn-engine-place.c) ----------------------------------
 * request -> vn_plan -> apply, the one path shared by `vnumactl plan`,
 * define, place, the daemon and the hook.  `req` NULL = vn_domain_to_request
 * (d, sysroot).  Returns the placement (also written into `d`); on a plan
 * failure the error is VN_PLAN_ERROR and *ret_reasons (if given) says what
 * is short. */
VnPlacement *vn_domain_place(VnDomain *d, const VnTopology *t, const VnLoad *load,
                             const VnPolicy *policy, const VnRequest *req,
                             const gchar *sysroot, const VnDomainWriteOptions *o,
                             GPtrArray **ret_reasons, GError **error);
/* Loads `path`, places it and returns the rewritten XML. */
gchar *vn_domain_plan_rewrite(const gchar *path, const VnTopology *t, const VnLoad *load,
                              const VnPolicy *policy, const gchar *sysroot,
                              const VnDomainWriteOptions *o, VnPlacement **ret_placement,
                              GPtrArray **ret_reasons, GError **error);

