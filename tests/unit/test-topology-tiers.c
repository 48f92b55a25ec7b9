/* test-topology-tiers.c: memory tiers, HMAT figures and HMAT distances
 * from every source, on the fixtures of tests/data (README.md there says
 * where each comes from).
 *
 * Expected figures are read off the files: libvirt's vircaps-x86_64-hmat.xml
 * <interconnects> (bandwidth in KiB/s, here MiB/s: 205824 / 1024 = 201),
 * the <memattr name="Bandwidth"> of hwloc's 8intel64-4n2t-memattrs.xml, the
 * access0/access1 files of sysroot/kmem-tier. */
#include <glib.h>
#include <string.h>

#include "vn-distances.h"
#include "vn-test-fixture.h"
#include "vn-topology-source-private.h"
#include "vn-topology-source.h"

static void
assert_tier(const VnTopology *t, guint os_id, VnMemoryTier tier, const gchar *reason)
{
    const VnNode *n = vn_test_node_by_os(t, os_id);

    g_assert_cmpstr(vn_memory_tier_to_string(n->tier), ==, vn_memory_tier_to_string(tier));
    g_assert_cmpstr(n->tier_reason, ==, reason);
}

/* Figures from node `from` to node `to` (os ids): read/write latency ns,
 * read/write bandwidth MiB/s, 0 where not published. */
static void
assert_access(const VnTopology *t, guint from, guint to, guint rl, guint wl, guint rb, guint wb)
{
    const VnNodeAccess *a = vn_topology_access(t, (guint)vn_topology_node_by_os_id(t, from),
                                               (guint)vn_topology_node_by_os_id(t, to));

    g_assert_nonnull(a);
    g_assert_cmpuint(a->value[VN_ACCESS_READ_LATENCY], ==, rl);
    g_assert_cmpuint(a->value[VN_ACCESS_WRITE_LATENCY], ==, wl);
    g_assert_cmpuint(a->value[VN_ACCESS_READ_BANDWIDTH], ==, rb);
    g_assert_cmpuint(a->value[VN_ACCESS_WRITE_BANDWIDTH], ==, wb);
}

static guint
distance(const VnTopology *t, guint a, guint b)
{
    return vn_topology_distance(t, (guint)vn_topology_node_by_os_id(t, a),
                                (guint)vn_topology_node_by_os_id(t, b));
}

/* ---- capabilities ---- */

static void
test_caps_hmat(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "vircaps-x86_64-hmat.xml");

    assert_tier(t, 0, VN_MEMORY_TIER_DRAM, "local memory of 24 CPUs");
    assert_tier(t, 1, VN_MEMORY_TIER_SLOW,
                "no CPUs; HMAT from node 0: read latency 11 ns (local 6 ns), read bandwidth "
                "101 MiB/s (local 201 MiB/s)");
    assert_access(t, 0, 0, 6, 7, 201, 202);
    assert_access(t, 0, 1, 11, 12, 101, 102);
    g_assert_null(vn_topology_access(t, 1, 0));
    g_assert_cmpuint(t->access->len, ==, 2);
    g_assert_null(strstr(t->source, "warning"));
    /* no <distances> in the file: the default takes HMAT's */
    g_assert_true(t->distances_assumed);
    g_assert_true(vn_distances_apply(t, NULL, FALSE, "/"));
    g_assert_false(t->distances_assumed);
    /* 10 x 11 / 6 = 18.3, both ways (node 1 has no CPUs to publish from) */
    g_assert_cmpuint(distance(t, 0, 1), ==, 18);
    g_assert_cmpuint(distance(t, 1, 0), ==, 18);
    g_assert_cmpuint(distance(t, 1, 1), ==, 10);
    g_assert_nonnull(strstr(t->source, "distances from HMAT read latencies"));
    /* applied once: a second call changes nothing */
    g_assert_false(vn_distances_apply(t, NULL, FALSE, "/"));
}

