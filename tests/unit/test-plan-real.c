/* test-plan-real.c: the placement core on real hosts' topologies.
 *
 * Every hwloc XML in tests/data/hwloc and libvirt capabilities XML in
 * tests/data/caps (copied from ../shared/corpus, see tests/data/README.md)
 * is loaded through plugin/ and planned against with seeded random loads
 * and requests (seeded from the file's name, not its path, so that every
 * checkout draws the same cases).  Every placement must hold the invariants; on hosts of up
 * to 16 nodes the decision must match the brute-force oracle (fewest
 * nodes, then smallest internal distance), with either balance
 * ([placement] balance: the oracle ranks no load, so memory packing must
 * meet it too).  Cases are discovered by listing the data directories.
 */
#include <string.h>
#include "vn-test-files.h"
#include "vn-test-plan.h"
#include "vn-topology-source.h"

typedef VnTopology *(*Loader)(const gchar *path, GError **error);

/* Guest cells of their own sizes (2..4 cells, each up to a node's CPUs
 * and half its memory) against the oracle, on hosts of up to 16 nodes. */
static void
check_host_sized(const gchar *path, Loader load, VnBalance balance)
{
    g_autofree gchar *base = g_path_get_basename(path);
    g_autoptr(GRand) rand = g_rand_new_with_seed(g_str_hash(base) + 1);
    VnTestSizedCounts counts = { 0 };

    for (guint round = 0; round < 20; round++) {
        g_autoptr(GError) error = NULL;
        VnTopology *t = load(path, &error);
        g_autoptr(VnRequest) r = NULL;
        VnTestHost h;
        guint64 node_gib = 0;
        guint ncpus = 0;

        g_assert_no_error(error);
        if (t->n_nodes > 16) {
            vn_topology_free(t);
            return;
        }
        vn_test_host_init(&h, t);
        h.policy->balance = balance;
        for (guint i = 0; i < t->n_nodes; i++) {
            node_gib = MAX(node_gib, t->nodes[i].mem_total_kib / GIB);
            ncpus = MAX(ncpus, vn_topology_node_ncpus(t, i));
            h.load->nodes[i].committed_memory_kib =
                t->nodes[i].mem_total_kib / 100 * (guint64)g_rand_int_range(rand, 0, 60);
            h.load->nodes[i].committed_vcpus =
                (guint)g_rand_int_range(rand, 0, (gint)MAX(ncpus, 1) * 2);
        }
        if (node_gib < 2) {
            vn_test_host_clear(&h);
            return; /* hosts without (much) memory: nothing to size */
        }
        r = vn_test_sized_request(rand, 4, MAX(ncpus, 1), node_gib / 2);
        vn_test_check_sized_plan(&h, r, &counts);
        vn_test_host_clear(&h);
    }
    vn_test_sized_counts_check(&counts);
}

static void
check_host_balance(const gchar *path, VnBalance balance)
{
    g_autofree gchar *dir = g_path_get_dirname(path);
    Loader load =
        g_str_has_suffix(dir, "caps") ? vn_topology_load_capabilities : vn_topology_load_hwloc_xml;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *base = g_path_get_basename(path);
    g_autoptr(GRand) rand = g_rand_new_with_seed(g_str_hash(base));
    guint checked = 0;
    gboolean has_memory = FALSE;

    for (guint round = 0; round < 40; round++) {
        VnTestHost h;
        VnTopology *t = load(path, &error);
        g_autoptr(VnRequest) r = NULL;
        g_autoptr(VnPlacement) p = NULL;
        guint64 node_kib = 0;
        guint ncpus = 0, k = 0, dist = 0;
        gboolean fits;

        g_assert_no_error(error);
        vn_test_host_init(&h, t);
        h.policy->balance = balance;
        for (guint i = 0; i < t->n_nodes; i++) {
            has_memory |= t->nodes[i].mem_total_kib > 0;
            /* the nodes a VM lands on unless it asks for memory-only ones */
            if (vn_topology_node_ncpus(t, i) > 0)
                node_kib = MAX(node_kib, t->nodes[i].mem_total_kib);
            ncpus = MAX(ncpus, vn_topology_node_ncpus(t, i));
            h.load->nodes[i].committed_memory_kib =
                t->nodes[i].mem_total_kib / 100 * (guint64)g_rand_int_range(rand, 0, 60);
            h.load->nodes[i].committed_vcpus =
                (guint)g_rand_int_range(rand, 0, (gint)MAX(ncpus, 1) * 2);
        }
        r = vn_request_new();
        r->vcpus = (guint)g_rand_int_range(rand, 1, (gint)MAX(ncpus, 1) * 3);
        /* from a quarter of a node to three nodes, in MiB */
        r->memory_kib =
            MAX(node_kib / 4 + node_kib / 100 * (guint64)g_rand_int_range(rand, 0, 275), 1024) /
            1024 * 1024;
        p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
        if (t->n_nodes <= 16) {
            fits = vn_test_oracle(&h, r, &k, &dist);
            if (!fits) {
                g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
                g_clear_error(&error);
            } else {
                g_assert_no_error(error);
                g_assert_cmpuint(vn_test_nodes_used(p), ==, k);
                g_assert_cmpuint(vn_test_placement_distance(&h, p), ==, dist);
            }
        } else if (!p) {
            g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
            g_clear_error(&error);
        }
        if (p) {
            vn_test_assert_invariants(&h, r, p);
            checked++;
        }
        vn_test_host_clear(&h);
    }
    check_host_sized(path, load, balance);
    /* a host with no memory at all (libvirt's test driver caps) places nothing */
    if (has_memory)
        g_assert_cmpuint(checked, >, 0);
    else
        g_assert_cmpuint(checked, ==, 0);
}

