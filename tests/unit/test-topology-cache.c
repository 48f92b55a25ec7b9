/* test-topology-cache.c: a cached topology equals the fresh one, for every
 * hwloc and capabilities fixture and the live host; stale or broken caches
 * are told apart. */
#include <glib/gstdio.h>
#include "vn-test-files.h"
#include "vn-test-fixture.h"
#include "vn-topology-cache.h"
#include "vn-topology-json.h"
#include "vn-topology-source.h"

static gchar *
as_json(const VnTopology *t)
{
    g_autoptr(JsonNode) n = vn_topology_to_json(t, NULL);
    return json_to_string(n, TRUE);
}

/* Free memory is not cached (the hook re-reads it): compare without it. */
static void
assert_round_trip(VnTopology *t, const gchar *what)
{
    for (guint i = 0; i < t->n_nodes; i++)
        t->nodes[i].mem_free_kib = G_MAXUINT64;
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-cache-XXXXXX", NULL);
    g_autofree gchar *path = g_build_filename(dir, VN_TOPOLOGY_CACHE_FILE, NULL);
    g_autoptr(GError) err = NULL;
    g_assert_true(vn_topology_cache_save(t, path, "k1", &err));
    g_assert_no_error(err);
    g_autoptr(VnTopology) back = vn_topology_cache_load(path, "k1", &err);
    g_assert_no_error(err);
    g_assert_nonnull(back);
    g_autofree gchar *a = as_json(t);
    g_autofree gchar *b = as_json(back);
    if (g_strcmp0(a, b) != 0)
        g_error("%s: cached topology differs:\n%s\n---\n%s", what, a, b);
    g_assert_cmpuint(back->smt_width, ==, t->smt_width);
    g_assert_cmpuint(back->n_cpu_ids, ==, t->n_cpu_ids);
    /* another key: stale, not an error */
    g_autoptr(VnTopology) stale = vn_topology_cache_load(path, "k2", &err);
    g_assert_no_error(err);
    g_assert_null(stale);
    g_unlink(path);
    g_rmdir(dir);
}

static void
test_fixtures(void)
{
    static const gchar *const dirs[] = { "hwloc", "caps" };
    for (guint d = 0; d < G_N_ELEMENTS(dirs); d++) {
        g_autofree gchar *dir = vn_test_data_path(dirs[d], NULL);
        g_autoptr(GPtrArray) paths = vn_test_dir_paths(dir, ".xml");
        guint n = 0;
        for (guint i = 0; i < paths->len; i++) {
            const gchar *path = paths->pdata[i];
            g_autoptr(VnTopology) t = d == 0 ? vn_topology_load_hwloc_xml(path, NULL)
                                             : vn_topology_load_capabilities(path, NULL);
            if (!t)
                continue; /* fixtures meant to fail are tested elsewhere */
            assert_round_trip(t, path);
            n++;
        }
        g_assert_cmpuint(n, >, 0);
    }
}

/* A captured sysfs tree whose L3s hwloc reads from cpuN/cache/index3,
 * and one with kernel memory tiers and HMAT figures. */
static void
test_sysroot(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "resctrl-2node", NULL);
    g_autofree gchar *tiered = vn_test_data_path("sysroot", "kmem-tier", NULL);
    g_autoptr(GError) err = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_sysroot(root, &err);
    g_assert_no_error(err);
    g_assert_false(t->domains_assumed);
    assert_round_trip(t, root);
    g_autoptr(VnTopology) k = vn_topology_load_sysroot(tiered, &err);
    g_assert_no_error(err);
    g_assert_nonnull(k->access);
    g_assert_cmpint(k->nodes[1].kernel_tier, ==, 22);
    assert_round_trip(k, tiered);
}

static void
test_live(void)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_live(&err);
    if (!t) {
        g_test_skip(err->message);
        return;
    }
    assert_round_trip(t, "live host");
    g_autofree gchar *k1 = vn_topology_cache_key(NULL);
    g_autofree gchar *k2 = vn_topology_cache_key(NULL);
    g_assert_nonnull(k1);
    g_assert_cmpstr(k1, ==, k2);
    g_assert_true(g_str_has_prefix(k1, "live:"));
}

static void
test_file_key(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-key-XXXXXX", NULL);
    g_autofree gchar *path = g_build_filename(dir, "t.xml", NULL);
    g_assert_true(g_file_set_contents(path, "<topology/>", -1, NULL));
    g_autofree gchar *k1 = vn_topology_cache_key(path);
    g_assert_true(g_file_set_contents(path, "<topology version='2.0'/>", -1, NULL));
    g_autofree gchar *k2 = vn_topology_cache_key(path);
    g_assert_nonnull(k1);
    g_assert_cmpstr(k1, !=, k2); /* size changed */
    g_unlink(path);
    g_assert_null(vn_topology_cache_key(path)); /* gone: no key */
    g_rmdir(dir);
}