/* A copy of the HMAT sample with `from` replaced by `to`, loaded. */
static VnTopology *
load_edited_caps(const gchar *dir, const gchar *from, const gchar *to, gchar **ret_path)
{
    g_autofree gchar *good = vn_test_data_path("caps", "vircaps-x86_64-hmat.xml", NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) parts = NULL;
    g_autofree gchar *edited = NULL;
    g_autoptr(GError) error = NULL;
    VnTopology *t;

    g_assert_true(g_file_get_contents(good, &text, NULL, NULL));
    parts = g_strsplit(text, from, 2);
    g_assert_nonnull(parts[1]);
    edited = g_strjoinv(to, parts);
    *ret_path = vn_test_write_file(dir, "caps.xml", edited);
    t = vn_topology_load_capabilities(*ret_path, &error);
    g_assert_no_error(error);
    return t;
}

/* An interconnect naming a cell that does not exist: one line in the
 * source, no HMAT figures at all, the node judged without them. */
static void
test_caps_bad_node(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-tiers-XXXXXX", NULL);
    g_autofree gchar *path = NULL, *expected = NULL;
    g_autoptr(VnTopology) t =
        load_edited_caps(dir, "<latency initiator='0' target='1' type='read'",
                         "<latency initiator='5' target='1' type='read'", &path);

    expected = g_strdup_printf("; warning: HMAT figures ignored: %s:69: <latency "
                               "initiator='5'>: no such cell",
                               path);
    g_assert_true(g_str_has_suffix(t->source, expected));
    g_assert_null(strchr(t->source, '\n'));
    g_assert_true(t->access == NULL || t->access->len == 0);
    assert_tier(t, 1, VN_MEMORY_TIER_SLOW, "no CPUs");
    /* the distances fall back to the assumed ones */
    g_assert_false(vn_distances_apply(t, NULL, FALSE, "/"));
    g_assert_true(t->distances_assumed);
    vn_test_remove_tree(dir);
}

/* type='access' stands for read and write where those are not given on
 * their own, before or after it. */
static void
test_caps_access_type(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-tiers-XXXXXX", NULL);
    g_autofree gchar *path = NULL;
    g_autoptr(VnTopology) t =
        load_edited_caps(dir, "<latency initiator='0' target='1' type='read' value='11'/>",
                         "<latency initiator='0' target='1' type='access' value='13'/>", &path);

    /* the file's write latency to node 1 (12) stays, read takes access's */
    assert_access(t, 0, 1, 13, 12, 101, 102);
    vn_test_remove_tree(dir);
}

/* ---- hwloc ---- */

static void
test_hwloc_memattrs(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "8intel64-4n2t-memattrs.xml");

    for (guint os = 0; os < 4; os++) {
        assert_tier(t, os, VN_MEMORY_TIER_DRAM, "local memory of 2 CPUs");
        /* one Bandwidth value for node 1, initiator cpuset 0xff: every node's CPUs */
        assert_access(t, os, 1, 0, 0, 20, 0);
        g_assert_null(vn_topology_access(t, (guint)vn_topology_node_by_os_id(t, os),
                                         (guint)vn_topology_node_by_os_id(t, 0)));
    }
    g_assert_cmpuint(t->access->len, ==, 4);
    /* bandwidth only: no latency to take distances from */
    g_assert_false(vn_topology_has_hmat_latency(t));
    g_assert_false(vn_distances_apply(t, NULL, FALSE, "/"));
}

static void
test_hwloc_heteromem(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "heteromem.xml");

    assert_tier(t, 0, VN_MEMORY_TIER_DRAM, "local memory of 4 CPUs");
    assert_tier(t, 1, VN_MEMORY_TIER_SPECIAL, "hwloc subtype HBM (high-bandwidth memory)");
    assert_tier(t, 2, VN_MEMORY_TIER_DRAM, "local memory of 4 CPUs");
    assert_tier(t, 3, VN_MEMORY_TIER_SPECIAL, "hwloc subtype HBM (high-bandwidth memory)");
    assert_tier(t, 4, VN_MEMORY_TIER_SLOW, "hwloc subtype CXL-DRAM (CXL-attached memory)");
    g_assert_true(t->access == NULL || t->access->len == 0);
}

