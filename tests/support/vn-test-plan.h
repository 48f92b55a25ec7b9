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

void vn_test_host_init(VnTestHost *h, VnTopology *t); /* takes t */
void vn_test_host_clear(VnTestHost *h);
VnRequest *vn_test_request(guint vcpus, guint64 mem_gib);
/* 2..max_cells guest cells of their own random sizes (1..max_vcpus vCPUs,
 * 1..max_gib GiB each); vcpus and memory are their sums. */
VnRequest *vn_test_sized_request(GRand *rand, guint max_cells, guint max_vcpus, guint64 max_gib);
VnPlacement *vn_test_plan_ok(VnTestHost *h, const VnRequest *r);
/* Every vCPU in exactly one cell; memory sums to the request; pins inside
 * the cell's node and outside the reserved CPUs; emulator and IOThreads set. */
void vn_test_assert_invariants(const VnTestHost *h, const VnRequest *r, const VnPlacement *p);
guint vn_test_nodes_used(const VnPlacement *p);
/* Shared request with per-cell sizes: each cell as asked, and each node's
 * cells within the node's capacity for a set of that many nodes. */
void vn_test_assert_cells_fit(const VnTestHost *h, const VnRequest *r, const VnPlacement *p);
typedef struct {
    guint exact, refused, packed, worse;
} VnTestSizedCounts;
/* Plans a request with per-cell sizes and checks it against the oracle.
 * One node (k == 1) and one cell per node (k == cells) are exact in the
 * planner (a sum, a matching) and must match the oracle.  Nodes holding
 * several cells of a split VM are bin packing, where the planner's growth
 * and assignment are heuristics: there it may use a worse set than the
 * oracle (never a better one, never an overbooked node), counted in
 * `worse`; vn_test_sized_counts_check() wants it within 10% of `packed`. */
void vn_test_check_sized_plan(VnTestHost *h, const VnRequest *r, VnTestSizedCounts *counts);
void vn_test_sized_counts_check(const VnTestSizedCounts *counts);
guint vn_test_placement_distance(const VnTestHost *h, const VnPlacement *p);
/* A VM split by vn_plan() with [placement] split fill (shared vCPUs,
 * memory in whole GiB, no fixed cells): each node's share within its
 * capacity for that many nodes; the largest cell holds as much of the VM
 * as one of its nodes can (memory within the node's room and, in
 * proportion, its vCPU room, less one vCPU's share of the memory, at
 * most 1 GiB, for each other cell); no cell holds less than that (within its
 * node's room) when all can have it; each
 * cell's vCPUs are in proportion to its memory (within one vCPU) unless
 * a node's vCPU room or the one-vCPU minimum forces otherwise; and the
 * uniform remote share is no higher than an even split's (1 - 1/k).  A
 * placement whose reasons say "split even, not fill" (the fill crowded a
 * member and the even split scored lower) is checked as an even split:
 * every cell below its room holds at least an even share. */
void vn_test_assert_filled(const VnTestHost *h, const VnRequest *r, const VnPlacement *p);
/* Whether one of `p`'s reasons starts with `prefix`. */
gboolean vn_test_has_reason(const VnPlacement *p, const gchar *prefix);
/* 1 - sum over cells of vCPU share x memory share. */
gdouble vn_test_remote_share(const VnRequest *r, const VnPlacement *p);
/* Brute force over all node subsets (n <= 16): the fewest nodes that can
 * hold the VM and the smallest internal distance among feasible sets of
 * that size.  FALSE when nothing fits.  With per-cell sizes (at most 6
 * cells, shared vCPUs) a set fits when some map of cells to its nodes
 * gives every node a cell and fits each node on its own. */
gboolean vn_test_oracle(const VnTestHost *h, const VnRequest *r, guint *ret_k, guint *ret_dist);
