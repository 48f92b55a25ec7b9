/* test-topology-sources.c: every topology source on real fixtures.
 *
 * Expected values come from the fixtures themselves, read independently of
 * the code under test: node counts, local_memory and PU counts from the
 * corpus INDEX.tsv, NUMA cpusets and NUMALatency matrices transcribed from
 * the XML (matrices below are in os-index order), capabilities values from
 * the <cell> elements.  Fixture provenance: tests/data/README.md.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <string.h>

#include "vn-cpulist.h"
#include "vn-test-fixture.h"
#include "vn-topology-source.h"

static void
assert_node_cpus(const VnTopology *t, guint os_id, const gchar *cpulist)
{
    g_autofree gchar *s = vn_cpulist_format(vn_test_node_by_os(t, os_id)->cpus);

    g_assert_cmpstr(s, ==, cpulist);
}

/* expected: n*n values, row-major, rows and columns in os-id order 0..n-1. */
static void
assert_distances(const VnTopology *t, const guint *expected)
{
    guint n = t->n_nodes;

    g_assert_false(t->distances_assumed);
    for (guint a = 0; a < n; a++)
        for (guint b = 0; b < n; b++) {
            gint i = vn_topology_node_by_os_id(t, a), j = vn_topology_node_by_os_id(t, b);
            g_assert_cmpint(i, >=, 0);
            g_assert_cmpint(j, >=, 0);
            if (vn_topology_distance(t, i, j) != expected[a * n + b])
                g_error("distance node %u -> node %u: got %u, expected %u", a, b,
                        vn_topology_distance(t, i, j), expected[a * n + b]);
        }
}

static void
assert_assumed_distances(const VnTopology *t)
{
    g_assert_true(t->distances_assumed);
    for (guint i = 0; i < t->n_nodes; i++)
        for (guint j = 0; j < t->n_nodes; j++)
            g_assert_cmpuint(vn_topology_distance(t, i, j), ==, i == j ? 10 : 20);
}

/* Every CPU is on at most one node, and the nodes' sets agree with it. */
static void
assert_cpus_counted_once(const VnTopology *t, guint n_attached)
{
    guint sum = 0;

    for (guint i = 0; i < t->n_nodes; i++) {
        sum += vn_topology_node_ncpus(t, i);
        VN_BITMAP_FOREACH (t->nodes[i].cpus, c)
            g_assert_cmpint(vn_topology_cpu(t, c)->node, ==, (gint)i);
    }
    g_assert_cmpuint(sum, ==, n_attached);
}

static gchar *
write_temp(const gchar *dir, const gchar *name, const gchar *text, gssize len)
{
    gchar *path = g_build_filename(dir, name, NULL);
    g_autoptr(GError) error = NULL;

    g_file_set_contents(path, text, len, &error);
    g_assert_no_error(error);
    return path;
}

static void
assert_error_names(const GError *error, gint code, const gchar *what, const gchar *detail)
{
    g_assert_error(error, VN_TOPOLOGY_SOURCE_ERROR, code);
    if (!strstr(error->message, what) || (detail && !strstr(error->message, detail)))
        g_error("error message '%s' should contain '%s' and '%s'", error->message, what,
                detail ? detail : "");
    g_assert_null(strchr(error->message, '\n'));
}

/* ---- hwloc XML ---------------------------------------------------------- */

static const guint dist_64amd64[8 * 8] = {
    10, 16, 16, 22, 16, 22, 16, 22, 16, 10, 22, 16, 16, 22, 22, 16, 16, 22, 10, 16, 16, 16,
    16, 16, 22, 16, 16, 10, 16, 16, 22, 22, 16, 16, 16, 16, 10, 16, 16, 22, 22, 22, 16, 16,
    16, 10, 22, 16, 16, 22, 16, 22, 16, 22, 10, 16, 22, 16, 16, 22, 22, 16, 16, 10,
};

static void
test_hwloc_64amd64(void)
{
    /* INDEX.tsv local_memory in bytes, by os index. */
    static const guint64 mem[8] = { 16822734848, 16910229504, 16910233600, 16910225408,
                                    16910233600, 16910229504, 16910233600, 16892866560 };
    static const gchar *cpus[8] = { "0-7",   "8-15",  "32-39", "40-47",
                                    "48-55", "56-63", "16-23", "24-31" };
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "64amd64-4p2n4ca2co.xml");

    g_assert_nonnull(strstr(t->source, "hwloc 3.0 XML read as 2.0"));
    g_assert_cmpuint(t->n_nodes, ==, 8);
    g_assert_cmpuint(t->cpus->len, ==, 64);
    g_assert_cmpuint(t->smt_width, ==, 1);
    for (guint os = 0; os < 8; os++) {
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_total_kib, ==, mem[os] / 1024);
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_free_kib, ==, G_MAXUINT64);
        g_assert_cmpint(vn_test_node_by_os(t, os)->cpu_owner, ==, -1);
        /* The two nodes of a package sit below L3 caches with half the
         * package's CPUs each: they must not collapse into one set. */
        assert_node_cpus(t, os, cpus[os]);
    }
    assert_distances(t, dist_64amd64);
    assert_cpus_counted_once(t, 64);
    /* Nodes os 0 and 1 share package 0; os 6 is on another package. */
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, ==, vn_topology_cpu(t, 15)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, !=, vn_topology_cpu(t, 16)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, !=, vn_topology_cpu(t, 1)->core);
}