/* DDR as a memory-side cache in front of Optane (2LM): the nodes are
 * what the CPUs have, so DRAM tier; and the dax devices of the Dell host
 * are not onlined as RAM: no node of theirs. */
static void
test_hwloc_dram_only(void)
{
    g_autoptr(VnTopology) cached = vn_test_load_topology("hwloc", "memorysidecaches.xml");
    g_autofree gchar *dax_path =
        vn_test_data_path("nova", "32em64t-2n8c+dax+nvme+mic+dimms.xml", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) dax = vn_topology_load_hwloc_xml(dax_path, &error);

    g_assert_no_error(error);
    for (guint os = 0; os < 4; os++)
        assert_tier(cached, os, VN_MEMORY_TIER_DRAM,
                    "local memory of 20 CPUs, behind a 98304 MiB memory-side cache");
    g_assert_cmpuint(dax->n_nodes, ==, 2);
    for (guint os = 0; os < 2; os++)
        assert_tier(dax, os, VN_MEMORY_TIER_DRAM, "local memory of 8 CPUs");
}

/* ---- sysfs ---- */

static void
test_sysroot_kmem(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("sysroot", "kmem-tier");

    g_assert_cmpint(vn_test_node_by_os(t, 0)->kernel_tier, ==, 4);
    g_assert_cmpint(vn_test_node_by_os(t, 1)->kernel_tier, ==, 22);
    assert_tier(t, 0, VN_MEMORY_TIER_DRAM, "local memory of 2 CPUs");
    assert_tier(t, 1, VN_MEMORY_TIER_SLOW,
                "kernel memory_tier22, below the CPU nodes' memory_tier4 (dax/kmem memory)");
    assert_access(t, 0, 0, 80, 80, 25000, 20000);
    assert_access(t, 0, 1, 240, 300, 8000, 6000);
    g_assert_cmpuint(t->access->len, ==, 2);
    g_assert_null(strstr(t->source, "warning"));
}

/* The SLIT of kmem-tier is the kernel's 10/20, uniform: the default and
 * hmat both take 10 x 240 / 80 = 30; slit on a table that says something
 * (three nodes, two remote values) keeps it, hmat replaces it. */
static void
test_hmat_distances(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("sysroot", "kmem-tier");
    g_autoptr(VnTopology) u = vn_test_load_topology("sysroot", "kmem-tier");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) hmat = vn_test_config_from_text("[topology]\ndistances = hmat\n", &error);
    g_autoptr(VnConfig) slit = vn_test_config_from_text("[topology]\ndistances = slit\n", &error);

    g_assert_no_error(error);
    g_assert_cmpuint(distance(t, 0, 1), ==, 20);
    g_assert_true(vn_distances_apply(t, slit, TRUE, "/"));
    g_assert_cmpuint(distance(t, 0, 1), ==, 30);
    g_assert_cmpuint(distance(t, 1, 0), ==, 30);
    g_assert_true(g_str_has_suffix(
        t->source, "; no SLIT or a uniform one: distances from HMAT read latencies"));
    g_assert_true(vn_distances_apply(u, hmat, TRUE, "/"));
    g_assert_cmpuint(distance(u, 0, 1), ==, 30);
    g_assert_true(g_str_has_suffix(u->source, "; distances from HMAT read latencies"));
}

/* A three-node host whose SLIT tells the nodes apart, with HMAT latencies
 * of its own: slit keeps the table, hmat takes the figures. */
