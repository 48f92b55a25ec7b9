/* vn-topology-sysfs-hmat.c: memory tiers and HMAT figures from sysfs.
 *
 * The kernel's files (Documentation/ABI/stable/sysfs-devices-node,
 * Documentation/admin-guide/mm/numaperf.rst, and for tiers
 * Documentation/ABI/testing/sysfs-kernel-mm-memory-tiers):
 *   devices/virtual/memory_tiering/memory_tier<N>/nodelist   "0-1"
 *   devices/system/node/node<Y>/access<Z>/initiators/{read,write}_{latency,bandwidth}
 *                                                  ns and MB/s, one number each
 *   devices/system/node/node<Y>/access<Z>/initiators/node<X>  links to the
 *                                                  initiator nodes the figures are for
 *   devices/system/node/node<Y>/memory_side_cache/index<L>/size  bytes
 * access1 counts CPUs only as initiators, access0 any (devices too): a
 * node's access1 is read, else its access0.  Both are optional; what is
 * wrong in them is a warning in the source (one line, the file named) and
 * that part is ignored, never an error: placement works without it.
 * Figures found here replace what hwloc read from the same files.
 */
#include "vn-topology-source-private.h"
#include "vn-cpulist.h"

#include <inttypes.h>
#include <stdio.h>

static const struct {
    const gchar *file;
    VnAccessKind kind;
} access_files[] = {
    { "read_latency", VN_ACCESS_READ_LATENCY },
    { "write_latency", VN_ACCESS_WRITE_LATENCY },
    { "read_bandwidth", VN_ACCESS_READ_BANDWIDTH },
    { "write_bandwidth", VN_ACCESS_WRITE_BANDWIDTH },
};

static void
warn(VnTopology *t, const gchar *what, const gchar *path, const gchar *why)
{
    g_autofree gchar *note = g_strdup_printf("warning: %s ignored: %s: %s", what, path, why);

    vn_topology_add_source_note(t, note);
}

/* ---- memory tiers ---- */

/* kernel_tier of every node listed; FALSE (nothing set) with the reason
 * when a tier directory is unusable. */
static gboolean
read_tiers(VnTopology *t, const gchar *dir, gchar **ret_path, gchar **ret_why)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autofree gint *tier = g_new(gint, MAX(t->n_nodes, 1));
    const gchar *name;

    for (guint i = 0; i < t->n_nodes; i++)
        tier[i] = -1;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree gchar *path = NULL, *text = NULL;
        g_autoptr(VnBitmap) nodes = NULL;
        g_autoptr(GError) local = NULL;
        guint n;
        char rest;

        if (sscanf(name, "memory_tier%u%c", &n, &rest) != 1 || n > G_MAXINT32)
            continue;
        path = g_build_filename(dir, name, "nodelist", NULL);
        if (!g_file_get_contents(path, &text, NULL, NULL)) {
            *ret_path = g_steal_pointer(&path);
            *ret_why = g_strdup("missing (a tier directory without its node list)");
            return FALSE;
        }
        if (!(nodes = vn_cpulist_parse(g_strstrip(text), 1u << 16, &local))) {
            *ret_path = g_steal_pointer(&path);
            *ret_why = g_strdup(local->message);
            return FALSE;
        }
        VN_BITMAP_FOREACH (nodes, os) {
            gint i = vn_topology_node_by_os_id(t, (guint)os);
            if (i < 0) {
                *ret_path = g_steal_pointer(&path);
                *ret_why = g_strdup_printf("node %d does not exist", os);
                return FALSE;
            }
            tier[i] = (gint)n;
        }
    }
    for (guint i = 0; i < t->n_nodes; i++)
        t->nodes[i].kernel_tier = tier[i];
    return TRUE;
}

static void
add_tiers(VnTopology *t, const gchar *sysroot)
{
    g_autofree gchar *dir =
        g_build_filename(sysroot, "sys", "devices", "virtual", "memory_tiering", NULL);
    g_autofree gchar *path = NULL, *why = NULL;

    if (g_file_test(dir, G_FILE_TEST_IS_DIR) && !read_tiers(t, dir, &path, &why))
        warn(t, "kernel memory tiers", path, why);
}

/* ---- HMAT figures ---- */

typedef struct {
    guint initiator, target;
    VnAccessKind kind;
    guint value;
} Figure;

static gboolean
read_number(const gchar *path, guint *ret, gchar **ret_why)
{
    g_autofree gchar *text = NULL;
    guint64 v;

    if (!g_file_get_contents(path, &text, NULL, NULL)) {
        *ret_why = g_strdup("unreadable");
        return FALSE;
    }
    if (!g_ascii_string_to_unsigned(g_strstrip(text), 10, 0, G_MAXUINT32, &v, NULL)) {
        *ret_why = g_strdup_printf("'%s' is not an unsigned number", text);
        return FALSE;
    }
    *ret = (guint)v;
    return TRUE;
}

