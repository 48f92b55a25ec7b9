/* vn-load-file.c: the `--load FILE` JSON reader (json-glib). */
#include "vn-load-file.h"

#include <json-glib/json-glib.h>
#include "vn-cpulist.h"
#include "vn-json-parse.h"

G_DEFINE_QUARK(vn-load-file-error-quark, vn_load_file_error);

static const gchar *const node_fields[] = {
    "id", "committed_vcpus", "committed_high_vcpus", "committed_memory_mib", "cpu_busy", NULL,
};
static const gchar *const top_fields[] = { "nodes", "dedicated_cpus", NULL };

static gboolean
invalid(GError **error, const gchar *path, const gchar *field, const gchar *what)
{
    g_set_error(error, VN_LOAD_FILE_ERROR, VN_LOAD_FILE_ERROR_INVALID, "%s: %s: %s", path, field,
                what);
    return FALSE;
}

/* A JSON integer in 0..max. */
static gboolean
get_uint(JsonNode *node, const gchar *path, const gchar *field, guint64 max, guint64 *ret_value,
         GError **error)
{
    gint64 v;

    if (!JSON_NODE_HOLDS_VALUE(node) || json_node_get_value_type(node) != G_TYPE_INT64)
        return invalid(error, path, field, "expected a whole number");
    v = json_node_get_int(node);
    if (v < 0)
        return invalid(error, path, field, "must not be negative");
    if ((guint64)v > max)
        return invalid(error, path, field, "value is absurdly large");
    *ret_value = (guint64)v;
    return TRUE;
}

/* A JSON number in 0..1. */
static gboolean
get_fraction(JsonNode *node, const gchar *path, const gchar *field, gdouble *ret_value,
             GError **error)
{
    GType type = JSON_NODE_HOLDS_VALUE(node) ? json_node_get_value_type(node) : G_TYPE_INVALID;
    gdouble v;

    if (type != G_TYPE_DOUBLE && type != G_TYPE_INT64)
        return invalid(error, path, field, "expected a number");
    v = type == G_TYPE_DOUBLE ? json_node_get_double(node) : (gdouble)json_node_get_int(node);
    if (!(v >= 0.0 && v <= 1.0))
        return invalid(error, path, field, "must be a fraction between 0 and 1");
    *ret_value = v;
    return TRUE;
}

static gboolean
check_members(JsonObject *obj, const gchar *const *known, const gchar *path, const gchar *prefix,
              GError **error)
{
    g_autoptr(GList) members = json_object_get_members(obj);

    for (GList *m = members; m; m = m->next) {
        if (!g_strv_contains(known, m->data)) {
            g_autofree gchar *name = vn_json_escape(m->data);
            g_autofree gchar *field = g_strdup_printf("%s%s", prefix, name);
            return invalid(error, path, field, "unknown field");
        }
    }
    return TRUE;
}

/* Finds the node index for the "id" member of nodes[n]. */
static gboolean
node_index(JsonObject *obj, const gchar *path, const gchar *where, const VnTopology *t,
           GHashTable *seen, guint *ret_index, GError **error)
{
    g_autofree gchar *field = g_strdup_printf("%s.id", where);
    JsonNode *id_node = json_object_get_member(obj, "id");
    guint64 id;
    gint index;

    if (!id_node)
        return invalid(error, path, where, "missing \"id\"");
    if (!get_uint(id_node, path, field, G_MAXUINT, &id, error))
        return FALSE;
    index = vn_topology_node_by_os_id(t, (guint)id);
    if (index < 0) {
        g_autofree gchar *what =
            g_strdup_printf("no node %" G_GUINT64_FORMAT " in this topology", id);
        return invalid(error, path, field, what);
    }
    if (!g_hash_table_add(seen, GINT_TO_POINTER(index))) {
        g_autofree gchar *what = g_strdup_printf("node %" G_GUINT64_FORMAT " listed twice", id);
        return invalid(error, path, field, what);
    }
    *ret_index = (guint)index;
    return TRUE;
}

/* Reads member `name` of nodes[n] if present; *ret_value keeps its value
 * when the member is absent. */
static gboolean
optional_uint(JsonObject *obj, const gchar *name, const gchar *path, const gchar *where,
              guint64 max, guint64 *ret_value, GError **error)
{
    JsonNode *member = json_object_get_member(obj, name);
    g_autofree gchar *field = g_strdup_printf("%s.%s", where, name);

    return !member || get_uint(member, path, field, max, ret_value, error);
}

