/* vn-topology-sysfs-nodes.c: NUMA nodes hwloc does not show.
 *
 * hwloc 2.9 makes no NUMANode object for a node that has CPUs but no
 * memory (seen on the emulated host's "mixed" layout: the CPUs sit in a
 * Group without a node), while the kernel lists it under
 * /sys/devices/system/node.  The live host's topology takes such nodes from
 * sysfs: the node, its CPUs (nodeN/cpulist) and, since hwloc's matrix then
 * misses a row, the whole distance matrix (nodeN/distance: one value per
 * node in the "online" list, in order).
 */
#include "vn-topology-source-private.h"
#include "vn-cpulist.h"

static gchar *
sysfs_node_path(const gchar *sysroot, guint os_id, const gchar *file)
{
    g_autofree gchar *name = g_strdup_printf("node%u", os_id);

    return g_build_filename(sysroot, "sys", "devices", "system", "node", name, file, NULL);
}

static gboolean
read_text(const gchar *path, gchar **ret, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, ret, NULL, &local)) {
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                            local->message);
        return FALSE;
    }
    g_strstrip(*ret);
    return TRUE;
}

/* The kernel's list of online nodes, a cpulist-format string. */
static VnBitmap *
online_nodes(const gchar *sysroot, GError **error)
{
    g_autofree gchar *path =
        g_build_filename(sysroot, "sys", "devices", "system", "node", "online", NULL);
    g_autofree gchar *text = NULL;

    if (!read_text(path, &text, error))
        return NULL;
    return vn_cpulist_parse(text, 4096, error);
}

/* Every node's distance row from sysfs, in the order of `online`. */
static gboolean
set_sysfs_distances(VnTopology *t, const gchar *sysroot, const VnBitmap *online, GError **error)
{
    VN_BITMAP_FOREACH (online, from) {
        g_autofree gchar *path = sysfs_node_path(sysroot, (guint)from, "distance");
        g_autofree gchar *text = NULL;
        g_auto(GStrv) values = NULL;
        guint k = 0;

        if (!read_text(path, &text, error))
            return FALSE;
        values = g_strsplit_set(text, " \t", -1);
        VN_BITMAP_FOREACH (online, to) {
            guint64 v;
            while (values[k] && !*values[k])
                k++;
            if (!values[k] || !g_ascii_string_to_unsigned(values[k], 10, 1, 10000, &v, NULL)) {
                g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                            "%s: expected a distance for node %d", path, to);
                return FALSE;
            }
            k++;
            vn_topology_set_distance(t, (guint)vn_topology_node_by_os_id(t, (guint)from),
                                     (guint)vn_topology_node_by_os_id(t, (guint)to), (guint)v);
        }
    }
    return TRUE;
}

/* Adds the nodes of `online` that `t` lacks, with their CPUs.  The
 * matrix from hwloc has no row for them: it is dropped here (nodes cannot
 * be added to a topology with distances) and replaced by the caller. */
static gboolean
add_missing_nodes(VnTopology *t, const gchar *sysroot, const VnBitmap *online, guint *ret_added,
                  GError **error)
{
    *ret_added = 0;
    VN_BITMAP_FOREACH (online, os) {
        g_autofree gchar *path = NULL;
        g_autofree gchar *text = NULL;
        g_autoptr(VnBitmap) cpus = NULL;
        guint index;

        if (vn_topology_node_by_os_id(t, (guint)os) >= 0)
            continue;
        path = sysfs_node_path(sysroot, (guint)os, "cpulist");
        if (!read_text(path, &text, error) ||
            !(cpus = vn_cpulist_parse(text, t->n_cpu_ids, error))) {
            g_prefix_error(error, "%s: ", path);
            return FALSE;
        }
        /* memory figures come later from vn_topology_read_sysfs_memory() */
        g_clear_pointer(&t->distance, g_free);
        index = vn_topology_add_node(t, (guint)os, 0);
        for (guint i = 0; i < t->cpus->len; i++) {
            VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
            if (vn_bitmap_test(cpus, c->os_id))
                c->node = (gint)index;
        }
        (*ret_added)++;
    }
    return TRUE;
}

gboolean
vn_topology_add_sysfs_nodes(VnTopology *t, const gchar *sysroot, GError **error)
{
    g_autoptr(VnBitmap) online = NULL;
    guint added = 0;

    g_return_val_if_fail(!t->finished, FALSE);
    if (!(online = online_nodes(sysroot, error)) ||
        !add_missing_nodes(t, sysroot, online, &added, error))
        return FALSE;
    if (added == 0)
        return TRUE;
    /* hwloc's matrix had no row for them: take the kernel's whole matrix */
    return set_sysfs_distances(t, sysroot, online, error);
}
