/* test-rebalance-consolidate.c: consolidation (vn_rebalance_consolidate())
 * on a hand-computed 2-socket host.
 *
 * Nodes of 64 GiB, 5 % headroom (3355440 KiB), overhead 32 MiB + 8 MiB a
 * GiB.  Node 0 holds a 24 GiB VM (25165824 + 32768 + 196608 = 25395200
 * KiB: 38358224 left), node 1 one of 30 GiB (31457280 + 32768 + 245760 =
 * 31735808: 32017616 left).  A 40 GiB VM (41943040 + 32768 + 327680 =
 * 42303488) fits neither: it is split over both.  Once the 24 GiB VM has
 * left, node 0 holds all of it (63753424 left without it): consolidated
 * onto node 0, its two guest cells kept, what it had on node 1 moved.
 */
#include "vn-rebalance-consolidate.h"
#include "vn-load-release.h"
#include "vn-test-plan.h"
#include "vn-test-topologies.h"

typedef struct {
    VnTestHost h;
    GPtrArray *requests, *placements;
    VnPlacement *split; /* the big VM's placement (borrowed) */
} Fixture;

/* A VM of `gib` and 2 vCPUs placed whole on node `node`. */
static void
place_on(Fixture *f, guint node, guint64 gib)
{
    VnRequest *r = vn_test_request(2, gib);
    g_autoptr(VnRequest) one = vn_test_request(2, gib);
    VnPlacement *p;

    one->cells = 1;
    one->allowed_cpus = vn_bitmap_copy(f->h.t->nodes[node].cpus);
    p = vn_test_plan_ok(&f->h, one);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node, ==, node);
    vn_load_commit(f->h.load, f->h.t, f->h.policy, r, p);
    g_ptr_array_add(f->requests, r);
    g_ptr_array_add(f->placements, p);
}

/* VMs: 0 the 24 GiB one on node 0, 1 the 30 GiB one on node 1, 2 the
 * 40 GiB one split over both. */