static void
check_host(gconstpointer data)
{
    check_host_balance(data, VN_BALANCE_LOAD);
}

static void
check_host_packing(gconstpointer data)
{
    check_host_balance(data, VN_BALANCE_MEMORY_PACKING);
}

/* A host of tests/data/hwloc, its default policy and no load. */
static void
hwloc_host_init(VnTestHost *h, const gchar *name)
{
    g_autofree gchar *path = g_build_filename(g_getenv("VN_TEST_DATA"), "hwloc", name, NULL);
    g_autoptr(GError) error = NULL;

    vn_test_host_init(h, vn_topology_load_hwloc_xml(path, &error));
    g_assert_no_error(error);
}

/* The 8-node R815 (tests/data/hwloc/64amd64-4p2n4ca2co.xml, 16 GiB
 * nodes), its default policy and no load. */
static void
r815_host_init(VnTestHost *h)
{
    hwloc_host_init(h, "64amd64-4p2n4ca2co.xml");
}

/* Split fill against even when the fill crowds a member
 * (vn_plan_split_crowds()).  On hwloc's 16amd64-4distances.xml (8 nodes of
 * 2 CPUs and 8 GiB) a VM of 4 vCPUs and 16 GiB takes three nodes.  The
 * fill would give one of them 2 vCPUs and 7727 MiB (its 2 CPUs both busy:
 * crowding 1, its memory bandwidth full, and nearly half the VM's memory
 * behind it) and the others 1 vCPU and ~4.3 GiB; the even split holds
 * 5461-5462 MiB on each, less behind the crowded CPUs, scores lower and is
 * kept, said in a reason: the same placement as `split = even`.  On the
 * R815 (8 CPUs and 16 GiB a node) 4 vCPUs and 20 GiB fill two nodes with
 * 3 vCPUs and 15224 MiB and 1 vCPU and 5256 MiB: 3 vCPUs on 8 CPUs are
 * under the knee (half), so the even split is not tried. */