static const guint dist_192em64t[24 * 24] = {
    10, 50, 65, 65, 65, 65, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79,
    50, 10, 65, 65, 65, 65, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79,
    65, 65, 10, 50, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79,
    65, 65, 50, 10, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79,
    65, 65, 65, 65, 10, 50, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79,
    65, 65, 65, 65, 50, 10, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79,
    65, 65, 65, 65, 65, 65, 10, 50, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65,
    65, 65, 65, 65, 65, 65, 50, 10, 79, 79, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65,
    65, 65, 79, 79, 65, 65, 79, 79, 10, 50, 65, 65, 65, 65, 65, 65, 65, 65, 79, 79, 79, 79, 79, 79,
    65, 65, 79, 79, 65, 65, 79, 79, 50, 10, 65, 65, 65, 65, 65, 65, 65, 65, 79, 79, 79, 79, 79, 79,
    79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 10, 50, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79,
    79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 50, 10, 65, 65, 65, 65, 79, 79, 65, 65, 79, 79, 79, 79,
    65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 10, 50, 65, 65, 79, 79, 79, 79, 65, 65, 79, 79,
    65, 65, 79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 50, 10, 65, 65, 79, 79, 79, 79, 65, 65, 79, 79,
    79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 65, 65, 65, 65, 10, 50, 79, 79, 79, 79, 79, 79, 65, 65,
    79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 65, 65, 65, 65, 50, 10, 79, 79, 79, 79, 79, 79, 65, 65,
    65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 10, 50, 65, 65, 65, 65, 65, 65,
    65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 50, 10, 65, 65, 65, 65, 65, 65,
    79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 65, 65, 10, 50, 65, 65, 65, 65,
    79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 65, 65, 50, 10, 65, 65, 65, 65,
    79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 10, 50, 65, 65,
    79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 65, 65, 65, 65, 50, 10, 65, 65,
    79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 65, 65, 65, 65, 65, 65, 10, 50,
    79, 79, 79, 79, 79, 79, 65, 65, 79, 79, 79, 79, 79, 79, 65, 65, 65, 65, 65, 65, 65, 65, 50, 10,
};

static void
test_hwloc_192em64t(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "192em64t-24n8c2t.xml");

    g_assert_cmpuint(t->n_nodes, ==, 24);
    g_assert_cmpuint(t->cpus->len, ==, 384);
    g_assert_cmpuint(t->n_cpu_ids, ==, 384);
    g_assert_cmpuint(t->smt_width, ==, 2);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==,
                     G_GUINT64_CONSTANT(33255329792) / 1024);
    for (guint os = 1; os < 24; os++)
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_total_kib, ==,
                         G_GUINT64_CONSTANT(33269219328) / 1024);
    for (guint os = 0; os < 24; os++) {
        g_autofree gchar *cpus =
            g_strdup_printf("%u-%u,%u-%u", 8 * os, 8 * os + 7, 192 + 8 * os, 192 + 8 * os + 7);
        assert_node_cpus(t, os, cpus);
    }
    assert_distances(t, dist_192em64t);
    assert_cpus_counted_once(t, 384);
    /* SMT siblings are n and n + 192 on this machine. */
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, ==, vn_topology_cpu(t, 192)->core);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, !=, vn_topology_cpu(t, 1)->core);
    g_assert_cmpuint(vn_topology_cpu(t, 7)->package, ==, vn_topology_cpu(t, 199)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 7)->package, !=, vn_topology_cpu(t, 8)->package);
}

static void
test_hwloc_heteromem(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "heteromem.xml");
    gint dram0 = vn_topology_node_by_os_id(t, 0), dram2 = vn_topology_node_by_os_id(t, 2);

    g_assert_cmpuint(t->n_nodes, ==, 5);
    g_assert_cmpuint(t->cpus->len, ==, 8);
    for (guint os = 0; os < 5; os++)
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_total_kib, ==, 1024 * 1024);
    g_assert_cmpstr(vn_test_node_by_os(t, 0)->subtype, ==, "DRAM");
    g_assert_cmpstr(vn_test_node_by_os(t, 1)->subtype, ==, "HBM");
    g_assert_cmpstr(vn_test_node_by_os(t, 2)->subtype, ==, "DRAM");
    g_assert_cmpstr(vn_test_node_by_os(t, 3)->subtype, ==, "HBM");
    g_assert_cmpstr(vn_test_node_by_os(t, 4)->subtype, ==, "CXL-DRAM");
    /* DRAM keeps the package's CPUs; HBM on the same package points at it. */
    assert_node_cpus(t, 0, "0-3");
    assert_node_cpus(t, 2, "4-7");
    assert_node_cpus(t, 1, "");
    assert_node_cpus(t, 3, "");
    g_assert_cmpint(vn_test_node_by_os(t, 0)->cpu_owner, ==, -1);
    g_assert_cmpint(vn_test_node_by_os(t, 1)->cpu_owner, ==, dram0);
    g_assert_cmpint(vn_test_node_by_os(t, 3)->cpu_owner, ==, dram2);
    /* CXL memory attached to the whole machine: memory-only, owned by no one. */
    assert_node_cpus(t, 4, "");
    g_assert_cmpint(vn_test_node_by_os(t, 4)->cpu_owner, ==, -1);
    g_assert_true(vn_topology_node_is_memory_only(t, vn_topology_node_by_os_id(t, 4)));
    g_assert_false(vn_topology_node_is_memory_only(t, dram0));
    assert_cpus_counted_once(t, 8);
    assert_assumed_distances(t);
}

/* Same machine with the HBM node listed before the DRAM node of package 0:
 * the DRAM node still gets the CPUs and the HBM node points at it. */
