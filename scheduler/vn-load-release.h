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

/* A deep copy of `l` (committed figures, CPU busy, dedicated CPUs,
 * hugepages).  Free with vn_load_free(). */
VnLoad *vn_load_copy(const VnLoad *l);