static void
fixture_init(Fixture *f)
{
    VnRequest *big = vn_test_request(4, 40);

    vn_test_host_init(&f->h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    f->requests = g_ptr_array_new_with_free_func((GDestroyNotify)vn_request_free);
    f->placements = g_ptr_array_new_with_free_func((GDestroyNotify)vn_placement_free);
    place_on(f, 0, 24);
    place_on(f, 1, 30);
    g_assert_cmpuint(f->h.load->nodes[0].committed_memory_kib, ==, 25395200);
    g_assert_cmpuint(f->h.load->nodes[1].committed_memory_kib, ==, 31735808);
    f->split = vn_test_plan_ok(&f->h, big);
    g_assert_cmpuint(vn_placement_memory_nodes(f->split), ==, 2);
    g_assert_cmpuint(f->split->cells->len, ==, 2);
    vn_load_commit(f->h.load, f->h.t, f->h.policy, big, f->split);
    g_ptr_array_add(f->requests, big);
    g_ptr_array_add(f->placements, f->split);
}

/* The 24 GiB VM leaves node 0. */
static void
depart_first(Fixture *f)
{
    vn_load_release(f->h.load, f->h.t, f->h.policy, g_ptr_array_index(f->requests, 0),
                    g_ptr_array_index(f->placements, 0));
    vn_placement_free(g_ptr_array_index(f->placements, 0));
    g_ptr_array_index(f->placements, 0) = NULL;
}

static void
fixture_clear(Fixture *f)
{
    g_ptr_array_unref(f->requests);
    g_ptr_array_unref(f->placements);
    vn_test_host_clear(&f->h);
}

/* What the big VM holds on node `node`. */
static guint64
memory_on(const VnPlacement *p, guint node)
{
    guint64 kib = 0;

    for (guint c = 0; c < p->cells->len; c++)
        if (g_array_index(p->cells, VnCell, c).node == node)
            kib += g_array_index(p->cells, VnCell, c).memory_kib;
    return kib;
}

static GArray *
consolidate(Fixture *f, guint max_vms, guint64 max_kib)
{
    return vn_rebalance_consolidate(f->h.t, f->h.load, f->h.policy, f->requests, f->placements,
                                    max_vms, max_kib);
}

static void
test_after_departure(void)
{
    Fixture f;
    g_autoptr(GArray) none = NULL;
    g_autoptr(GArray) done = NULL;
    g_autoptr(VnLoad) before = NULL;
    guint64 on_1;

    fixture_init(&f);
    /* while both others run, no node holds it */
    none = consolidate(&f, VN_CONSOLIDATE_MAX_VMS, VN_CONSOLIDATE_MAX_MEMORY_KIB);
    g_assert_cmpuint(none->len, ==, 0);
    on_1 = memory_on(f.split, 1);
    g_assert_cmpuint(on_1, >, 0);
    g_assert_cmpuint(on_1, <, 40 * GIB);
    depart_first(&f);
    before = vn_load_copy(f.h.load);
    done = consolidate(&f, VN_CONSOLIDATE_MAX_VMS, VN_CONSOLIDATE_MAX_MEMORY_KIB);
    g_assert_cmpuint(done->len, ==, 1);
    {
        const VnConsolidation *c = &g_array_index(done, VnConsolidation, 0);
        const VnRequest *big = g_ptr_array_index(f.requests, 2);
        g_assert_cmpuint(c->vm, ==, 2);
        g_assert_cmpuint(c->nodes_before, ==, 2);
        g_assert_cmpuint(c->nodes_after, ==, 1);
        g_assert_cmpuint(c->moved_kib, ==, on_1);
        /* the guest's cells are kept, both now on node 0 */
        g_assert_cmpuint(c->placement->cells->len, ==, 2);
        for (guint k = 0; k < 2; k++) {
            const VnCell *now = &g_array_index(c->placement->cells, VnCell, k);
            const VnCell *was = &g_array_index(f.split->cells, VnCell, k);
            g_assert_cmpuint(now->node, ==, 0);
            g_assert_cmpuint(now->n_vcpus, ==, was->n_vcpus);
            g_assert_cmpuint(now->memory_kib, ==, was->memory_kib);
        }
        vn_test_assert_invariants(&f.h, big, c->placement);
    }
    /* the load passed in is never changed */
    for (guint i = 0; i < f.h.t->n_nodes; i++)
        g_assert_cmpuint(f.h.load->nodes[i].committed_memory_kib, ==,
                         before->nodes[i].committed_memory_kib);
    fixture_clear(&f);
}

static guint
count(Fixture *f, guint max_vms, guint64 max_kib)
{
    g_autoptr(GArray) done = consolidate(f, max_vms, max_kib);

    return done->len;
}

/* A budget below what would move, no VMs allowed, and VMs vnuma does not
 * move (dedicated, hugepages, another manager's CPU set): none. */
static void
test_budget_and_unmovable(void)
{
    Fixture f;
    VnRequest *big;

    fixture_init(&f);
    depart_first(&f);
    big = g_ptr_array_index(f.requests, 2);
    g_assert_cmpuint(count(&f, 1, memory_on(f.split, 1) - 1), ==, 0);
    g_assert_cmpuint(count(&f, 0, VN_CONSOLIDATE_MAX_MEMORY_KIB), ==, 0);
    big->dedicated = TRUE;
    g_assert_cmpuint(count(&f, 1, VN_CONSOLIDATE_MAX_MEMORY_KIB), ==, 0);
    big->dedicated = FALSE;
    big->hugepage_kib = 2048;
    g_assert_cmpuint(count(&f, 1, VN_CONSOLIDATE_MAX_MEMORY_KIB), ==, 0);
    big->hugepage_kib = 0;
    big->allowed_cpus = vn_bitmap_copy(f.h.t->nodes[0].cpus);
    g_assert_cmpuint(count(&f, 1, VN_CONSOLIDATE_MAX_MEMORY_KIB), ==, 0);
    g_clear_pointer(&big->allowed_cpus, vn_bitmap_free);
    g_assert_cmpuint(count(&f, 1, memory_on(f.split, 1)), ==, 1);
    fixture_clear(&f);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/rebalance/consolidate/after-departure", test_after_departure);
    g_test_add_func("/rebalance/consolidate/budget-and-unmovable", test_budget_and_unmovable);
    return g_test_run();
}