static void
test_bad(void)
{
    static const gchar *const bad[] = {
        "",
        "nope",
        "[]",
        "{\"version\": 1}",
        "{\"version\": 2}",
        "{\"version\": 4}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": 3}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": \"x\"}], \"cpus\": []}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 5, 0, 0]}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 0, 0]}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [], \"cpus\": []}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [], \"cpus\": []} {}",
        "{\"version\": 3, \"key\": \"other\", \"key\": \"k\", \"nodes\": [], \"cpus\": []}",
        /* L3s: not [size, cpulist] pairs; a CPU the topology lacks; overlapping */
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 0, 0, 0, 1, 0, 1, 0], \"l3\": [1024]}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 0, 0, 0, 1, 0, 1, 0], \"l3\": [1024, \"0-5\"]}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 0, 0, 0, 1, 0, 1, 0],"
        " \"l3\": [1024, \"0-1\", 1024, \"1\"]}",
        "{\"version\": 3, \"key\": \"k\", \"nodes\": [{\"os_id\": 0, \"mem_total_kib\": 1,"
        " \"hugepages\": []}], \"cpus\": [0, 0, 0, 0], \"l3\": [-1, \"0\"]}",
    };
    g_autofree gchar *dir = g_dir_make_tmp("vn-topo-bad-XXXXXX", NULL);
    g_autofree gchar *path = g_build_filename(dir, VN_TOPOLOGY_CACHE_FILE, NULL);
    g_autoptr(GError) err = NULL;
    g_assert_null(vn_topology_cache_load(path, "k", &err)); /* missing */
    g_assert_no_error(err);
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_assert_true(g_file_set_contents(path, bad[i], -1, NULL));
        g_assert_null(vn_topology_cache_load(path, "k", &err));
        if (!err)
            g_error("case %u (%s) gave no error", i, bad[i]);
        g_assert_error(err, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT);
        g_clear_error(&err);
    }
    g_unlink(path);
    g_rmdir(dir);
}

/* A real cache cut short at every length, or with any one byte changed,
 * is refused with an error (the seal's checksum), never read as some
 * other topology and never a crash. */
static void
test_damaged(void)
{
    g_autofree gchar *file = vn_test_data_path("hwloc", "64amd64-4p2n4ca2co.xml", NULL);
    g_autoptr(VnTopology) t = vn_topology_load_hwloc_xml(file, NULL);
    g_assert_nonnull(t);
    g_autoptr(GBytes) bytes = vn_topology_cache_to_bytes(t, "k");
    gsize len = 0;
    const guchar *data = g_bytes_get_data(bytes, &len);
    g_autoptr(GBytes) whole = g_bytes_new(data, len);
    g_autoptr(VnTopology) back = vn_topology_cache_from_bytes(whole, "whole", "k", NULL);
    g_assert_nonnull(back);
    for (gsize cut = 0; cut < len; cut++) {
        g_autoptr(GBytes) part = g_bytes_new(data, cut);
        g_autoptr(GError) err = NULL;
        g_autoptr(VnTopology) got = vn_topology_cache_from_bytes(part, "cut", "k", &err);
        if (got || !err)
            g_error("a cache cut at byte %" G_GSIZE_FORMAT " of %" G_GSIZE_FORMAT
                    " was not refused",
                    cut, len);
        g_assert_error(err, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT);
    }
    g_autofree guchar *copy = g_memdup2(data, len);
    for (gsize at = 0; at < len; at++) {
        copy[at] ^= 0x5a;
        g_autoptr(GBytes) flipped = g_bytes_new(copy, len);
        g_autoptr(GError) err = NULL;
        g_autoptr(VnTopology) got = vn_topology_cache_from_bytes(flipped, "flipped", "k", &err);
        if (got || !err)
            g_error("a cache with byte %" G_GSIZE_FORMAT " changed was not refused", at);
        g_assert_error(err, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT);
        copy[at] ^= 0x5a;
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology-cache/fixtures", test_fixtures);
    g_test_add_func("/topology-cache/sysroot", test_sysroot);
    g_test_add_func("/topology-cache/live", test_live);
    g_test_add_func("/topology-cache/file-key", test_file_key);
    g_test_add_func("/topology-cache/bad", test_bad);
    g_test_add_func("/topology-cache/damaged", test_damaged);
    return g_test_run();
}