static void
test_hwloc_heteromem_hbm_first(void)
{
    g_autofree gchar *good = vn_test_data_path("hwloc", "heteromem.xml", NULL);
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-XXXXXX", NULL);
    g_autofree gchar *text = NULL;
    g_autofree gchar *path = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_auto(GStrv) lines = NULL;
    g_autofree gchar *swapped = NULL;
    guint dram = 0;

    g_assert_true(g_file_get_contents(good, &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    while (lines[dram] && !strstr(lines[dram], "subtype=\"DRAM\""))
        dram++;
    g_assert_nonnull(lines[dram + 1]);
    g_assert_nonnull(strstr(lines[dram + 1], "subtype=\"HBM\""));
    swapped = lines[dram];
    lines[dram] = lines[dram + 1];
    lines[dram + 1] = g_steal_pointer(&swapped);
    swapped = g_strjoinv("\n", lines);
    path = write_temp(dir, "heteromem-hbm-first.xml", swapped, -1);
    t = vn_topology_load_hwloc_xml(path, &error);
    g_assert_no_error(error);
    /* listed first by hwloc, still the CPU-less one (nodes are in kernel order) */
    g_assert_cmpstr(vn_test_node_by_os(t, 1)->subtype, ==, "HBM");
    g_assert_cmpstr(vn_test_node_by_os(t, 0)->subtype, ==, "DRAM");
    assert_node_cpus(t, 0, "0-3");
    assert_node_cpus(t, 1, "");
    g_assert_cmpint(vn_test_node_by_os(t, 1)->cpu_owner, ==, vn_topology_node_by_os_id(t, 0));
    g_assert_cmpint(vn_test_node_by_os(t, 0)->cpu_owner, ==, -1);
    assert_cpus_counted_once(t, 8);
    vn_test_remove_tree(dir);
}

static void
test_hwloc_hagrid(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "hagrid.xml");

    /* A version 2.0 file goes to hwloc unchanged. */
    g_assert_null(strstr(t->source, "read as 2.0"));
    g_assert_cmpuint(t->n_nodes, ==, 4);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==,
                     G_GUINT64_CONSTANT(8587984896) / 1024);
    for (guint os = 1; os < 4; os++)
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_total_kib, ==,
                         G_GUINT64_CONSTANT(8589934592) / 1024);
    /* allowed_cpuset 0xcf: PUs 4 and 5 (all of node 2) are not allowed. */
    g_assert_cmpuint(t->cpus->len, ==, 6);
    g_assert_null(vn_topology_cpu(t, 4));
    assert_node_cpus(t, 0, "0-1");
    assert_node_cpus(t, 1, "2-3");
    assert_node_cpus(t, 2, "");
    assert_node_cpus(t, 3, "6-7");
    assert_cpus_counted_once(t, 6);
    assert_assumed_distances(t);
}

static void
test_hwloc_16amd64(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "16amd64-4distances.xml");
    g_autofree guint *expected = g_new(guint, 64);

    /* The file has Package, Core and PU matrices with 40s and 80s too;
     * only NUMALatency (all 10/20 here) is the NUMA distance. */
    for (guint i = 0; i < 64; i++)
        expected[i] = i / 8 == i % 8 ? 10 : 20;
    g_assert_cmpuint(t->n_nodes, ==, 8);
    g_assert_cmpuint(t->cpus->len, ==, 16);
    assert_distances(t, expected);
    /* hwloc orders this machine's nodes os 1, 0, 2, ...; the topology
     * numbers them in kernel order all the same. */
    for (guint i = 0; i < t->n_nodes; i++)
        g_assert_cmpuint(t->nodes[i].os_id, ==, i);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==,
                     G_GUINT64_CONSTANT(8587984896) / 1024);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_total_kib, ==,
                     G_GUINT64_CONSTANT(8589934592) / 1024);
    for (guint i = 0; i < 8; i++)
        g_assert_cmpuint(vn_topology_node_ncpus(t, i), ==, 2);
    assert_cpus_counted_once(t, 16);
}

static void
test_hwloc_40intel64(void)
{
    static const guint dist[16] = {
        10, 20, 20, 20, 20, 10, 20, 20, 20, 20, 10, 20, 20, 20, 20, 10
    };
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "40intel64-2g2n4c+pcilocality.xml");

    g_assert_cmpuint(t->n_nodes, ==, 4);
    g_assert_cmpuint(t->cpus->len, ==, 40);
    g_assert_cmpuint(t->smt_width, ==, 1);
    assert_node_cpus(t, 0, "0,4,8,12,16,20,24,28,32,36");
    assert_node_cpus(t, 1, "1,5,9,13,17,21,25,29,33,37");
    assert_node_cpus(t, 2, "2,6,10,14,18,22,26,30,34,38");
    assert_node_cpus(t, 3, "3,7,11,15,19,23,27,31,35,39");
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==,
                     G_GUINT64_CONSTANT(137425154048) / 1024);
    for (guint os = 1; os < 4; os++)
        g_assert_cmpuint(vn_test_node_by_os(t, os)->mem_total_kib, ==,
                         G_GUINT64_CONSTANT(137438953472) / 1024);
    assert_distances(t, dist);
    assert_cpus_counted_once(t, 40);
}

static void
test_hwloc_fakeheterocpunuma(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("hwloc", "fakeheterocpunuma.xml");

    g_assert_cmpuint(t->n_nodes, ==, 6);
    g_assert_cmpuint(t->cpus->len, ==, 24);
    g_assert_cmpuint(t->smt_width, ==, 2);
    /* Node 2 spans nodes 0 and 1: it gets none of their CPUs. */
    assert_node_cpus(t, 2, "");
    g_assert_cmpint(vn_test_node_by_os(t, 2)->cpu_owner, ==, -1);
    assert_node_cpus(t, 0, "0-3");
    assert_node_cpus(t, 1, "8-11");
    /* Nested 12-23 > 16-23 > 20-23: each CPU goes to the smallest. */
    assert_node_cpus(t, 5, "12-15");
    assert_node_cpus(t, 4, "16-19");
    assert_node_cpus(t, 3, "20-23");
    /* CPUs 4-7 are in no node's cpuset: CPUs without local memory. */
    for (guint c = 4; c < 8; c++)
        g_assert_cmpint(vn_topology_cpu(t, c)->node, ==, -1);
    assert_cpus_counted_once(t, 20);
    g_assert_false(t->distances_assumed);
}

/* hwloc must not print anything (warnings about 3.0 elements included). */
static void
test_hwloc_quiet(void)
{
    static const gchar *files[] = { "64amd64-4p2n4ca2co.xml", "192em64t-24n8c2t.xml",
                                    "heteromem.xml",          "hagrid.xml",
                                    "16amd64-4distances.xml", "40intel64-2g2n4c+pcilocality.xml",
                                    "fakeheterocpunuma.xml" };

    if (g_test_subprocess()) {
        for (guint i = 0; i < G_N_ELEMENTS(files); i++)
            vn_topology_free(vn_test_load_topology("hwloc", files[i]));
        return;
    }
    g_test_trap_subprocess(NULL, 0, G_TEST_SUBPROCESS_DEFAULT);
    g_test_trap_assert_passed();
    g_test_trap_assert_stderr("");
    g_test_trap_assert_stdout("");
}

