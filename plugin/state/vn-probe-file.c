/* vn-probe-file.c: the saved probe (json-glib) and measured distances. */
#include "vn-probe-file.h"

#include <errno.h>
#include "vn-boot-id.h"
#include "vn-json-build.h"
#include "vn-json-parse.h"

G_DEFINE_QUARK(vn-probe-file-error-quark, vn_probe_file_error);

#define PROBE_VERSION 1

/* Whole ns and MB/s: finer than the walk measures; at least 1 where
 * measured, null where not. */
static void
add_matrix(JsonBuilder *b, const gchar *name, const gdouble *v, guint n)
{
    g_autofree gint64 *m = g_new(gint64, (gsize)n * n);

    for (guint i = 0; i < n * n; i++)
        m[i] = v[i] > 0 ? MAX((gint64)(v[i] + 0.5), 1) : 0;
    vn_json_add_matrix(b, name, m, n);
}

JsonNode *
vn_probe_file_to_json(const VnProbe *p, const VnTopology *t, const gchar *boot_id)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    g_return_val_if_fail(p && t && p->n_nodes == t->n_nodes, NULL);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "version");
    json_builder_add_int_value(b, PROBE_VERSION);
    json_builder_set_member_name(b, "boot_id");
    json_builder_add_string_value(b, boot_id ? boot_id : "");
    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_nodes; i++)
        json_builder_add_int_value(b, t->nodes[i].os_id);
    json_builder_end_array(b);
    add_matrix(b, "latency_ns", p->latency_ns, p->n_nodes);
    add_matrix(b, "bandwidth_mbs", p->bandwidth_mbs, p->n_nodes);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static gboolean
fail(GError **error, gint code, const gchar *what, const gchar *why)
{
    g_set_error(error, VN_PROBE_FILE_ERROR, code, "%s: %s", what, why);
    return FALSE;
}

/* A number (int or double) > 0, or -1 for null; -2 for anything else. */
static gdouble
number_at(JsonArray *a, guint i)
{
    JsonNode *n = a && i < json_array_get_length(a) ? json_array_get_element(a, i) : NULL;
    GType type = n && JSON_NODE_HOLDS_VALUE(n) ? json_node_get_value_type(n) : G_TYPE_INVALID;

    if (n && JSON_NODE_HOLDS_NULL(n))
        return -1;
    if (type == G_TYPE_INT64 || type == G_TYPE_DOUBLE) {
        gdouble v = json_node_get_double(n);
        return v > 0 ? v : -2;
    }
    return -2;
}