static void
test_split_crowded_even(void)
{
    g_autoptr(VnRequest) r = vn_test_request(4, 16);
    g_autoptr(VnRequest) r815 = vn_test_request(4, 20);
    g_autoptr(VnPlacement) p = NULL, even = NULL, fill = NULL;
    VnTestHost h;
    const guint vcpus[] = { 2, 1, 1 };

    hwloc_host_init(&h, "16amd64-4distances.xml");
    g_assert_cmpint(h.policy->split, ==, VN_SPLIT_FILL);
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 3);
    for (guint i = 0; i < 3; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        g_assert_cmpuint(cell->n_vcpus, ==, vcpus[i]);
        g_assert_cmpuint(cell->memory_kib, >=, 5461 * 1024ull);
        g_assert_cmpuint(cell->memory_kib, <=, 5462 * 1024ull);
    }
    g_assert_true(vn_test_has_reason(p, "split even, not fill"));
    h.policy->split = VN_SPLIT_EVEN;
    even = vn_test_plan_ok(&h, r);
    g_assert_cmpuint(even->cells->len, ==, 3);
    for (guint i = 0; i < 3; i++) {
        const VnCell *a = &g_array_index(p->cells, VnCell, i);
        const VnCell *b = &g_array_index(even->cells, VnCell, i);
        g_assert_cmpuint(a->node, ==, b->node);
        g_assert_cmpuint(a->memory_kib, ==, b->memory_kib);
    }
    g_assert_false(vn_test_has_reason(even, "split even, not fill"));
    vn_test_host_clear(&h);

    r815_host_init(&h);
    fill = vn_test_plan_ok(&h, r815);
    vn_test_assert_invariants(&h, r815, fill);
    g_assert_cmpuint(fill->cells->len, ==, 2);
    g_assert_cmpuint(g_array_index(fill->cells, VnCell, 0).n_vcpus, ==, 3);
    g_assert_cmpuint(g_array_index(fill->cells, VnCell, 0).memory_kib, ==, 15224 * 1024ull);
    g_assert_cmpuint(g_array_index(fill->cells, VnCell, 1).n_vcpus, ==, 1);
    g_assert_cmpuint(g_array_index(fill->cells, VnCell, 1).memory_kib, ==, 5256 * 1024ull);
    g_assert_false(vn_test_has_reason(fill, "split even, not fill"));
    vn_test_host_clear(&h);
}

static void
check_host_hole(gconstpointer data)
{
    check_host_balance(data, VN_BALANCE_KEEP_HOLE);
}

/* On the 8-node R815 (16 GiB nodes), every node but node 7 has
 * `committed_gib` committed.  A small VM (2 vCPUs, 2 GiB) comes, then a
 * big one (4 vCPUs, 14 GiB: only an empty node holds it alone).  Returns
 * the small VM's node and the number of nodes the big one gets. */
static void
plan_small_then_big_at(VnBalance balance, guint64 committed_gib, guint *ret_small_node,
                       guint *ret_big_nodes)
{
    g_autoptr(VnRequest) small = vn_test_request(2, 2);
    g_autoptr(VnRequest) big = vn_test_request(4, 14);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnPlacement) q = NULL;
    VnTestHost h;
    gint empty;

    r815_host_init(&h);
    /* the default adapts to the host's committed memory */
    g_assert_cmpint(h.policy->balance, ==, VN_BALANCE_ADAPTIVE);
    h.policy->balance = balance;
    empty = vn_topology_node_by_os_id(h.t, 7);
    g_assert_cmpint(empty, >=, 0);
    for (guint i = 0; i < h.t->n_nodes; i++)
        h.load->nodes[i].committed_memory_kib = (gint)i == empty ? 0 : committed_gib * GIB;
    p = vn_test_plan_ok(&h, small);
    vn_test_assert_invariants(&h, small, p);
    g_assert_cmpuint(p->cells->len, ==, 1);
    *ret_small_node = g_array_index(p->cells, VnCell, 0).node_os_id;
    g_assert_true(vn_test_has_reason(p, "balance adaptive") == (balance == VN_BALANCE_ADAPTIVE));
    g_assert_true(vn_test_has_reason(p, "balance keep-hole") == (balance == VN_BALANCE_KEEP_HOLE));
    vn_load_commit(h.load, h.t, h.policy, small, p);
    q = vn_test_plan_ok(&h, big);
    vn_test_assert_invariants(&h, big, q);
    *ret_big_nodes = vn_test_nodes_used(q);
    if (*ret_big_nodes == 1)
        g_assert_cmpuint(g_array_index(q->cells, VnCell, 0).node_os_id, ==, 7);
    vn_test_host_clear(&h);
}

static void
plan_small_then_big(VnBalance balance, guint *ret_small_node, guint *ret_big_nodes)
{
    plan_small_then_big_at(balance, 8, ret_small_node, ret_big_nodes);
}

/* Whether the first plan of plan_small_then_big_at() said it packed. */
static gboolean
adaptive_packs_at(guint64 committed_gib)
{
    g_autoptr(VnRequest) small = vn_test_request(2, 2);
    g_autoptr(VnPlacement) p = NULL;
    VnTestHost h;
    gboolean packs;

    r815_host_init(&h);
    for (guint i = 0; i < h.t->n_nodes; i++)
        h.load->nodes[i].committed_memory_kib = h.t->nodes[i].os_id == 7 ? 0 : committed_gib * GIB;
    p = vn_test_plan_ok(&h, small);
    packs = vn_test_has_reason(p, "balance memory-packing");
    g_assert_true(vn_test_has_reason(p, packs ? "balance adaptive: host memory 5"
                                              : "balance adaptive: host memory 4"));
    vn_test_host_clear(&h);
    return packs;
}