static VnTopology *
three_nodes(void)
{
    static const guint slit[3][3] = { { 10, 21, 31 }, { 21, 10, 31 }, { 31, 31, 10 } };
    VnTopology *t = vn_topology_new("test: three nodes, node 2 without CPUs");
    g_autoptr(GError) error = NULL;

    for (guint n = 0; n < 3; n++)
        vn_topology_add_node(t, n, 1024 * 1024);
    for (guint c = 0; c < 4; c++)
        vn_topology_add_cpu(t, c, (gint)(c / 2), c, c / 2);
    for (guint a = 0; a < 3; a++)
        for (guint b = 0; b < 3; b++)
            vn_topology_set_distance(t, a, b, slit[a][b]);
    for (guint from = 0; from < 2; from++) {
        vn_topology_set_access(t, from, from, VN_ACCESS_READ_LATENCY, 100);
        vn_topology_set_access(t, from, 1 - from, VN_ACCESS_READ_LATENCY, 150);
        vn_topology_set_access(t, from, 2, VN_ACCESS_READ_LATENCY, 260);
    }
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return t;
}

static void
test_hmat_over_slit(void)
{
    g_autoptr(VnTopology) t = three_nodes();
    g_autoptr(VnTopology) u = three_nodes();
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) hmat = vn_test_config_from_text("[topology]\ndistances = hmat\n", &error);

    g_assert_no_error(error);
    g_assert_false(vn_distances_apply(t, NULL, FALSE, "/"));
    g_assert_cmpuint(distance(t, 0, 2), ==, 31);
    g_assert_true(vn_distances_apply(u, hmat, FALSE, "/"));
    g_assert_cmpuint(distance(u, 0, 1), ==, 15);
    g_assert_cmpuint(distance(u, 1, 0), ==, 15);
    g_assert_cmpuint(distance(u, 0, 2), ==, 26);
    g_assert_cmpuint(distance(u, 2, 1), ==, 26);
    /* node 2: 2.6 times node 0's own latency */
    assert_tier(u, 2, VN_MEMORY_TIER_SLOW,
                "no CPUs; HMAT from node 0: read latency 260 ns "
                "(local 100 ns)");
}

/* hmat asked for on a source without HMAT: kept, and said. */
static void
test_hmat_missing(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "heteromem.xml");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) hmat = vn_test_config_from_text("[topology]\ndistances = hmat\n", &error);

    g_assert_no_error(error);
    g_assert_false(vn_distances_apply(t, hmat, FALSE, "/"));
    g_assert_true(t->distances_assumed);
    g_assert_true(g_str_has_suffix(t->source, "; warning: [topology] distances = hmat ignored: "
                                              "the source publishes no HMAT latencies"));
}

/* A two-node topology as hwloc would build it from `root`, given to the
 * sysfs reader. */
static VnTopology *
read_tiers_below(const gchar *root)
{
    VnTopology *t = vn_topology_new("test");
    g_autoptr(GError) error = NULL;

    vn_topology_add_node(t, 0, 1024 * 1024);
    vn_topology_add_node(t, 1, 1024 * 1024);
    vn_topology_add_cpu(t, 0, 0, 0, 0);
    vn_topology_add_sysfs_tiers(t, root);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return t;
}

/* A memory_tierN directory without nodelist: one line, no kernel tiers;
 * the HMAT figures beside it still count. */
static void
test_sysfs_tier_without_nodelist(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-tiers-XXXXXX", NULL);
    g_autofree gchar *tiers =
        g_build_filename(root, "sys", "devices", "virtual", "memory_tiering", NULL);
    g_autofree gchar *empty = g_build_filename(tiers, "memory_tier22", NULL);
    g_autofree gchar *expected = NULL;
    g_autoptr(VnTopology) t = NULL;

    g_free(vn_test_write_file(tiers, "memory_tier4/nodelist", "0\n"));
    g_assert_cmpint(g_mkdir_with_parents(empty, 0755), ==, 0);
    g_free(vn_test_write_file(root, "sys/devices/system/node/node1/access1/initiators/node0", ""));
    g_free(vn_test_write_file(root, "sys/devices/system/node/node1/access1/initiators/read_latency",
                              "300\n"));
    t = read_tiers_below(root);
    expected = g_strdup_printf("test; warning: kernel memory tiers ignored: %s/nodelist: missing "
                               "(a tier directory without its node list)",
                               empty);
    g_assert_cmpstr(t->source, ==, expected);
    g_assert_cmpint(t->nodes[0].kernel_tier, ==, -1);
    g_assert_cmpint(t->nodes[1].kernel_tier, ==, -1);
    assert_access(t, 0, 1, 300, 0, 0, 0);
    vn_test_remove_tree(root);
}