static JsonArray *
array_member(JsonObject *o, const gchar *name)
{
    JsonNode *n = json_object_get_member(o, name);
    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

/* Row i, column j of the file, whose nodes are `index` (file -> t). */
static gboolean
read_matrix(JsonObject *o, const gchar *name, const gint *index, guint n, gdouble *m)
{
    JsonArray *rows = array_member(o, name);

    if (!rows || json_array_get_length(rows) != n)
        return FALSE;
    for (guint i = 0; i < n; i++) {
        JsonNode *r = json_array_get_element(rows, i);
        JsonArray *row = JSON_NODE_HOLDS_ARRAY(r) ? json_node_get_array(r) : NULL;
        if (!row || json_array_get_length(row) != n)
            return FALSE;
        for (guint j = 0; j < n; j++) {
            gdouble v = number_at(row, j);
            if (v < -1.5)
                return FALSE;
            m[index[i] * n + index[j]] = v;
        }
    }
    return TRUE;
}

/* The file's node order as indices of `t`; NULL when the sets differ. */
static gint *
map_nodes(JsonArray *nodes, const VnTopology *t)
{
    g_autofree gint *index = g_new(gint, MAX(t->n_nodes, 1));
    g_autofree gboolean *seen = g_new0(gboolean, MAX(t->n_nodes, 1));

    if (!nodes || json_array_get_length(nodes) != t->n_nodes)
        return NULL;
    for (guint i = 0; i < t->n_nodes; i++) {
        JsonNode *e = json_array_get_element(nodes, i);
        gint k = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_INT64 &&
                         json_node_get_int(e) >= 0 && json_node_get_int(e) <= G_MAXINT
                     ? vn_topology_node_by_os_id(t, (guint)json_node_get_int(e))
                     : -1;
        if (k < 0 || seen[k])
            return NULL;
        seen[k] = TRUE;
        index[i] = k;
    }
    return g_steal_pointer(&index);
}

VnProbe *
vn_probe_file_from_json(JsonNode *root, const gchar *what, const VnTopology *t, gchar **ret_boot_id,
                        GError **error)
{
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    JsonNode *v = o ? json_object_get_member(o, "version") : NULL;
    JsonNode *boot = o ? json_object_get_member(o, "boot_id") : NULL;
    g_autofree gint *index = NULL;
    g_autoptr(VnProbe) p = vn_probe_new(t->n_nodes);

    if (!v || !JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_INT64 ||
        json_node_get_int(v) != PROBE_VERSION || !boot || !JSON_NODE_HOLDS_VALUE(boot) ||
        json_node_get_value_type(boot) != G_TYPE_STRING) {
        fail(error, VN_PROBE_FILE_ERROR_CORRUPT, what, "not a probe file of this version");
        return NULL;
    }
    if (!(index = map_nodes(array_member(o, "nodes"), t))) {
        fail(error, VN_PROBE_FILE_ERROR_MISMATCH, what,
             "measured on other nodes than this host has");
        return NULL;
    }
    if (!read_matrix(o, "latency_ns", index, t->n_nodes, p->latency_ns) ||
        !read_matrix(o, "bandwidth_mbs", index, t->n_nodes, p->bandwidth_mbs)) {
        fail(error, VN_PROBE_FILE_ERROR_CORRUPT, what, "malformed latency or bandwidth matrix");
        return NULL;
    }
    if (ret_boot_id)
        *ret_boot_id = g_strdup(json_node_get_string(boot));
    return g_steal_pointer(&p);
}

gboolean
vn_probe_file_save(const VnProbe *p, const VnTopology *t, const gchar *state_dir,
                   const gchar *sysroot, gchar **ret_path, GError **error)
{
    g_autofree gchar *boot = vn_boot_id_read(sysroot);
    g_autoptr(JsonNode) root = vn_probe_file_to_json(p, t, boot);
    g_autofree gchar *text = json_to_string(root, TRUE);
    g_autofree gchar *path = g_build_filename(state_dir, VN_PROBE_FILE, NULL);
    g_autoptr(GError) local = NULL;

    if (!*boot)
        return fail(error, VN_PROBE_FILE_ERROR_IO, sysroot,
                    "no proc/sys/kernel/random/boot_id: a saved probe must name its boot");
    if (g_mkdir_with_parents(state_dir, 0755) < 0 ||
        !g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &local))
        return fail(error, VN_PROBE_FILE_ERROR_IO, path,
                    local ? local->message : g_strerror(errno));
    if (ret_path)
        *ret_path = g_steal_pointer(&path);
    return TRUE;
}

/* The saved probe, or NULL with the reason it is not used. */
static VnProbe *
load_for_this_boot(const VnTopology *t, const gchar *path, const gchar *sysroot, gchar **ret_why)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) root = vn_json_parse_file(path, &error);
    g_autofree gchar *saved_boot = NULL, *boot = NULL;
    g_autoptr(VnProbe) p =
        root ? vn_probe_file_from_json(root, path, t, &saved_boot, &error) : NULL;

    if (!p) {
        *ret_why = g_error_matches(error, G_FILE_ERROR, G_FILE_ERROR_NOENT)
                       ? g_strdup_printf("no saved probe (%s; run vnumactl probe --save)", path)
                       : g_strdup(error->message);
        return NULL;
    }
    boot = vn_boot_id_read(sysroot);
    if (!*boot || !g_str_equal(boot, saved_boot)) {
        *ret_why = g_strdup_printf("%s is from another boot (boot id %s, now %s; run vnumactl "
                                   "probe --save again)",
                                   path, saved_boot, *boot ? boot : "unknown");
        return NULL;
    }
    return g_steal_pointer(&p);
}

gboolean
vn_probe_file_apply(VnTopology *t, const VnConfig *c, const gchar *sysroot)
{
    g_autofree gchar *path = NULL, *why = NULL;
    g_autoptr(VnProbe) p = NULL;
    g_autofree guint *d = NULL;
    guint n = t->n_nodes;

    if (c->distances != VN_DISTANCES_MEASURED)
        return FALSE;
    path = g_build_filename(c->state_dir, VN_PROBE_FILE, NULL);
    if (!(p = load_for_this_boot(t, path, sysroot, &why))) {
        g_autofree gchar *note =
            g_strdup_printf("warning: [topology] distances = measured ignored: %s", why);
        vn_topology_add_source_note(t, note);
        return FALSE;
    }
    d = vn_probe_distances(p);
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            if (d[i * n + j])
                t->distance[i * n + j] = i == j ? VN_DISTANCE_LOCAL : d[i * n + j];
    t->distances_assumed = FALSE;
    vn_topology_add_source_note(t, "distances measured by vnumactl probe");
    return TRUE;
}