static gboolean
read_node(JsonNode *node, guint n, const gchar *path, const VnTopology *t, GHashTable *seen,
          VnLoad *scratch, GError **error)
{
    g_autofree gchar *where = g_strdup_printf("nodes[%u]", n);
    g_autofree gchar *prefix = g_strdup_printf("%s.", where);
    guint64 vcpus = 0, high = 0, mib = 0;
    JsonObject *obj;
    JsonNode *busy;
    guint i;

    if (!JSON_NODE_HOLDS_OBJECT(node))
        return invalid(error, path, where, "expected an object");
    obj = json_node_get_object(node);
    if (!check_members(obj, node_fields, path, prefix, error) ||
        !node_index(obj, path, where, t, seen, &i, error) ||
        !optional_uint(obj, "committed_vcpus", path, where, VN_LOAD_FILE_MAX_VCPUS, &vcpus,
                       error) ||
        !optional_uint(obj, "committed_high_vcpus", path, where, VN_LOAD_FILE_MAX_VCPUS, &high,
                       error) ||
        !optional_uint(obj, "committed_memory_mib", path, where, VN_LOAD_FILE_MAX_MEMORY_MIB, &mib,
                       error))
        return FALSE;
    busy = json_object_get_member(obj, "cpu_busy");
    if (busy) {
        g_autofree gchar *field = g_strdup_printf("%s.cpu_busy", where);
        if (!get_fraction(busy, path, field, &scratch->nodes[i].cpu_busy, error))
            return FALSE;
    }
    scratch->nodes[i].committed_vcpus = (guint)vcpus;
    scratch->nodes[i].committed_high_vcpus = (guint)high;
    scratch->nodes[i].committed_memory_kib = mib * 1024;
    return TRUE;
}

static gboolean
read_nodes(JsonNode *nodes, const gchar *path, const VnTopology *t, VnLoad *scratch, GError **error)
{
    g_autoptr(GHashTable) seen = g_hash_table_new(g_direct_hash, g_direct_equal);
    JsonArray *array;

    if (!JSON_NODE_HOLDS_ARRAY(nodes))
        return invalid(error, path, "nodes", "expected an array");
    array = json_node_get_array(nodes);
    for (guint n = 0; n < json_array_get_length(array); n++)
        if (!read_node(json_array_get_element(array, n), n, path, t, seen, scratch, error))
            return FALSE;
    return TRUE;
}

static gboolean
read_dedicated(JsonNode *member, const gchar *path, const VnTopology *t, VnLoad *scratch,
               GError **error)
{
    g_autoptr(VnBitmap) cpus = NULL;
    g_autoptr(GError) local = NULL;

    if (!JSON_NODE_HOLDS_VALUE(member) || json_node_get_value_type(member) != G_TYPE_STRING)
        return invalid(error, path, "dedicated_cpus", "expected a cpulist string such as \"4-7\"");
    cpus = vn_cpulist_parse(json_node_get_string(member), t->n_cpu_ids, &local);
    if (!cpus)
        return invalid(error, path, "dedicated_cpus", local->message);
    VN_BITMAP_FOREACH (cpus, cpu) {
        if (!vn_topology_cpu(t, cpu)) {
            g_autofree gchar *what = g_strdup_printf("no CPU %d in this topology", cpu);
            return invalid(error, path, "dedicated_cpus", what);
        }
    }
    vn_bitmap_or(scratch->dedicated_cpus, cpus);
    return TRUE;
}

static JsonNode *
load_json(const gchar *path, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = vn_json_parse_file(path, &local);

    if (!root) {
        /* vn_json_parse_file()'s message names the file */
        g_set_error_literal(error, VN_LOAD_FILE_ERROR, VN_LOAD_FILE_ERROR_READ, local->message);
        return NULL;
    }
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, VN_LOAD_FILE_ERROR, VN_LOAD_FILE_ERROR_INVALID,
                    "%s: expected a JSON object {\"nodes\": [...]}", path);
        return NULL;
    }
    return g_steal_pointer(&root);
}

static void
merge(VnLoad *load, const VnLoad *scratch)
{
    for (guint i = 0; i < load->n_nodes; i++) {
        const VnNodeLoad *s = &scratch->nodes[i];

        load->nodes[i].committed_vcpus += s->committed_vcpus;
        load->nodes[i].committed_high_vcpus += s->committed_high_vcpus;
        load->nodes[i].committed_memory_kib += s->committed_memory_kib;
        if (s->cpu_busy >= 0)
            load->nodes[i].cpu_busy = s->cpu_busy;
    }
    vn_bitmap_or(load->dedicated_cpus, scratch->dedicated_cpus);
}

gboolean
vn_load_read_file(const gchar *path, const VnTopology *t, VnLoad *load, GError **error)
{
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(VnLoad) scratch = NULL;
    JsonObject *obj;
    JsonNode *member;

    g_return_val_if_fail(path && t && load && load->n_nodes == t->n_nodes, FALSE);

    root = load_json(path, error);
    if (!root)
        return FALSE;
    obj = json_node_get_object(root);
    scratch = vn_load_new(t);
    if (!check_members(obj, top_fields, path, "", error))
        return FALSE;
    if ((member = json_object_get_member(obj, "nodes")) &&
        !read_nodes(member, path, t, scratch, error))
        return FALSE;
    if ((member = json_object_get_member(obj, "dedicated_cpus")) &&
        !read_dedicated(member, path, t, scratch, error))
        return FALSE;
    merge(load, scratch);
    return TRUE;
}
