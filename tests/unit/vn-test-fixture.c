/* vn-test-fixture.c: see vn-test-fixture.h. */
#include "vn-test-fixture.h"
#include "vn-topology-source.h"

#include <glib/gstdio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <unistd.h>

gchar *
vn_test_data_path(const gchar *first, ...)
{
    const gchar *root = g_getenv("VN_TEST_DATA");
    g_autoptr(GPtrArray) parts = g_ptr_array_new();
    va_list args;

    if (!root) {
        g_printerr("VN_TEST_DATA is not set; run through meson test\n");
        exit(77);
    }
    g_ptr_array_add(parts, (gpointer)root);
    va_start(args, first);
    for (const gchar *p = first; p; p = va_arg(args, const gchar *))
        g_ptr_array_add(parts, (gpointer)p);
    va_end(args);
    g_ptr_array_add(parts, NULL);
    return g_build_filenamev((gchar **)parts->pdata);
}

gchar *
vn_test_write_file(const gchar *dir, const gchar *rel, const gchar *contents)
{
    gchar *path = g_build_filename(dir, rel, NULL);
    g_autofree gchar *parent = g_path_get_dirname(path);

    g_assert_cmpint(g_mkdir_with_parents(parent, 0755), ==, 0);
    g_assert_true(g_file_set_contents(path, contents, -1, NULL));
    return path;
}

void
vn_test_remove_tree(const gchar *dir)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;

    while (d && (name = g_dir_read_name(d))) {
        g_autofree gchar *p = g_build_filename(dir, name, NULL);
        if (g_file_test(p, G_FILE_TEST_IS_DIR) && !g_file_test(p, G_FILE_TEST_IS_SYMLINK))
            vn_test_remove_tree(p);
        else
            g_unlink(p);
    }
    g_rmdir(dir);
}

VnTopology *
vn_test_topology_new(void)
{
    static const guint dist[3][3] = { { 10, 21, 30 }, { 21, 10, 30 }, { 30, 30, 10 } };
    g_autoptr(VnTopology) t = vn_topology_new("test host");
    g_autoptr(GError) error = NULL;

    vn_topology_add_node(t, 0, 16 * 1024 * 1024);
    vn_topology_add_node(t, 1, 16 * 1024 * 1024);
    vn_topology_add_node(t, 3, 64 * 1024 * 1024);
    for (guint cpu = 0; cpu < 8; cpu++)
        vn_topology_add_cpu(t, cpu, cpu / 4, cpu / 2, cpu / 4);
    for (guint i = 0; i < 3; i++)
        for (guint j = 0; j < 3; j++)
            vn_topology_set_distance(t, i, j, dist[i][j]);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return g_steal_pointer(&t);
}

VnTopology *
vn_test_load_topology(const gchar *dir, const gchar *file)
{
    g_autofree gchar *path = vn_test_data_path(dir, file, NULL);
    g_autoptr(GError) error = NULL;
    VnTopology *t;

    if (g_str_equal(dir, "caps"))
        t = vn_topology_load_capabilities(path, &error);
    else if (g_str_equal(dir, "sysroot"))
        t = vn_topology_load_sysroot(path, &error);
    else
        t = vn_topology_load_hwloc_xml(path, &error);
    g_assert_no_error(error);
    g_assert_nonnull(t);
    g_assert_true(t->finished);
    return t;
}

const VnNode *
vn_test_node_by_os(const VnTopology *t, guint os_id)
{
    gint i = vn_topology_node_by_os_id(t, os_id);

    g_assert_cmpint(i, >=, 0);
    return &t->nodes[i];
}

VnConfig *
vn_test_config_from_text(const gchar *text, GError **error)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autofree gchar *path = NULL;
    gint fd = g_file_open_tmp("vnuma-test-XXXXXX.conf", &path, NULL);
    VnConfig *c;

    g_assert_cmpint(fd, >=, 0);
    close(fd);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    c = vn_config_load(path, t, error);
    g_unlink(path);
    return c;
}

void
vn_test_source_load_with_ledger(const VnSourceOptions *o, VnTestSource *s, VnLedger **ret_ledger)
{
    g_autoptr(GError) error = NULL;

    gboolean ok = vn_source_load_with_ledger(o, &s->t, &s->load, &s->config, ret_ledger, &error);

    g_assert_no_error(error);
    g_assert_true(ok);
}

void
vn_test_source_load(const VnSourceOptions *o, VnTestSource *s)
{
    vn_test_source_load_with_ledger(o, s, NULL);
}

void
vn_test_source_clear(VnTestSource *s)
{
    g_clear_pointer(&s->t, vn_topology_free);
    g_clear_pointer(&s->load, vn_load_free);
    g_clear_pointer(&s->config, vn_config_free);
}