static void
test_hwloc_errors(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-XXXXXX", NULL);
    g_autofree gchar *good = vn_test_data_path("hwloc", "hagrid.xml", NULL);
    g_autofree gchar *caps = vn_test_data_path("caps", "caps-test.xml", NULL);
    g_autofree gchar *text = NULL;
    g_autofree gchar *missing = g_build_filename(dir, "missing.xml", NULL);
    g_autofree gchar *truncated = NULL, *empty = NULL, *bogus = NULL;
    GError *error = NULL;
    gsize len;

    g_assert_true(g_file_get_contents(good, &text, &len, NULL));
    truncated = write_temp(dir, "truncated.xml", text, (gssize)len / 2);
    empty = write_temp(dir, "empty.xml", "", 0);
    bogus =
        write_temp(dir, "bogus.xml",
                   "<topology version=\"2.0\">\n  <object type=\"Nonsense\"/>\n</topology>\n", -1);

    g_assert_null(vn_topology_load_hwloc_xml(missing, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_IO, missing, NULL);
    g_clear_error(&error);

    g_assert_null(vn_topology_load_hwloc_xml(truncated, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_PARSE, truncated, "malformed XML");
    g_assert_nonnull(strstr(error->message, "truncated.xml:"));
    g_clear_error(&error);

    g_assert_null(vn_topology_load_hwloc_xml(empty, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_PARSE, empty, NULL);
    g_clear_error(&error);

    g_assert_null(vn_topology_load_hwloc_xml(caps, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_INVALID, caps, "<capabilities>");
    g_clear_error(&error);

    g_assert_null(vn_topology_load_hwloc_xml(bogus, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_HWLOC, bogus, "hwloc");
    g_clear_error(&error);
    vn_test_remove_tree(dir);
}

/* The line of a malformed file is reported. */
static void
test_hwloc_error_line(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-XXXXXX", NULL);
    g_autofree gchar *path =
        write_temp(dir, "bad.xml", "<topology version=\"2.0\">\n<object>\n</objet>\n", -1);
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_topology_load_hwloc_xml(path, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_PARSE, "bad.xml:3:", NULL);
    vn_test_remove_tree(dir);
}

/* hagrid.xml with a NUMALatency matrix added before </topology>. */
static VnTopology *
load_hagrid_with(const gchar *dir, const gchar *distances, GError **error)
{
    g_autofree gchar *good = vn_test_data_path("hwloc", "hagrid.xml", NULL);
    g_autofree gchar *text = NULL;
    g_autofree gchar *edited = NULL;
    g_autofree gchar *path = NULL;
    gchar *end;

    g_assert_true(g_file_get_contents(good, &text, NULL, NULL));
    end = strstr(text, "</topology>");
    g_assert_nonnull(end);
    *end = '\0';
    edited = g_strconcat(text, distances, "\n</topology>\n", NULL);
    path = write_temp(dir, "hagrid-edited.xml", edited, -1);
    return vn_topology_load_hwloc_xml(path, error);
}

static void
test_hwloc_distance_edge_cases(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-XXXXXX", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GError) error2 = NULL;
    g_autoptr(VnTopology) partial = NULL;
    g_autoptr(VnTopology) bad = NULL;

    /* A matrix over 2 of the 4 nodes is not used: distances assumed. */
    partial = load_hagrid_with(dir,
                               "<distances2 type=\"NUMANode\" nbobjs=\"2\" kind=\"5\" "
                               "name=\"NUMALatency\" indexing=\"os\"><indexes length=\"4\">0 1 "
                               "</indexes><u64values length=\"12\">10 20 20 10 </u64values>"
                               "</distances2>",
                               &error);
    g_assert_no_error(error);
    assert_assumed_distances(partial);
    g_assert_nonnull(strstr(partial->source, "covers 2 of 4 nodes"));
    /* A remote distance below the local one is not a SLIT matrix. */
    bad = load_hagrid_with(dir,
                           "<distances2 type=\"NUMANode\" nbobjs=\"4\" kind=\"5\" "
                           "name=\"NUMALatency\" indexing=\"os\"><indexes length=\"8\">0 1 2 3 "
                           "</indexes><u64values length=\"46\">10 5 20 20 5 10 20 20 20 20 10 20 "
                           "20 20 20 10 </u64values></distances2>",
                           &error2);
    g_assert_null(bad);
    assert_error_names(error2, VN_TOPOLOGY_SOURCE_ERROR_INVALID, "hagrid-edited.xml",
                       "distance from node 0 to node 1 is 5");
    vn_test_remove_tree(dir);
}

/* ---- synthetic ---------------------------------------------------------- */

static void
test_synthetic(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("pack:2 numa:2 core:8 pu:2", &error);
    g_autoptr(GHashTable) cores = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) packages = g_hash_table_new(g_direct_hash, g_direct_equal);

    g_assert_no_error(error);
    /* 2 packages x 2 nodes x 8 cores x 2 PUs. */
    g_assert_cmpuint(t->n_nodes, ==, 4);
    g_assert_cmpuint(t->cpus->len, ==, 64);
    g_assert_cmpuint(t->smt_width, ==, 2);
    for (guint i = 0; i < 4; i++) {
        g_autofree gchar *cpus = g_strdup_printf("%u-%u", 16 * i, 16 * i + 15);
        assert_node_cpus(t, i, cpus);
        /* hwloc's synthetic backend gives each node 1 GiB by default. */
        g_assert_cmpuint(vn_test_node_by_os(t, i)->mem_total_kib, ==, 1024 * 1024);
    }
    for (guint i = 0; i < t->cpus->len; i++) {
        const VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        g_hash_table_add(cores, GUINT_TO_POINTER(c->core));
        g_hash_table_add(packages, GUINT_TO_POINTER(c->package));
    }
    g_assert_cmpuint(g_hash_table_size(cores), ==, 32);
    g_assert_cmpuint(g_hash_table_size(packages), ==, 2);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, ==, vn_topology_cpu(t, 1)->core);
    g_assert_cmpuint(vn_topology_cpu(t, 31)->package, ==, 0);
    g_assert_cmpuint(vn_topology_cpu(t, 32)->package, ==, 1);
    assert_assumed_distances(t);
    g_assert_nonnull(strstr(t->source, "pack:2 numa:2 core:8 pu:2"));
}

static void
test_synthetic_invalid(void)
{
    static const gchar *bad[] = { "pack:2 bogus:3", "", "pack:x", "numa:2 core:0" };

    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) error = NULL;
        g_autofree gchar *quoted = g_strdup_printf("'%s'", bad[i]);

        g_assert_null(vn_topology_load_synthetic(bad[i], &error));
        g_assert_nonnull(error);
        g_assert_true(error->domain == VN_TOPOLOGY_SOURCE_ERROR);
        assert_error_names(error, error->code, quoted, NULL);
    }
}

/* ---- libvirt capabilities ----------------------------------------------- */

static const VnHugepages *
hugepages(const VnNode *n, guint64 size_kib)
{
    for (guint i = 0; i < n->hugepages->len; i++)
        if (g_array_index(n->hugepages, VnHugepages, i).size_kib == size_kib)
            return &g_array_index(n->hugepages, VnHugepages, i);
    return NULL;
}

static void
assert_hugepages(const VnNode *n, guint64 size_kib, guint64 total, guint64 free)
{
    const VnHugepages *h = hugepages(n, size_kib);

    g_assert_nonnull(h);
    g_assert_cmpuint(h->total, ==, total);
    g_assert_cmpuint(h->free, ==, free);
}

static void
test_caps_qemu_kvm(void)
{
    static const guint dist[4] = { 10, 21, 21, 10 };
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-qemu-kvm.xml");

    g_assert_cmpuint(t->n_nodes, ==, 2);
    g_assert_cmpuint(t->cpus->len, ==, 16);
    g_assert_cmpuint(t->smt_width, ==, 1);
    assert_node_cpus(t, 0, "0,2,4,6,8,10,12,14");
    assert_node_cpus(t, 1, "1,3,5,7,9,11,13,15");
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==, 16175540);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_total_kib, ==, 16510060);
    assert_distances(t, dist);
    /* 4 KiB is the base page, not a hugepage; 2M and 1G pools are empty. */
    for (guint os = 0; os < 2; os++) {
        g_assert_cmpuint(vn_test_node_by_os(t, os)->hugepages->len, ==, 2);
        g_assert_null(hugepages(vn_test_node_by_os(t, os), 4));
        assert_hugepages(vn_test_node_by_os(t, os), 2048, 0, 0);
        assert_hugepages(vn_test_node_by_os(t, os), 1048576, 0, 0);
    }
    /* socket_id 0 and 1; core_id repeats on each socket. */
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, ==, vn_topology_cpu(t, 2)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, !=, vn_topology_cpu(t, 1)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, !=, vn_topology_cpu(t, 1)->core);
    assert_cpus_counted_once(t, 16);
}