/* One access<Z>/initiators directory of target node index `target`. */
static gboolean
read_initiators(VnTopology *t, guint target, const gchar *dir, GArray *figures, gchar **ret_path,
                gchar **ret_why)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    g_autoptr(GArray) from = g_array_new(FALSE, FALSE, sizeof(guint));
    guint value[VN_ACCESS_MAX] = { 0 };
    const gchar *name;

    while (d && (name = g_dir_read_name(d))) {
        guint os;
        char rest;
        gint i;

        if (sscanf(name, "node%u%c", &os, &rest) != 1)
            continue;
        if ((i = vn_topology_node_by_os_id(t, os)) < 0) {
            *ret_path = g_build_filename(dir, name, NULL);
            *ret_why = g_strdup_printf("initiator node %u does not exist", os);
            return FALSE;
        }
        g_array_append_val(from, i);
    }
    for (gsize k = 0; k < G_N_ELEMENTS(access_files); k++) {
        g_autofree gchar *path = g_build_filename(dir, access_files[k].file, NULL);
        if (g_file_test(path, G_FILE_TEST_EXISTS) &&
            !read_number(path, &value[access_files[k].kind], ret_why)) {
            *ret_path = g_steal_pointer(&path);
            return FALSE;
        }
    }
    for (guint f = 0; f < from->len; f++)
        for (guint k = 0; k < VN_ACCESS_MAX; k++)
            if (value[k]) {
                Figure fig = { g_array_index(from, guint, f), target, k, value[k] };
                g_array_append_val(figures, fig);
            }
    return TRUE;
}

static void
add_access(VnTopology *t, const gchar *sysroot)
{
    g_autoptr(GArray) figures = g_array_new(FALSE, FALSE, sizeof(Figure));
    g_autofree gchar *path = NULL, *why = NULL;

    for (guint i = 0; i < t->n_nodes; i++) {
        g_autofree gchar *node = g_strdup_printf("node%u", t->nodes[i].os_id);
        g_autofree gchar *access1 = g_build_filename(sysroot, "sys", "devices", "system", "node",
                                                     node, "access1", "initiators", NULL);
        g_autofree gchar *access0 = g_build_filename(sysroot, "sys", "devices", "system", "node",
                                                     node, "access0", "initiators", NULL);
        const gchar *dir = g_file_test(access1, G_FILE_TEST_IS_DIR)   ? access1
                           : g_file_test(access0, G_FILE_TEST_IS_DIR) ? access0
                                                                      : NULL;

        if (dir && !read_initiators(t, i, dir, figures, &path, &why)) {
            warn(t, "HMAT figures", path, why);
            return;
        }
    }
    if (figures->len == 0)
        return;
    if (t->access)
        g_array_set_size(t->access, 0);
    for (guint f = 0; f < figures->len; f++) {
        const Figure *fig = &g_array_index(figures, Figure, f);
        vn_topology_set_access(t, fig->initiator, fig->target, fig->kind, fig->value);
    }
}

/* ---- memory-side caches ---- */

/* The largest memory_side_cache/index<L>/size in `dir`, 0 when none. */
static gboolean
read_side_cache(const gchar *dir, guint64 *ret_kib, gchar **ret_path, gchar **ret_why)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;

    *ret_kib = 0;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree gchar *path = NULL, *text = NULL;
        guint64 bytes;

        if (!g_str_has_prefix(name, "index"))
            continue;
        path = g_build_filename(dir, name, "size", NULL);
        if (!g_file_get_contents(path, &text, NULL, NULL) ||
            !g_ascii_string_to_unsigned(g_strstrip(text), 10, 0, G_MAXINT64, &bytes, NULL)) {
            *ret_path = g_steal_pointer(&path);
            *ret_why = g_strdup("missing or not a number of bytes");
            return FALSE;
        }
        *ret_kib = MAX(*ret_kib, bytes / 1024);
    }
    return TRUE;
}

static void
add_side_caches(VnTopology *t, const gchar *sysroot)
{
    g_autofree guint64 *kib = g_new0(guint64, MAX(t->n_nodes, 1));

    for (guint i = 0; i < t->n_nodes; i++) {
        g_autofree gchar *node = g_strdup_printf("node%u", t->nodes[i].os_id);
        g_autofree gchar *dir = g_build_filename(sysroot, "sys", "devices", "system", "node", node,
                                                 "memory_side_cache", NULL);
        g_autofree gchar *path = NULL, *why = NULL;

        if (!read_side_cache(dir, &kib[i], &path, &why)) {
            warn(t, "memory-side caches", path, why);
            return;
        }
    }
    for (guint i = 0; i < t->n_nodes; i++)
        if (kib[i])
            t->nodes[i].mem_side_cache_kib = kib[i];
}

void
vn_topology_add_sysfs_tiers(VnTopology *t, const gchar *sysroot)
{
    g_return_if_fail(!t->finished);
    add_tiers(t, sysroot);
    add_access(t, sysroot);
    add_side_caches(t, sysroot);
}
