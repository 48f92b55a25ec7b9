/* vn-test-topologies.h: host shapes with real distance matrices, built
 * with the scheduler's own builder (tests and benchmarks only). */
#pragma once

#include "vn-topology.h"

typedef enum {
    VN_SHAPE_INTEL_2S,     /* 10 21 (E5-2695 v4) */
    VN_SHAPE_EPYC_2S_NPS4, /* 8 nodes, 10 12 32 */
    VN_SHAPE_INTEL_8S,     /* 10 12 17 19 (E7-4870 8-socket) */
    VN_SHAPE_HIER, /* any power-of-two count: 10 / 12 pair / 17 quad / 19 oct / 21+ beyond */
    VN_SHAPE_MAX
} VnShape;

/* `nodes` is used by VN_SHAPE_HIER only.  Each node: `cores` cores of
 * `threads` threads and `mem_gib` GiB. */
VnTopology *vn_test_topology(VnShape shape, guint nodes, guint cores, guint threads, guint mem_gib);
/* The same with `l3_per_node` L3 caches in each node (its cores split
 * evenly, SMT siblings together); 0 as vn_test_topology(). */
VnTopology *vn_test_topology_l3(VnShape shape, guint nodes, guint cores, guint threads,
                                guint mem_gib, guint l3_per_node);
/* Node distance used by the shapes (for oracles in tests). */
guint vn_test_shape_distance(VnShape shape, guint nodes, guint a, guint b);
