/* vn-load-release.h: taking a VM back off a load, and copying a load.
 *
 * vn_load_release() is the exact counterpart of vn_load_commit()
 * (vn-plan.h): committing a placement and releasing it with the same
 * topology, policy and request leaves the load as it was.  Both are pure.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

/* Removes the commitment vn_load_commit(load, t, policy, req, p) added.
 * Figures never go below zero (releasing what was never committed is a
 * programmer error, caught by g_return_if_fail where it can be seen: a
 * node index outside the load).  Dedicated and isolated CPUs of `p` are
 * handed back. */
void vn_load_release(VnLoad *load, const VnTopology *t, const VnPolicy *policy,
                     const VnRequest *req, const VnPlacement *p);

/* Each shared vCPU of `p` to the cache domains of its pin (sign 1.0; -1.0
 * takes them back), when `policy` counts domains on `t`
 * (vn_load_counts_domains()); vn_load_commit() and vn_load_release() call
 * it. */
void vn_load_domains_add(VnLoad *load, const VnTopology *t, const VnPolicy *policy,
                         const VnPlacement *p, gdouble sign);

/* A deep copy of `l` (committed figures, CPU busy, dedicated CPUs,
 * hugepages, vCPUs per cache domain).  Free with vn_load_free(). */
VnLoad *vn_load_copy(const VnLoad *l);