static void
test_caps_test(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-test.xml");

    g_assert_cmpuint(t->n_nodes, ==, 2);
    g_assert_cmpuint(t->cpus->len, ==, 16);
    /* No core ids: every CPU its own core.  No memory element: 0. */
    g_assert_cmpuint(t->smt_width, ==, 1);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==, 0);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->hugepages->len, ==, 0);
    assert_node_cpus(t, 0, "0,2,4,6,8,10,12,14");
    /* No socket ids: a cell's CPUs are one package. */
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, ==, vn_topology_cpu(t, 14)->package);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, !=, vn_topology_cpu(t, 1)->package);
    assert_assumed_distances(t);
}

static void
test_caps_aarch64_clusters(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "vircaps-aarch64-basic-clusters.xml");

    g_assert_cmpuint(t->n_nodes, ==, 2);
    g_assert_cmpuint(t->cpus->len, ==, 8);
    g_assert_cmpuint(t->smt_width, ==, 2);
    assert_node_cpus(t, 0, "0-3");
    assert_node_cpus(t, 1, "4-7");
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_total_kib, ==, 1048576);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_total_kib, ==, 2097152);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, ==, vn_topology_cpu(t, 1)->core);
    g_assert_cmpuint(vn_topology_cpu(t, 2)->core, ==, vn_topology_cpu(t, 3)->core);
    g_assert_cmpuint(vn_topology_cpu(t, 0)->core, !=, vn_topology_cpu(t, 2)->core);
    /* Sparse socket ids 36 and 3180 become dense package numbers. */
    g_assert_cmpuint(vn_topology_cpu(t, 0)->package, ==, 0);
    g_assert_cmpuint(vn_topology_cpu(t, 4)->package, ==, 1);
    assert_hugepages(vn_test_node_by_os(t, 0), 2048, 4096, 4096);
    assert_hugepages(vn_test_node_by_os(t, 0), 1048576, 6144, 6144);
    assert_hugepages(vn_test_node_by_os(t, 1), 2048, 6144, 6144);
    assert_hugepages(vn_test_node_by_os(t, 1), 1048576, 8192, 8192);
    assert_assumed_distances(t);
}

#define CAPS_HEAD "<capabilities>\n<host>\n<topology>\n<cells num='2'>\n"
#define CAPS_TAIL "</cells>\n</topology>\n</host>\n</capabilities>\n"
#define CELL1 "<cell id='1'><cpus num='1'><cpu id='1'/></cpus></cell>\n"

