/* vn-test-plan.h: helpers for placement tests: a host (topology, load,
 * policy), request shorthand, the invariants every placement must hold,
 * and an independent brute-force oracle for hosts of up to 16 nodes. */
#pragma once

#include "vn-plan.h"

#define GIB (1024ull * 1024ull)

typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnPolicy *policy;
} VnTestHost;

void vn_test_host_init(VnTestHost *h, VnTopology *t);   /* takes t */
void vn_test_host_clear(VnTestHost *h);
VnRequest *vn_test_request(guint vcpus, guint64 mem_gib);
VnPlacement *vn_test_plan_ok(VnTestHost *h, const VnRequest *r);
/* Every vCPU in exactly one cell; memory sums to the request; pins inside
 * the cell's node and outside the reserved CPUs; emulator and IOThreads set. */
void vn_test_assert_invariants(const VnTestHost *h, const VnRequest *r, const VnPlacement *p);
guint vn_test_nodes_used(const VnPlacement *p);
guint vn_test_placement_distance(const VnTestHost *h, const VnPlacement *p);
/* Brute force over all node subsets (n <= 16): the fewest nodes that can
 * hold the VM and the smallest internal distance among feasible sets of
 * that size.  FALSE when nothing fits. */
gboolean vn_test_oracle(const VnTestHost *h, const VnRequest *r, guint *ret_k, guint *ret_dist);