/* A memory-side cache in the kernel's shape (numaperf.rst): its size in
 * bytes, the largest level counted. */
static void
test_sysfs_side_cache(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-tiers-XXXXXX", NULL);
    g_autoptr(VnTopology) t = NULL;

    g_free(vn_test_write_file(root, "sys/devices/system/node/node0/memory_side_cache/index1/size",
                              "103079215104\n"));
    g_free(vn_test_write_file(
        root, "sys/devices/system/node/node0/memory_side_cache/index1/line_size", "64\n"));
    g_free(vn_test_write_file(root, "sys/devices/system/node/node0/memory_side_cache/index2/size",
                              "1073741824\n"));
    t = read_tiers_below(root);
    g_assert_cmpstr(t->source, ==, "test");
    g_assert_cmpuint(t->nodes[0].mem_side_cache_kib, ==, 103079215104 / 1024);
    assert_tier(t, 0, VN_MEMORY_TIER_DRAM,
                "local memory of 1 CPU, behind a 98304 MiB memory-side cache");
    vn_test_remove_tree(root);
}

/* An initiator link to a node the host does not have: one line, no HMAT
 * figures; the kernel tiers still count. */
static void
test_sysfs_initiator_unknown(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-tiers-XXXXXX", NULL);
    g_autofree gchar *expected = NULL;
    g_autoptr(VnTopology) t = NULL;

    g_free(vn_test_write_file(root, "sys/devices/virtual/memory_tiering/memory_tier4/nodelist",
                              "0\n"));
    g_free(vn_test_write_file(root, "sys/devices/virtual/memory_tiering/memory_tier22/nodelist",
                              "1\n"));
    g_free(vn_test_write_file(root, "sys/devices/system/node/node1/access1/initiators/node7", ""));
    g_free(vn_test_write_file(root, "sys/devices/system/node/node1/access1/initiators/read_latency",
                              "300\n"));
    t = read_tiers_below(root);
    expected = g_strdup_printf("test; warning: HMAT figures ignored: "
                               "%s/sys/devices/system/node/node1/access1/initiators/node7: "
                               "initiator node 7 does not exist",
                               root);
    g_assert_cmpstr(t->source, ==, expected);
    g_assert_true(t->access == NULL || t->access->len == 0);
    assert_tier(t, 1, VN_MEMORY_TIER_SLOW,
                "kernel memory_tier22, below the CPU nodes' memory_tier4 (dax/kmem memory)");
    vn_test_remove_tree(root);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/tiers/caps/hmat", test_caps_hmat);
    g_test_add_func("/tiers/caps/bad-node", test_caps_bad_node);
    g_test_add_func("/tiers/caps/access-type", test_caps_access_type);
    g_test_add_func("/tiers/hwloc/memattrs", test_hwloc_memattrs);
    g_test_add_func("/tiers/hwloc/heteromem", test_hwloc_heteromem);
    g_test_add_func("/tiers/hwloc/dram-only", test_hwloc_dram_only);
    g_test_add_func("/tiers/sysfs/kmem", test_sysroot_kmem);
    g_test_add_func("/tiers/sysfs/tier-without-nodelist", test_sysfs_tier_without_nodelist);
    g_test_add_func("/tiers/sysfs/initiator-unknown", test_sysfs_initiator_unknown);
    g_test_add_func("/tiers/sysfs/side-cache", test_sysfs_side_cache);
    g_test_add_func("/tiers/distances/uniform-slit", test_hmat_distances);
    g_test_add_func("/tiers/distances/hmat-over-slit", test_hmat_over_slit);
    g_test_add_func("/tiers/distances/hmat-missing", test_hmat_missing);
    return g_test_run();
}
