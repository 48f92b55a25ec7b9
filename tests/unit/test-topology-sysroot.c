/* test-topology-sysroot.c: vn_topology_load_sysroot() and --sysroot as the
 * only topology source (one host per command).
 *
 * tests/data/sysroot/16amd64-8n2c is hwloc's capture of an 8-node
 * Opteron 865 host (2 CPUs and 8 GiB per node); variants of it with one
 * file missing or emptied are built as symlink trees in a temp dir. */
#include <glib/gstdio.h>
#include <unistd.h>

#include "vn-source.h"
#include "vn-topology-source.h"
#include "vn-test-fixture.h"

/* MemTotal and MemFree of node<N>/meminfo in the capture, kB. */
static const guint64 capture_total[8] = {
    8386704, 8388608, 8388608, 8388608, 8388608, 8388608, 8388608, 8388608,
};
static const guint64 capture_free[8] = {
    6895672, 8226932, 8238444, 8230804, 8234628, 8246360, 8242876, 8249784,
};

static void
assert_capture(const VnTopology *t)
{
    g_assert_cmpuint(t->n_nodes, ==, 8);
    g_assert_cmpuint(t->cpus->len, ==, 16);
    g_assert_cmpuint(t->smt_width, ==, 1);
    g_assert_false(t->distances_assumed);
    for (guint i = 0; i < 8; i++) {
        g_assert_cmpuint(t->nodes[i].os_id, ==, i);
        g_assert_cmpuint(t->nodes[i].mem_total_kib, ==, capture_total[i]);
        g_assert_cmpuint(t->nodes[i].mem_free_kib, ==, capture_free[i]);
        g_assert_cmpuint(vn_bitmap_count(t->nodes[i].cpus), ==, 2);
        g_assert_true(vn_bitmap_test(t->nodes[i].cpus, 2 * i));
        g_assert_true(vn_bitmap_test(t->nodes[i].cpus, 2 * i + 1));
        for (guint j = 0; j < 8; j++)
            g_assert_cmpuint(vn_topology_distance(t, i, j), ==, i == j ? 10 : 20);
    }
}

static void
test_capture(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "16amd64-8n2c", NULL);
    g_autofree gchar *source = g_strdup_printf("sysroot %s (hwloc)", root);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_sysroot(root, &error);

    g_assert_no_error(error);
    assert_capture(t);
    g_assert_cmpstr(t->source, ==, source);
    /* $HWLOC_FSROOT was the child's only */
    g_assert_null(g_getenv("HWLOC_FSROOT"));
}

/* Mirrors `from` into `to` as symlinks, file by file, except `rel` (below
 * `from`), which is left out or, with `empty`, written empty. */
static void
mirror(const gchar *from, const gchar *to, const gchar *prefix, const gchar *rel, gboolean empty)
{
    g_autoptr(GDir) d = g_dir_open(from, 0, NULL);
    const gchar *name;

    g_assert_nonnull(d);
    g_assert_cmpint(g_mkdir_with_parents(to, 0755), ==, 0);
    while ((name = g_dir_read_name(d))) {
        g_autofree gchar *src = g_build_filename(from, name, NULL);
        g_autofree gchar *dst = g_build_filename(to, name, NULL);
        g_autofree gchar *sub = *prefix ? g_build_filename(prefix, name, NULL) : g_strdup(name);
        if (g_str_equal(sub, rel)) {
            if (empty)
                g_assert_true(g_file_set_contents(dst, "", 0, NULL));
        } else if (g_file_test(src, G_FILE_TEST_IS_DIR)) {
            mirror(src, dst, sub, rel, empty);
        } else {
            g_assert_cmpint(symlink(src, dst), ==, 0);
        }
    }
}

/* Each way a capture can lack what hwloc or vnuma needs: one line that
 * names the file. */