/* Adaptive, the default, on the R815 (8 nodes of about 16 GiB, 5 %
 * headroom each): with 8 GiB on 7 nodes the host's memory is 56/125.9 +
 * 5 % = 49 % committed, under half: least loaded, as load (the small VM
 * on empty node 7, the big one split).  With 9 GiB on 7 nodes it is
 * 63/125.9 + 5 % = 55 %: memory packing keeps node 7 whole for the big
 * one. */
static void
test_balance_adaptive(void)
{
    guint small_node, big_nodes;

    g_assert_false(adaptive_packs_at(8));
    plan_small_then_big_at(VN_BALANCE_ADAPTIVE, 8, &small_node, &big_nodes);
    g_assert_cmpuint(small_node, ==, 7);
    g_assert_cmpuint(big_nodes, ==, 2);
    g_assert_true(adaptive_packs_at(9));
    plan_small_then_big_at(VN_BALANCE_ADAPTIVE, 9, &small_node, &big_nodes);
    g_assert_cmpuint(small_node, !=, 7);
    g_assert_cmpuint(big_nodes, ==, 1);
}

/* Least loaded (the default) puts the small VM on the empty node, so the
 * big one is split; memory packing puts it on a fuller node and keeps
 * node 7 whole for the big one. */
static void
test_balance_packing_keeps_node_free(void)
{
    guint small_node, big_nodes;

    plan_small_then_big(VN_BALANCE_LOAD, &small_node, &big_nodes);
    g_assert_cmpuint(small_node, ==, 7);
    g_assert_cmpuint(big_nodes, ==, 2);
    plan_small_then_big(VN_BALANCE_MEMORY_PACKING, &small_node, &big_nodes);
    g_assert_cmpuint(small_node, !=, 7);
    g_assert_cmpuint(big_nodes, ==, 1);
}

/* Keep-hole leaves node 7, the only empty node, to the big VM as
 * packing does. */
static void
test_balance_hole_keeps_node_free(void)
{
    guint small_node, big_nodes;

    plan_small_then_big(VN_BALANCE_KEEP_HOLE, &small_node, &big_nodes);
    g_assert_cmpuint(small_node, !=, 7);
    g_assert_cmpuint(big_nodes, ==, 1);
}

/* On the R815 with nodes 6 and 7 empty and the others at 8 GiB, a small
 * VM goes to an empty node under load and keep-hole alike (both are
 * the least loaded), and after it a 14 GiB VM still fits whole on the
 * other one.  Keep-hole takes the empty node with less room (node 7:
 * the hwloc file gives it less memory than node 6), keeping the larger
 * whole; load takes the one least used in share. */
static void
test_balance_hole_keeps_larger(void)
{
    g_autofree gchar *path =
        g_build_filename(g_getenv("VN_TEST_DATA"), "hwloc", "64amd64-4p2n4ca2co.xml", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) small = vn_test_request(2, 2);
    g_autoptr(VnRequest) big = vn_test_request(4, 14);
    guint chosen[VN_BALANCE_MAX] = { 0 };

    for (guint b = 0; b < VN_BALANCE_MAX; b++) {
        g_autoptr(VnPlacement) p = NULL;
        g_autoptr(VnPlacement) q = NULL;
        VnTestHost h;

        if (b == VN_BALANCE_MEMORY_PACKING)
            continue;
        vn_test_host_init(&h, vn_topology_load_hwloc_xml(path, &error));
        g_assert_no_error(error);
        h.policy->balance = (VnBalance)b;
        for (guint i = 0; i < h.t->n_nodes; i++) {
            guint os = h.t->nodes[i].os_id;
            h.load->nodes[i].committed_memory_kib = os >= 6 ? 0 : 8 * GIB;
        }
        p = vn_test_plan_ok(&h, small);
        vn_test_assert_invariants(&h, small, p);
        chosen[b] = g_array_index(p->cells, VnCell, 0).node_os_id;
        g_assert_cmpuint(chosen[b], >=, 6);
        vn_load_commit(h.load, h.t, h.policy, small, p);
        q = vn_test_plan_ok(&h, big);
        g_assert_cmpuint(vn_test_nodes_used(q), ==, 1);
        vn_test_host_clear(&h);
    }
    g_assert_cmpuint(chosen[VN_BALANCE_LOAD], ==, 6);
    g_assert_cmpuint(chosen[VN_BALANCE_KEEP_HOLE], ==, 7);
}