static void
test_caps_errors(void)
{
    static const struct {
        const gchar *name, *xml, *detail;
    } cases[] = {
        { "bad-id.xml", CAPS_HEAD "<cell id='zero'/>\n" CELL1 CAPS_TAIL, "id='zero'" },
        { "no-id.xml", CAPS_HEAD "<cell/>\n" CELL1 CAPS_TAIL, "no id attribute" },
        { "unit.xml",
          CAPS_HEAD "<cell id='0'><memory unit='MiB'>5</memory></cell>\n" CELL1 CAPS_TAIL,
          "unit='MiB'" },
        { "memory.xml",
          CAPS_HEAD "<cell id='0'><memory unit='KiB'>lots</memory></cell>\n" CELL1 CAPS_TAIL,
          "lots" },
        { "sibling.xml",
          CAPS_HEAD "<cell id='0'><distances><sibling id='0' value='10'/>"
                    "<sibling id='7' value='20'/></distances></cell>\n" CELL1 CAPS_TAIL,
          "id='7'" },
        { "partial.xml",
          CAPS_HEAD "<cell id='0'><distances><sibling id='0' value='10'/>"
                    "<sibling id='1' value='20'/></distances></cell>\n" CELL1 CAPS_TAIL,
          "cell 1 has no valid distance to cell 0" },
        { "twice.xml", CAPS_HEAD CELL1 CELL1 CAPS_TAIL, "node 1 appears twice" },
        { "nocells.xml", "<capabilities><host/></capabilities>", "no <host><topology>" },
        { "truncated.xml", CAPS_HEAD "<cell id='0'>\n", "malformed XML" },
        /* found by fuzz-caps-xml: the quoted text kept its newlines */
        { "pages-text.xml",
          CAPS_HEAD
          "<cell id='0'><pages unit='KiB' size='4'>6\nx\n</pages></cell>\n" CELL1 CAPS_TAIL,
          "<pages>6 x</pages>: not an unsigned integer" },
    };
    g_autofree gchar *dir = g_dir_make_tmp("vn-caps-XXXXXX", NULL);

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gchar *path = write_temp(dir, cases[i].name, cases[i].xml, -1);
        g_autoptr(GError) error = NULL;

        g_assert_null(vn_topology_load_capabilities(path, &error));
        g_assert_nonnull(error);
        assert_error_names(error, error->code, path, cases[i].detail);
    }
    vn_test_remove_tree(dir);
}

static void
test_caps_wrong_file(void)
{
    g_autofree gchar *hwloc = vn_test_data_path("hwloc", "hagrid.xml", NULL);
    g_autofree gchar *missing = vn_test_data_path("caps", "no-such-file.xml", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GError) error2 = NULL;

    g_assert_null(vn_topology_load_capabilities(hwloc, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_INVALID, hwloc, "<topology>");
    g_assert_null(vn_topology_load_capabilities(missing, &error2));
    assert_error_names(error2, VN_TOPOLOGY_SOURCE_ERROR_IO, missing, NULL);
}

/* ---- sysfs memory ------------------------------------------------------- */

static void
test_sysfs_update(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "real-2node", NULL);
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-qemu-kvm.xml");
    g_autoptr(GError) error = NULL;

    g_assert_true(vn_topology_read_sysfs_memory(t, root, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_free_kib, ==, 63623272);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_free_kib, ==, 61752192);
    /* Active(file) + Inactive(file) + SReclaimable of the capture */
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_reclaimable_kib, ==, 164264 + 156624 + 50972);
    /* the capture's 64 GiB node is a 16 GiB node in these capabilities:
     * available memory never exceeds the node's total */
    g_assert_cmpuint(vn_topology_node_available_kib(t, vn_topology_node_by_os_id(t, 0)), ==,
                     vn_test_node_by_os(t, 0)->mem_total_kib);
    /* The capabilities' 2M and 1G entries are updated, not duplicated. */
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->hugepages->len, ==, 2);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->hugepages->len, ==, 2);
    assert_hugepages(vn_test_node_by_os(t, 0), 2048, 512, 100);
    assert_hugepages(vn_test_node_by_os(t, 0), 1048576, 0, 0);
    assert_hugepages(vn_test_node_by_os(t, 1), 2048, 0, 0);
    assert_hugepages(vn_test_node_by_os(t, 1), 1048576, 4, 4);
}

static void
test_sysfs_add(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "real-2node", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("pack:2 numa:1 core:2 pu:1", &error);
    const VnNode *n;

    g_assert_no_error(error);
    g_assert_true(vn_topology_read_sysfs_memory(t, root, &error));
    n = vn_test_node_by_os(t, 0);
    g_assert_cmpuint(n->hugepages->len, ==, 2);
    /* Sorted by size whatever the directory order. */
    g_assert_cmpuint(g_array_index(n->hugepages, VnHugepages, 0).size_kib, ==, 2048);
    g_assert_cmpuint(g_array_index(n->hugepages, VnHugepages, 1).size_kib, ==, 1048576);
    assert_hugepages(n, 2048, 512, 100);
}

static void
make_node(const gchar *root, guint node, const gchar *meminfo, const gchar *nr)
{
    g_autofree gchar *name = g_strdup_printf("node%u", node);
    g_autofree gchar *dir =
        g_build_filename(root, "sys/devices/system/node", name, "hugepages/hugepages-2048kB", NULL);
    g_autofree gchar *ndir = g_path_get_dirname(dir);
    g_autofree gchar *nodedir = g_path_get_dirname(ndir);
    g_autofree gchar *m = NULL, *a = NULL, *b = NULL;

    g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
    m = write_temp(nodedir, "meminfo", meminfo, -1);
    a = write_temp(dir, "nr_hugepages", nr, -1);
    b = write_temp(dir, "free_hugepages", "0\n", -1);
}

static void
test_sysfs_errors(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("pack:2 numa:1 core:2 pu:1", &error);
    g_autofree gchar *dir = g_dir_make_tmp("vn-sysfs-XXXXXX", NULL);

    g_assert_no_error(error);
    /* Node 1 missing entirely. */
    make_node(dir, 0, "Node 0 MemFree:  100 kB\n", "0\n");
    g_assert_false(vn_topology_read_sysfs_memory(t, dir, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_IO, "node1", "meminfo");
    g_clear_error(&error);
    /* A meminfo without MemFree for this node. */
    make_node(dir, 1, "Node 1 MemTotal:  100 kB\nNode 0 MemFree: 5 kB\n", "0\n");
    g_assert_false(vn_topology_read_sysfs_memory(t, dir, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_PARSE, "node1/meminfo", "MemFree");
    g_clear_error(&error);
    /* A pool count that is not a number. */
    make_node(dir, 1, "Node 1 MemFree:  7 kB\n", "many\n");
    g_assert_false(vn_topology_read_sysfs_memory(t, dir, &error));
    assert_error_names(error, VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                       "node1/hugepages/hugepages-2048kB/nr_hugepages", NULL);
    g_clear_error(&error);
    /* Failures leave the topology untouched. */
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_free_kib, ==, G_MAXUINT64);
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->hugepages->len, ==, 0);
    make_node(dir, 1, "Node 1 MemFree:  7 kB\n", "3\n");
    g_assert_true(vn_topology_read_sysfs_memory(t, dir, &error));
    g_assert_cmpuint(vn_test_node_by_os(t, 0)->mem_free_kib, ==, 100);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_free_kib, ==, 7);
    g_assert_cmpuint(vn_test_node_by_os(t, 1)->mem_reclaimable_kib, ==, 0);
    assert_hugepages(vn_test_node_by_os(t, 1), 2048, 3, 0);
    vn_test_remove_tree(dir);
}

