/* test-plan-real.c: the placement core on real hosts' topologies.
 *
 * Every hwloc XML in tests/data/hwloc and libvirt capabilities XML in
 * tests/data/caps (copied from ../shared/corpus, see tests/data/README.md)
 * is loaded through plugin/ and planned against with seeded random loads
 * and requests.  Every placement must hold the invariants; on hosts of up
 * to 16 nodes the decision must match the brute-force oracle (fewest
 * nodes, then smallest internal distance).  Cases are discovered by
 * listing the data directories.
 */
#include "vn-test-plan.h"
#include "vn-topology-source.h"

typedef VnTopology *(*Loader)(const gchar *path, GError **error);

/* Guest cells of their own sizes (2..4 cells, each up to a node's CPUs
 * and half its memory) against the oracle, on hosts of up to 16 nodes. */
static void
check_host_sized(const gchar *path, Loader load)
{
    g_autoptr(GRand) rand = g_rand_new_with_seed(g_str_hash(path) + 1);
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
        for (guint i = 0; i < t->n_nodes; i++) {
            node_gib = MAX(node_gib, t->nodes[i].mem_total_kib / GIB);
            ncpus = MAX(ncpus, vn_topology_node_ncpus(t, i));
            h.load->nodes[i].committed_memory_kib = t->nodes[i].mem_total_kib / 100 * (guint64)g_rand_int_range(rand, 0, 60);
            h.load->nodes[i].committed_vcpus = (guint)g_rand_int_range(rand, 0, (gint)MAX(ncpus, 1) * 2);
        }
        if (node_gib < 2) {
            vn_test_host_clear(&h);
            return;   /* hosts without (much) memory: nothing to size */
        }
        r = vn_test_sized_request(rand, 4, MAX(ncpus, 1), node_gib / 2);
        vn_test_check_sized_plan(&h, r, &counts);
        vn_test_host_clear(&h);
    }
    vn_test_sized_counts_check(&counts);
}

static void
check_host(gconstpointer data)
{
    const gchar *path = data;
    g_autofree gchar *dir = g_path_get_dirname(path);
    Loader load = g_str_has_suffix(dir, "caps") ? vn_topology_load_capabilities
                                                : vn_topology_load_hwloc_xml;
    g_autoptr(GError) error = NULL;
    g_autoptr(GRand) rand = g_rand_new_with_seed(g_str_hash(path));
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
        for (guint i = 0; i < t->n_nodes; i++) {
            has_memory |= t->nodes[i].mem_total_kib > 0;
            node_kib = MAX(node_kib, t->nodes[i].mem_total_kib);
            ncpus = MAX(ncpus, vn_topology_node_ncpus(t, i));
            h.load->nodes[i].committed_memory_kib = t->nodes[i].mem_total_kib / 100 * (guint64)g_rand_int_range(rand, 0, 60);
            h.load->nodes[i].committed_vcpus = (guint)g_rand_int_range(rand, 0, (gint)MAX(ncpus, 1) * 2);
        }
        r = vn_request_new();
        r->vcpus = (guint)g_rand_int_range(rand, 1, (gint)MAX(ncpus, 1) * 3);
        /* from a quarter of a node to three nodes, in MiB */
        r->memory_kib = MAX(node_kib / 4 + node_kib / 100 * (guint64)g_rand_int_range(rand, 0, 275), 1024) / 1024 * 1024;
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
    check_host_sized(path, load);
    /* a host with no memory at all (libvirt's test driver caps) places nothing */
    if (has_memory)
        g_assert_cmpuint(checked, >, 0);
    else
        g_assert_cmpuint(checked, ==, 0);
}

static void
add_dir(const gchar *data, const gchar *sub, const gchar *suffix)
{
    g_autofree gchar *dir = g_build_filename(data, sub, NULL);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;

    g_assert_nonnull(d);
    while ((name = g_dir_read_name(d))) {
        g_autofree gchar *test = NULL;
        if (!g_str_has_suffix(name, suffix))
            continue;
        test = g_strdup_printf("/plan/real/%s/%s", sub, name);
        g_test_add_data_func_full(test, g_build_filename(dir, name, NULL), check_host, g_free);
    }
}

int
main(int argc, char **argv)
{
    const gchar *data = g_getenv("VN_TEST_DATA");

    g_test_init(&argc, &argv, NULL);
    if (!data) {
        g_printerr("VN_TEST_DATA is not set: run through meson test\n");
        return 77;
    }
    add_dir(data, "hwloc", ".xml");
    add_dir(data, "caps", ".xml");
    return g_test_run();
}