/* Packing takes the fullest node that still holds the VM, never one that
 * does not: on the R815 with node 7 at 10.5 GiB committed (4.5 GiB left
 * after headroom) and the others empty, a 4 GiB VM goes to node 7, a
 * 5 GiB VM whole to another node. */
static void
test_balance_packing_capacity(void)
{
    g_autoptr(VnRequest) fits = vn_test_request(2, 4);
    g_autoptr(VnRequest) too_big = vn_test_request(2, 5);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnPlacement) q = NULL;
    VnTestHost h;
    gint full;

    r815_host_init(&h);
    h.policy->balance = VN_BALANCE_MEMORY_PACKING;
    full = vn_topology_node_by_os_id(h.t, 7);
    h.load->nodes[full].committed_memory_kib = 10 * GIB + GIB / 2;
    p = vn_test_plan_ok(&h, fits);
    vn_test_assert_invariants(&h, fits, p);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 7);
    q = vn_test_plan_ok(&h, too_big);
    vn_test_assert_invariants(&h, too_big, q);
    g_assert_cmpuint(q->cells->len, ==, 1);
    g_assert_cmpuint(g_array_index(q->cells, VnCell, 0).node_os_id, !=, 7);
    vn_test_host_clear(&h);
}

/* Which of the three randomized checks to register: "spread" (the
 * default policy), "packing", "hole", or all three when NULL. */
static void
add_dir(const gchar *data, const gchar *sub, const gchar *suffix, const gchar *only)
{
    static const struct {
        const gchar *name, *path;
        GTestDataFunc func;
    } checks[] = {
        { "spread", "", check_host },
        { "packing", "memory-packing/", check_host_packing },
        { "hole", "keep-hole/", check_host_hole },
    };
    g_autofree gchar *dir = g_build_filename(data, sub, NULL);
    g_autoptr(GPtrArray) names = vn_test_dir_names(dir, suffix);

    for (guint c = 0; c < G_N_ELEMENTS(checks); c++) {
        if (only && strcmp(only, checks[c].name) != 0)
            continue;
        for (guint i = 0; i < names->len; i++) {
            const gchar *name = names->pdata[i];
            g_autofree gchar *test =
                g_strdup_printf("/plan/real/%s%s/%s", checks[c].path, sub, name);
            g_test_add_data_func_full(test, g_build_filename(dir, name, NULL), checks[c].func,
                                      g_free);
        }
    }
}

/* Usage: test-plan-real [--tap] [spread|packing|hole]: one check alone, so
 * that meson gives each its own timeout (valgrind runs each for minutes). */
int
main(int argc, char **argv)
{
    const gchar *data = g_getenv("VN_TEST_DATA");
    const gchar *only;

    g_test_init(&argc, &argv, NULL);
    if (!data) {
        g_printerr("VN_TEST_DATA is not set: run through meson test\n");
        return 77;
    }
    only = argc > 1 ? argv[1] : NULL;
    if (only && strcmp(only, "spread") != 0 && strcmp(only, "packing") != 0 &&
        strcmp(only, "hole") != 0) {
        g_printerr("test-plan-real: unknown check '%s' (spread, packing or hole)\n", only);
        return 2;
    }
    add_dir(data, "hwloc", ".xml", only);
    add_dir(data, "caps", ".xml", only);
    if (!only || strcmp(only, "spread") == 0) {
        g_test_add_func("/plan/real/balance/memory-packing-keeps-node-free",
                        test_balance_packing_keeps_node_free);
        g_test_add_func("/plan/real/balance/memory-packing-capacity",
                        test_balance_packing_capacity);
        g_test_add_func("/plan/real/balance/keep-hole-keeps-node-free",
                        test_balance_hole_keeps_node_free);
        g_test_add_func("/plan/real/balance/keep-hole-keeps-larger",
                        test_balance_hole_keeps_larger);
        g_test_add_func("/plan/real/balance/adaptive", test_balance_adaptive);
        g_test_add_func("/plan/real/split/crowded-even", test_split_crowded_even);
    }
    return g_test_run();
}
