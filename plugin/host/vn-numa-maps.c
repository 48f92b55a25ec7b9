/* vn-numa-maps.c: /proc/<pid>/numa_maps, parsed per node. */
#include "vn-numa-maps.h"

#include <errno.h>
#include <string.h>

G_DEFINE_QUARK(vn-numa-maps-error-quark, vn_numa_maps_error);

#define MAX_NODE 4095

void
vn_numa_usage_free(VnNumaUsage *u)
{
    if (!u)
        return;
    g_free(u->node_kib);
    g_free(u);
}

guint64
vn_numa_usage_node_kib(const VnNumaUsage *u, guint node_os_id)
{
    return node_os_id < u->n_nodes ? u->node_kib[node_os_id] : 0;
}

gdouble
vn_numa_usage_locality(const VnNumaUsage *u, const GArray *nodes)
{
    guint64 local = 0;

    if (u->total_kib == 0)
        return -1.0;
    for (guint i = 0; i < nodes->len; i++)
        local += vn_numa_usage_node_kib(u, g_array_index(nodes, guint, i));
    return (gdouble)local / (gdouble)u->total_kib;
}

static gboolean
parse_fail(GError **error, const gchar *origin, guint line, const gchar *what)
{
    g_set_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_PARSE, "%s:%u: %s", origin, line,
                what);
    return FALSE;
}

/* One mapping: adds its pages per node into `pages` (GArray of guint64
 * KiB, grown as nodes appear). */
static gboolean
parse_line(const gchar *line, const gchar *origin, guint lineno, GArray *kib, GError **error)
{
    g_auto(GStrv) fields = g_strsplit(line, " ", -1);
    guint64 page_kib = 4, v;
    g_autoptr(GArray) pages = g_array_new(FALSE, TRUE, sizeof(guint64));

    if (!fields[0] || !g_ascii_string_to_unsigned(fields[0], 16, 0, G_MAXUINT64, &v, NULL))
        return parse_fail(error, origin, lineno, "not an address at the start of the line");
    for (guint i = 1; fields[i]; i++) {
        const gchar *f = fields[i];
        const gchar *eq = strchr(f, '=');
        if (g_str_has_prefix(f, "kernelpagesize_kB=")) {
            if (!g_ascii_string_to_unsigned(eq + 1, 10, 1, G_MAXUINT32, &page_kib, NULL))
                return parse_fail(error, origin, lineno, "bad kernelpagesize_kB");
        } else if (f[0] == 'N' && g_ascii_isdigit(f[1]) && eq) {
            g_autofree gchar *node_text = g_strndup(f + 1, (gsize)(eq - f - 1));
            guint64 node, n;
            if (!g_ascii_string_to_unsigned(node_text, 10, 0, MAX_NODE, &node, NULL) ||
                !g_ascii_string_to_unsigned(eq + 1, 10, 0, G_MAXUINT32, &n, NULL))
                return parse_fail(error, origin, lineno, "bad N<node>=<pages> field");
            if (node >= pages->len)
                g_array_set_size(pages, (guint)node + 1);
            g_array_index(pages, guint64, node) += n;
        }
    }
    /* the page size may come after the node counts on the line */
    if (pages->len > kib->len)
        g_array_set_size(kib, pages->len);
    for (guint n = 0; n < pages->len; n++)
        g_array_index(kib, guint64, n) += g_array_index(pages, guint64, n) * page_kib;
    return TRUE;
}

VnNumaUsage *
vn_numa_maps_parse(const gchar *text, const gchar *origin, GError **error)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GArray) kib = g_array_new(FALSE, TRUE, sizeof(guint64));
    VnNumaUsage *u;

    for (guint i = 0; lines[i]; i++) {
        if (lines[i][0] == '\0')
            continue;
        if (!parse_line(lines[i], origin, i + 1, kib, error))
            return NULL;
    }
    u = g_new0(VnNumaUsage, 1);
    u->n_nodes = kib->len;
    for (guint n = 0; n < kib->len; n++)
        u->total_kib += g_array_index(kib, guint64, n);
    u->node_kib = (guint64 *)g_array_free(g_steal_pointer(&kib), FALSE);
    return u;
}

static gchar *
under(const gchar *sysroot, const gchar *path)
{
    return g_build_filename(sysroot && *sysroot ? sysroot : "/", path, NULL);
}

static gboolean
read_text(const gchar *path, gchar **ret_text, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (g_file_get_contents(path, ret_text, NULL, &local))
        return TRUE;
    g_set_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ, "%s", local->message);
    return FALSE;
}

VnNumaUsage *
vn_numa_maps_read(const gchar *sysroot, gint64 pid, GError **error)
{
    g_autofree gchar *rel = g_strdup_printf("proc/%" G_GINT64_FORMAT "/numa_maps", pid);
    g_autofree gchar *path = under(sysroot, rel);
    g_autofree gchar *text = NULL;

    if (!read_text(path, &text, error))
        return NULL;
    return vn_numa_maps_parse(text, path, error);
}

gboolean
vn_numa_maps_domain_pid(const gchar *sysroot, const gchar *run_dir, const gchar *name,
                        gint64 *ret_pid, GError **error)
{
    g_autofree gchar *file = g_strconcat(name, ".pid", NULL);
    g_autofree gchar *rel = g_build_filename(run_dir, file, NULL);
    g_autofree gchar *path = under(sysroot, rel);
    g_autofree gchar *text = NULL;
    guint64 pid;

    if (strchr(name, '/')) {
        g_set_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ,
                    "domain name \"%s\" contains '/'", name);
        return FALSE;
    }
    if (!read_text(path, &text, error))
        return FALSE;
    g_strstrip(text);
    if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXINT32, &pid, NULL)) {
        g_set_error(error, VN_NUMA_MAPS_ERROR, VN_NUMA_MAPS_ERROR_READ, "%s: \"%s\" is not a pid",
                    path, text);
        return FALSE;
    }
    *ret_pid = (gint64)pid;
    return TRUE;
}