/* ---- live host ---------------------------------------------------------- */

static void
test_live(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_live(&error);

    g_assert_no_error(error);
    g_assert_cmpuint(t->n_nodes, >=, 1);
    /* hwloc keeps the PUs this process may use, as sched_getaffinity. */
    g_assert_cmpuint(t->cpus->len, ==, g_get_num_processors());
    g_assert_nonnull(strstr(t->source, "this host"));
    if (!g_file_test("/sys/devices/system/node/node0/meminfo", G_FILE_TEST_EXISTS))
        return;
    for (guint i = 0; i < t->n_nodes; i++) {
        g_assert_cmpuint(t->nodes[i].mem_free_kib, !=, G_MAXUINT64);
        g_assert_cmpuint(t->nodes[i].mem_free_kib, <=, t->nodes[i].mem_total_kib);
    }
}

/* ---- the whole shared corpus against its INDEX.tsv ----------------------- */

/* Rows of a corpus INDEX.tsv (header dropped), or NULL to skip the test. */
static GPtrArray *
corpus_index(const gchar *folder)
{
    const gchar *corpus = g_getenv("VN_CORPUS");
    g_autofree gchar *path = NULL;
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    GPtrArray *rows;

    if (!corpus)
        return NULL;
    path = g_build_filename(corpus, folder, "INDEX.tsv", NULL);
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    rows = g_ptr_array_new_with_free_func((GDestroyNotify)g_strfreev);
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 1; lines[i]; i++)
        if (*lines[i])
            g_ptr_array_add(rows, g_strsplit(lines[i], "\t", -1));
    return rows;
}

static guint
count_distinct(const VnTopology *t, gboolean packages)
{
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);

    for (guint i = 0; i < t->cpus->len; i++) {
        const VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        g_hash_table_add(seen, GUINT_TO_POINTER(packages ? c->package : c->core));
    }
    return g_hash_table_size(seen);
}

/* "os:bytes,os:bytes" (bytes, or "<n>KiB", or "-" for unknown). */
static void
assert_index_memory(const VnTopology *t, const gchar *list, guint64 unit)
{
    g_auto(GStrv) items = g_strsplit(list, ",", -1);

    for (guint i = 0; items[i]; i++) {
        guint64 os = g_ascii_strtoull(items[i], NULL, 10);
        const gchar *v = strchr(items[i], ':') + 1;

        g_assert_cmpuint(vn_test_node_by_os(t, (guint)os)->mem_total_kib, ==,
                         g_str_equal(v, "-") ? 0 : g_ascii_strtoull(v, NULL, 10) / unit);
    }
}