static void
test_refused(void)
{
    static const struct {
        const gchar *rel; /* below the capture; NULL: the fixture as is */
        gboolean empty;
        const gchar *fixture;
        const gchar *expected; /* in the message, after "<root>/" */
    } cases[] = {
        { "sys/devices/system/node/node3/cpumap", FALSE, "16amd64-8n2c",
          "sys/devices/system/node/node3/cpumap: missing (hwloc needs it to read the node)" },
        { "sys/devices/system/node/online", FALSE, "16amd64-8n2c",
          "sys/devices/system/node/online: missing (the list of NUMA nodes)" },
        /* hwloc 2.9 asserts on this one (list_sysfsnode) */
        { "sys/devices/system/node/online", TRUE, "16amd64-8n2c",
          "sys/devices/system/node/online: lists no node" },
        { "sys/devices/system/node/node5/meminfo", FALSE, "16amd64-8n2c",
          "sys/devices/system/node/node5/meminfo" },
        { "sys/devices/system/cpu", FALSE, "16amd64-8n2c",
          "sys/devices/system/cpu: missing (not a captured Linux root: no CPUs)" },
        /* libvirt's virhostcpudata trees keep core_id and package id only */
        { NULL, FALSE, "no-cpu-topology",
          "sys/devices/system/cpu/cpu0/topology: none of package_cpus, core_cpus, "
          "core_siblings, thread_siblings (hwloc needs one to read the CPUs)" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gchar *fixture = vn_test_data_path("sysroot", cases[i].fixture, NULL);
        g_autofree gchar *tmp = g_dir_make_tmp("vn-sysroot-XXXXXX", NULL);
        g_autofree gchar *root =
            cases[i].rel ? g_build_filename(tmp, "root", NULL) : g_strdup(fixture);
        g_autofree gchar *expected = g_strdup_printf("%s/%s", root, cases[i].expected);
        g_autoptr(GError) error = NULL;

        if (cases[i].rel)
            mirror(fixture, root, "", cases[i].rel, cases[i].empty);
        g_assert_null(vn_topology_load_sysroot(root, &error));
        g_assert_nonnull(error);
        if (!strstr(error->message, expected) || strchr(error->message, '\n'))
            g_error("case %zu: \"%s\" does not say \"%s\"", i, error->message, expected);
        vn_test_remove_tree(tmp);
    }
    g_autoptr(GError) error = NULL;
    g_assert_null(vn_topology_load_sysroot("/nonexistent-capture", &error));
    g_assert_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO);
    g_assert_cmpstr(error->message, ==, "/nonexistent-capture: no such directory");
}

/* --sysroot alone: the capture is the host, whole; it is not this host,
 * so this host's ledger does not count. */
static void
test_source_sysroot_alone(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "16amd64-8n2c", NULL);
    g_autofree gchar *state = vn_test_data_path("status", "state", NULL); /* VMs on nodes 0, 1 */
    g_autofree gchar *tmp = g_dir_make_tmp("vn-sysroot-conf-XXXXXX", NULL);
    g_autofree gchar *config_file = g_build_filename(tmp, "vnuma.conf", NULL);
    g_autofree gchar *text = g_strdup_printf("[paths]\nstate_dir = %s\n", state);
    VnSourceOptions o = { .sysroot = root, .config_file = config_file };
    g_auto(VnTestSource) s = { 0 };

    g_assert_true(g_file_set_contents(config_file, text, -1, NULL));
    g_assert_false(vn_source_is_this_host(&o));
    vn_test_source_load(&o, &s);
    vn_test_remove_tree(tmp);
    assert_capture(s.t);
    /* node 0 = CPUs 0-1 since boot: busy (31646+1742+45681+77+279 +
     * 60398+3622+6245+1) of that plus idle (16667088+21517 + 16698327+91) */
    g_assert_cmpfloat_with_epsilon(s.load->nodes[0].cpu_busy, 149691.0 / (149691.0 + 33387023.0),
                                   1e-9);
    for (guint i = 0; i < 8; i++) {
        g_assert_cmpfloat(s.load->nodes[i].cpu_busy, >=, 0.0);
        g_assert_cmpuint(s.load->nodes[i].committed_vcpus, ==, 0); /* no ledger */
    }
}

/* A capture without proc/stat: CPU busy unknown, and the source says so. */
static void
test_source_no_stat(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "16amd64-8n2c-nostat", NULL);
    g_autofree gchar *config_file = vn_test_data_path("config", "empty.conf", NULL);
    g_autofree gchar *note = g_strdup_printf("; CPU busy unknown: no %s/proc/stat", root);
    VnSourceOptions o = { .sysroot = root, .config_file = config_file };
    g_auto(VnTestSource) s = { 0 };

    vn_test_source_load(&o, &s);
    assert_capture(s.t);
    g_assert_true(g_str_has_suffix(s.t->source, note));
    for (guint i = 0; i < 8; i++)
        g_assert_cmpfloat(s.load->nodes[i].cpu_busy, <, 0.0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology/sysroot/16amd64-8n2c", test_capture);
    g_test_add_func("/topology/sysroot/refused", test_refused);
    g_test_add_func("/source/sysroot/alone", test_source_sysroot_alone);
    g_test_add_func("/source/sysroot/no-proc-stat", test_source_no_stat);
    return g_test_run();
}
