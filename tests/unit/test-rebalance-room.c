/* test-rebalance-room.c: defragmentation at admission
 * (vn_rebalance_make_room()) on a hand-computed 2-socket host.
 *
 * Nodes of 64 GiB, 5 % headroom (3.2 GiB), overhead 32 MiB + 8 MiB/GiB a
 * VM.  Node 0 holds VMs of 4, 8 and 20 GiB (32 GiB + 352 MiB committed:
 * 28.46 GiB left), node 1 one of 30 GiB (30.53 GiB left).  A 34 GiB VM
 * (34.3 GiB with its overhead) fits neither: it would be split.  Moving
 * the 4 GiB VM leaves node 0 32.5 GiB, too little; moving the 8 GiB VM
 * (to node 1, which then has 22.4 GiB left) leaves 36.5 GiB: one move.
 */
#include "vn-rebalance-room.h"
#include "vn-load-release.h"
#include "vn-test-plan.h"
#include "vn-test-topologies.h"

typedef struct {
    VnTestHost h;
    GPtrArray *requests, *placements;
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

static void
fixture_init(Fixture *f)
{
    vn_test_host_init(&f->h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    f->requests = g_ptr_array_new_with_free_func((GDestroyNotify)vn_request_free);
    f->placements = g_ptr_array_new_with_free_func((GDestroyNotify)vn_placement_free);
    place_on(f, 0, 4);
    place_on(f, 0, 8);
    place_on(f, 0, 20);
    place_on(f, 1, 30);
}

static void
fixture_clear(Fixture *f)
{
    g_ptr_array_unref(f->requests);
    g_ptr_array_unref(f->placements);
    vn_test_host_clear(&f->h);
}

static GArray *
make_room(Fixture *f, const VnRequest *r, guint max_moves, guint64 max_gib, guint *ret_node)
{
    return vn_rebalance_make_room(f->h.t, f->h.load, f->h.policy, r, f->requests, f->placements,
                                  max_moves, max_gib * GIB, ret_node);
}

static void
test_one_move(void)
{
    Fixture f;
    g_autoptr(VnRequest) big = vn_test_request(4, 34);
    g_autoptr(GArray) moves = NULL;
    g_autoptr(VnPlacement) split = NULL;
    g_autoptr(VnPlacement) whole = NULL;
    guint node = G_MAXUINT;

    fixture_init(&f);
    split = vn_test_plan_ok(&f.h, big);
    g_assert_cmpuint(vn_test_nodes_used(split), ==, 2);
    moves = make_room(&f, big, 2, 16, &node);
    g_assert_nonnull(moves);
    g_assert_cmpuint(moves->len, ==, 1);
    g_assert_cmpuint(node, ==, 0);
    {
        VnRoomMove *m = &g_array_index(moves, VnRoomMove, 0);
        const VnRequest *r = g_ptr_array_index(f.requests, m->vm);
        g_assert_cmpuint(m->vm, ==, 1); /* the 8 GiB VM */
        g_assert_cmpuint(m->from_node, ==, 0);
        g_assert_cmpuint(m->to_node, ==, 1);
        g_assert_cmpuint(m->memory_kib, ==, 8 * GIB);
        g_assert_cmpuint(vn_test_nodes_used(m->placement), ==, 1);
        vn_test_assert_invariants(&f.h, r, m->placement);
        /* applied, the big VM fits node 0 alone */
        vn_load_release(f.h.load, f.h.t, f.h.policy, r, g_ptr_array_index(f.placements, m->vm));
        vn_load_commit(f.h.load, f.h.t, f.h.policy, r, m->placement);
    }
    whole = vn_test_plan_ok(&f.h, big);
    g_assert_cmpuint(vn_test_nodes_used(whole), ==, 1);
    g_assert_cmpuint(g_array_index(whole->cells, VnCell, 0).node, ==, 0);
    fixture_clear(&f);
}

/* Within 4 GiB only the 4 GiB VM may move, which is not enough; no moves
 * at all, none; a VM that fits one node already needs none. */
static void
test_budget(void)
{
    Fixture f;
    g_autoptr(VnRequest) big = vn_test_request(4, 34);
    g_autoptr(VnRequest) small = vn_test_request(4, 16);
    g_autoptr(VnLoad) before = NULL;
    guint node = G_MAXUINT;

    fixture_init(&f);
    before = vn_load_copy(f.h.load);
    g_assert_null(make_room(&f, big, 2, 4, &node));
    g_assert_null(make_room(&f, big, 0, 16, &node));
    g_assert_null(make_room(&f, small, 2, 16, &node));
    g_assert_cmpuint(node, ==, G_MAXUINT);
    /* the load passed in is never changed */
    for (guint i = 0; i < f.h.t->n_nodes; i++)
        g_assert_cmpuint(f.h.load->nodes[i].committed_memory_kib, ==,
                         before->nodes[i].committed_memory_kib);
    fixture_clear(&f);
}

/* The largest candidate within the budget that cannot move anywhere does
 * not end the search: the largest one that can goes first.  Node 0 holds
 * VMs of 4, 8 and 20 GiB, node 1 one of 42 GiB; in KiB (headroom 67108864
 * / 100 * 5 = 3355440; overhead 32768 + 8192 a started GiB):
 *   4 GiB  4194304 + 65536  = 4259840      8 GiB  8388608 + 98304 = 8486912
 *   20 GiB 20971520 + 196608 = 21168128    42 GiB 44040192 + 376832 = 44417024
 *   38 GiB 39845888 + 344064 = 40189952 (the VM to place)
 *   left: node 0 67108864 - 3355440 - 33914880 = 29838544,
 *         node 1 67108864 - 3355440 - 44417024 = 19336400
 * The 20 GiB VM (within the 32 GiB budget) needs 21168128 > 19336400 on
 * node 1: it cannot move.  Alone, the 4 GiB VM leaves node 0 34098384 and
 * the 8 GiB one 38325456, both short of 40189952; both, 42585296: the
 * 8 GiB VM, then the 4 GiB one (12746752 <= 19336400 on node 1).  Node 1's
 * 42 GiB VM is over the budget. */
static void
test_largest_stuck(void)
{
    Fixture f;
    g_autoptr(VnRequest) big = vn_test_request(4, 38);
    g_autoptr(GArray) moves = NULL;
    guint node = G_MAXUINT;

    vn_test_host_init(&f.h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    f.requests = g_ptr_array_new_with_free_func((GDestroyNotify)vn_request_free);
    f.placements = g_ptr_array_new_with_free_func((GDestroyNotify)vn_placement_free);
    place_on(&f, 0, 4);
    place_on(&f, 0, 8);
    place_on(&f, 0, 20);
    place_on(&f, 1, 42);
    g_assert_cmpuint(f.h.load->nodes[0].committed_memory_kib, ==, 33914880);
    g_assert_cmpuint(f.h.load->nodes[1].committed_memory_kib, ==, 44417024);
    moves = make_room(&f, big, 2, 32, &node);
    g_assert_nonnull(moves);
    g_assert_cmpuint(node, ==, 0);
    g_assert_cmpuint(moves->len, ==, 2);
    g_assert_cmpuint(g_array_index(moves, VnRoomMove, 0).vm, ==, 1); /* 8 GiB */
    g_assert_cmpuint(g_array_index(moves, VnRoomMove, 0).to_node, ==, 1);
    g_assert_cmpuint(g_array_index(moves, VnRoomMove, 1).vm, ==, 0); /* 4 GiB */
    g_assert_cmpuint(g_array_index(moves, VnRoomMove, 1).to_node, ==, 1);
    fixture_clear(&f);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/rebalance/room/one-move", test_one_move);
    g_test_add_func("/rebalance/room/budget", test_budget);
    g_test_add_func("/rebalance/room/largest-stuck", test_largest_stuck);
    return g_test_run();
}