static void
test_corpus_hwloc(void)
{
    /* hagrid.xml's allowed_cpuset leaves out PUs 4-5 (two cores); only
     * allowed PUs count. */
    static const struct {
        const gchar *file;
        guint pus, cores;
    } restricted[] = {
        { "hagrid.xml", 6, 6 },
    };
    g_autoptr(GPtrArray) rows = corpus_index("hwloc-topologies");

    if (!rows) {
        g_test_skip("no corpus at $VN_CORPUS");
        return;
    }
    g_assert_cmpuint(rows->len, >=, 10);
    for (guint r = 0; r < rows->len; r++) {
        gchar **f = rows->pdata[r];
        g_autofree gchar *path =
            g_build_filename(g_getenv("VN_CORPUS"), "hwloc-topologies", f[0], NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(VnTopology) t = vn_topology_load_hwloc_xml(path, &error);
        guint pus = atoi(f[6]), cores = atoi(f[5]), packages = atoi(f[3]);

        g_test_message("%s", f[0]);
        g_assert_no_error(error);
        for (guint k = 0; k < G_N_ELEMENTS(restricted); k++)
            if (g_str_equal(f[0], restricted[k].file)) {
                pus = restricted[k].pus;
                cores = restricted[k].cores;
            }
        g_assert_cmpuint(t->n_nodes, ==, atoi(f[4]));
        g_assert_cmpuint(t->cpus->len, ==, pus);
        g_assert_cmpuint(count_distinct(t, FALSE), ==, (cores ? cores : pus));
        /* INDEX counts Package objects, and some have no allowed PU
         * (32amd64-4s2n4c-cgroup2: 3 packages, PUs on one). */
        g_assert_cmpuint(count_distinct(t, TRUE), <=, MAX(packages, 1));
        assert_index_memory(t, f[8], 1024);
        g_assert_cmpint(t->distances_assumed, ==, g_str_equal(f[10], "no"));
        g_assert_cmpint(strstr(t->source, "read as 2.0") != NULL, ==, g_str_equal(f[2], "3.0"));
    }
}

static void
test_corpus_caps(void)
{
    g_autoptr(GPtrArray) rows = corpus_index("libvirt-capabilities");
    guint n = 0;

    if (!rows) {
        g_test_skip("no corpus at $VN_CORPUS");
        return;
    }
    for (guint r = 0; r < rows->len; r++) {
        gchar **f = rows->pdata[r];
        g_autofree gchar *path = NULL;
        g_autoptr(GError) error = NULL;
        g_autoptr(VnTopology) t = NULL;
        g_auto(GStrv) cpus = NULL;

        if (!g_str_equal(f[1], "capabilities-xml"))
            continue;
        g_test_message("%s", f[0]);
        path = g_build_filename(g_getenv("VN_CORPUS"), "libvirt-capabilities", f[0], NULL);
        t = vn_topology_load_capabilities(path, &error);
        g_assert_no_error(error);
        g_assert_cmpuint(t->n_nodes, ==, atoi(f[6]));
        assert_index_memory(t, f[7], 1);
        cpus = g_strsplit(f[8], ",", -1);
        for (guint i = 0; cpus[i]; i++)
            g_assert_cmpuint(vn_topology_node_ncpus(t, vn_topology_node_by_os_id(t, atoi(cpus[i]))),
                             ==, atoi(strchr(cpus[i], ':') + 1));
        g_assert_cmpint(t->distances_assumed, ==, g_str_equal(f[9], "no"));
        g_assert_cmpint(t->nodes[0].hugepages->len > 0, ==, g_str_equal(f[10], "yes"));
        n++;
    }
    g_assert_cmpuint(n, >=, 3);
}

/* ---- cpulists ----------------------------------------------------------- */

static void
test_cpulist_format(void)
{
    g_autoptr(VnBitmap) b = vn_bitmap_new(16);
    g_autofree gchar *empty = vn_cpulist_format(b);
    g_autofree gchar *s = NULL;
    g_autofree gchar *one = NULL;

    g_assert_cmpstr(empty, ==, "");
    vn_bitmap_set(b, 5);
    one = vn_cpulist_format(b);
    g_assert_cmpstr(one, ==, "5");
    for (guint i = 0; i < 4; i++)
        vn_bitmap_set(b, i);
    vn_bitmap_clear(b, 5);
    vn_bitmap_set(b, 8);
    vn_bitmap_set(b, 15);
    s = vn_cpulist_format(b);
    g_assert_cmpstr(s, ==, "0-3,8,15");
}

static void
test_cpulist_parse(void)
{
    static const struct {
        const gchar *text, *canonical;
    } good[] = {
        { "0-3,8", "0-3,8" },
        { "5", "5" },
        { "", "" },
        { "8,0-3", "0-3,8" },
        { "0-1,1-2", "0-2" },
        { "15", "15" },
        { "0-15", "0-15" },
        /* base 10 with leading zeros, as libvirt's virBitmapParse(); hwloc
         * alone reads "010" as octal 8 and "09-11" as CPU 2^32 - 11 */
        { "09-11", "9-11" },
        { "010", "10" },
        { "007,0008", "7-8" },
        { "00", "0" },
        { "0000000000000000015", "15" },
        { "0-015", "0-15" },
    };
    static const gchar *bad[] = { "abc",   "1-2x", "0x3",         "3-1", "-1",    "4-",  "1--2",
                                  "1-2-3", "16",   "0-16",        ",",   "1,",    ",1",  " 1",
                                  "1 2",   "+3",   "99999999999", "016", "0-016", "09-", "-09" };

    for (guint i = 0; i < G_N_ELEMENTS(good); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnBitmap) b = vn_cpulist_parse(good[i].text, 16, &error);
        g_autofree gchar *s = NULL;

        g_assert_no_error(error);
        g_assert_cmpuint(b->n_bits, ==, 16);
        s = vn_cpulist_format(b);
        g_assert_cmpstr(s, ==, good[i].canonical);
    }
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) error = NULL;
        g_autofree gchar *quoted = g_strdup_printf("'%s'", bad[i]);

        if (vn_cpulist_parse(bad[i], 16, &error))
            g_error("cpulist '%s' was accepted", bad[i]);
        g_assert_error(error, VN_CPULIST_ERROR, VN_CPULIST_ERROR_INVALID);
        g_assert_nonnull(strstr(error->message, quoted));
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology/hwloc-xml/64amd64-4p2n4ca2co", test_hwloc_64amd64);
    g_test_add_func("/topology/hwloc-xml/192em64t-24n8c2t", test_hwloc_192em64t);
    g_test_add_func("/topology/hwloc-xml/heteromem", test_hwloc_heteromem);
    g_test_add_func("/topology/hwloc-xml/heteromem-hbm-first", test_hwloc_heteromem_hbm_first);
    g_test_add_func("/topology/hwloc-xml/hagrid", test_hwloc_hagrid);
    g_test_add_func("/topology/hwloc-xml/16amd64-4distances", test_hwloc_16amd64);
    g_test_add_func("/topology/hwloc-xml/40intel64-2g2n4c+pcilocality", test_hwloc_40intel64);
    g_test_add_func("/topology/hwloc-xml/fakeheterocpunuma", test_hwloc_fakeheterocpunuma);
    g_test_add_func("/topology/hwloc-xml/quiet", test_hwloc_quiet);
    g_test_add_func("/topology/hwloc-xml/errors", test_hwloc_errors);
    g_test_add_func("/topology/hwloc-xml/error-line", test_hwloc_error_line);
    g_test_add_func("/topology/hwloc-xml/distance-edge-cases", test_hwloc_distance_edge_cases);
    g_test_add_func("/topology/synthetic/pack2-numa2-core8-pu2", test_synthetic);
    g_test_add_func("/topology/synthetic/invalid", test_synthetic_invalid);
    g_test_add_func("/topology/capabilities/caps-qemu-kvm", test_caps_qemu_kvm);
    g_test_add_func("/topology/capabilities/caps-test", test_caps_test);
    g_test_add_func("/topology/capabilities/aarch64-basic-clusters", test_caps_aarch64_clusters);
    g_test_add_func("/topology/capabilities/errors", test_caps_errors);
    g_test_add_func("/topology/capabilities/wrong-file", test_caps_wrong_file);
    g_test_add_func("/topology/sysfs/update", test_sysfs_update);
    g_test_add_func("/topology/sysfs/add", test_sysfs_add);
    g_test_add_func("/topology/sysfs/errors", test_sysfs_errors);
    g_test_add_func("/topology/live", test_live);
    g_test_add_func("/topology/corpus/hwloc-index", test_corpus_hwloc);
    g_test_add_func("/topology/corpus/caps-index", test_corpus_caps);
    g_test_add_func("/cpulist/format", test_cpulist_format);
    g_test_add_func("/cpulist/parse", test_cpulist_parse);
    return g_test_run();
}
