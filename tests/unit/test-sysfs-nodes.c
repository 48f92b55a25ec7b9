/* test-sysfs-nodes.c: the nodes hwloc leaves out (a CPU-only node) taken
 * from a sysfs snapshot (tests/data/sysroot/cpu-only-node: the layout of
 * the emulated host's "mixed" run: node 2 has CPUs and no memory, node 3
 * memory and no CPUs). */
#include "vn-topology-source-private.h"

#include <string.h>

/* What hwloc 2.9 builds for that host: nodes 0, 1, 3, and CPUs 4-5 in no node. */
static VnTopology *
as_hwloc_sees_it(void)
{
    VnTopology *t = vn_topology_new("test: hwloc's view of the mixed layout");

    vn_topology_add_node(t, 0, 512 * 1024);
    vn_topology_add_node(t, 3, 512 * 1024); /* hwloc's order: 0, 3, 1 */
    vn_topology_add_node(t, 1, 512 * 1024);
    for (guint c = 0; c < 6; c++)
        vn_topology_add_cpu(t, c, c < 2 ? 0 : c < 4 ? 2 : -1, c, 0);
    /* hwloc's 3 x 3 latency matrix, which has no row for node 2 */
    for (guint a = 0; a < 3; a++)
        for (guint b = 0; b < 3; b++)
            vn_topology_set_distance(t, a, b, a == b ? 10 : 17);
    return t;
}

static void
test_cpu_only_node(void)
{
    g_autoptr(VnTopology) t = as_hwloc_sees_it();
    g_autoptr(GError) error = NULL;
    g_autofree gchar *sysroot =
        g_build_filename(g_getenv("VN_TEST_DATA"), "sysroot", "cpu-only-node", NULL);
    static const guint expected[4][4] = {
        { 10, 12, 21, 32 }, { 12, 10, 32, 21 }, { 21, 32, 10, 12 }, { 32, 21, 12, 10 }
    };

    g_assert_true(vn_topology_add_sysfs_nodes(t, sysroot, &error));
    g_assert_no_error(error);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_cmpuint(t->n_nodes, ==, 4);
    for (guint i = 0; i < 4; i++) {
        g_assert_cmpuint(t->nodes[i].os_id, ==, i); /* kernel order after finish */
        for (guint j = 0; j < 4; j++)
            g_assert_cmpuint(vn_topology_distance(t, i, j), ==, expected[i][j]);
    }
    g_assert_false(t->distances_assumed);
    g_assert_cmpuint(vn_topology_node_ncpus(t, 2), ==, 2);
    g_assert_true(vn_bitmap_test(t->nodes[2].cpus, 4));
    g_assert_cmpuint(t->nodes[2].mem_total_kib, ==, 0);
    g_assert_true(vn_topology_node_is_memory_only(t, 3));
}

static void
test_nothing_missing(void)
{
    g_autoptr(VnTopology) t = vn_topology_new("test: complete");
    g_autoptr(GError) error = NULL;
    g_autofree gchar *sysroot =
        g_build_filename(g_getenv("VN_TEST_DATA"), "sysroot", "cpu-only-node", NULL);

    for (guint n = 0; n < 4; n++)
        vn_topology_add_node(t, n, 1024);
    vn_topology_set_distance(t, 0, 1, 99); /* kept: no node was added */
    g_assert_true(vn_topology_add_sysfs_nodes(t, sysroot, &error));
    g_assert_cmpuint(t->n_nodes, ==, 4);
    g_assert_cmpuint(t->distance[1], ==, 99);
}

static void
test_missing_sysfs(void)
{
    g_autoptr(VnTopology) t = as_hwloc_sees_it();
    g_autoptr(GError) error = NULL;

    g_assert_false(vn_topology_add_sysfs_nodes(t, "/nonexistent-sysroot", &error));
    g_assert_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO);
    g_assert_nonnull(strstr(error->message, "online"));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology/sysfs-nodes/cpu-only-node", test_cpu_only_node);
    g_test_add_func("/topology/sysfs-nodes/nothing-missing", test_nothing_missing);
    g_test_add_func("/topology/sysfs-nodes/missing-sysfs", test_missing_sysfs);
    return g_test_run();
}
