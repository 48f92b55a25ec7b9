/* vn-topology-cache.c: topology cache file (json-glib). */
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "vn-boot-id.h"
#include "vn-cpulist.h"
#include "vn-json-parse.h"
#include "vn-topology-cache.h"

G_DEFINE_QUARK(vn-topology-cache-error-quark, vn_topology_cache_error);

#define CACHE_VERSION 3 /* 1: an array per CPU; 2: no cache domains */

/* First line of a file, trimmed; "" when unreadable. */
static gchar *
first_line(const gchar *path)
{
    g_autofree gchar *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return g_strdup("");
    gchar *nl = strchr(text, '\n');
    if (nl)
        *nl = '\0';
    return g_strdup(g_strstrip(text));
}

/* "Cpus_allowed_list:\t0-3" from /proc/self/status. */
static gchar *
self_status(const gchar *field)
{
    g_autofree gchar *text = NULL;
    if (!g_file_get_contents("/proc/self/status", &text, NULL, NULL))
        return g_strdup("");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++)
        if (g_str_has_prefix(lines[i], field))
            return g_strdup(g_strstrip(lines[i] + strlen(field)));
    return g_strdup("");
}

gchar *
vn_topology_cache_key(const gchar *topology_file)
{
    if (topology_file) {
        GStatBuf st;
        if (g_stat(topology_file, &st) < 0)
            return NULL;
        return g_strdup_printf("file:%s:%lld:%lld", topology_file, (long long)st.st_size,
                               (long long)st.st_mtime);
    }
    g_autofree gchar *boot = vn_boot_id_read("/");
    if (!*boot)
        return NULL;
    g_autofree gchar *cpus = first_line("/sys/devices/system/cpu/online");
    g_autofree gchar *nodes = first_line("/sys/devices/system/node/online");
    g_autofree gchar *allowed = self_status("Cpus_allowed_list:");
    g_autofree gchar *mems = self_status("Mems_allowed_list:");
    return g_strdup_printf("live:%s:%s:%s:%s:%s", boot, cpus, nodes, allowed, mems);
}

/* ---- save ---- */

static void
add_uint(JsonBuilder *b, const gchar *name, guint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, (gint64)v);
}

static void
add_node(JsonBuilder *b, const VnNode *n)
{
    json_builder_begin_object(b);
    add_uint(b, "os_id", n->os_id);
    add_uint(b, "mem_total_kib", n->mem_total_kib);
    json_builder_set_member_name(b, "cpu_owner");
    json_builder_add_int_value(b, n->cpu_owner);
    json_builder_set_member_name(b, "subtype");
    if (n->subtype)
        json_builder_add_string_value(b, n->subtype);
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "hugepages");
    json_builder_begin_array(b);
    for (guint h = 0; n->hugepages && h < n->hugepages->len; h++) {
        const VnHugepages *hp = &g_array_index(n->hugepages, VnHugepages, h);
        json_builder_begin_array(b);
        json_builder_add_int_value(b, (gint64)hp->size_kib);
        json_builder_add_int_value(b, (gint64)hp->total);
        json_builder_add_int_value(b, (gint64)hp->free);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* The derived cache domains stand in for the source's L3 caches: each is
 * inside one node, so vn_topology_finish() derives them back unchanged.
 * null when the source had none (domains_assumed). */
static void
add_domains(JsonBuilder *b, const VnTopology *t)
{
    json_builder_set_member_name(b, "l3");
    if (t->domains_assumed) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_domains; i++) {
        g_autofree gchar *cpus = vn_cpulist_format(t->domains[i].cpus);
        json_builder_add_int_value(b, (gint64)t->domains[i].size_kib);
        json_builder_add_string_value(b, cpus);
    }
    json_builder_end_array(b);
}

static void
add_body(JsonBuilder *b, const VnTopology *t)
{
    add_domains(b, t);
    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_nodes; i++)
        add_node(b, &t->nodes[i]);
    json_builder_end_array(b);
    /* os_id, node, core, package of each CPU in one flat array: an array
     * per CPU cost the hook 1.1 M instructions more on 256 CPUs */
    json_builder_set_member_name(b, "cpus");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->cpus->len; i++) {
        const VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        json_builder_add_int_value(b, c->os_id);
        json_builder_add_int_value(b, c->node);
        json_builder_add_int_value(b, c->core);
        json_builder_add_int_value(b, c->package);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "distance"); /* row-major, or null */
    if (t->distances_assumed) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_nodes * t->n_nodes; i++)
        json_builder_add_int_value(b, t->distance[i]);
    json_builder_end_array(b);
}

JsonNode *
vn_topology_cache_to_json(const VnTopology *t, const gchar *key)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_return_val_if_fail(t != NULL && key != NULL, NULL);
    json_builder_begin_object(b);
    add_uint(b, "version", CACHE_VERSION);
    json_builder_set_member_name(b, "key");
    json_builder_add_string_value(b, key);
    json_builder_set_member_name(b, "source");
    json_builder_add_string_value(b, t->source);
    add_body(b, t);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

gboolean
vn_topology_cache_save(const VnTopology *t, const gchar *path, const gchar *key, GError **error)
{
    g_autoptr(JsonNode) root = vn_topology_cache_to_json(t, key);
    g_autofree gchar *text = json_to_string(root, FALSE);
    g_autoptr(GError) local = NULL;
    if (!g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, &local)) {
        g_set_error(error, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_IO,
                    "cannot write the topology cache: %s", local->message);
        return FALSE;
    }
    return TRUE;
}

/* ---- load ---- */

static gboolean
corrupt(GError **error, const gchar *path, const gchar *what)
{
    g_set_error(error, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT, "%s: %s", path,
                what);
    return FALSE;
}

/* Accessors that never trip json-glib's own checks (a critical would be
 * fatal under G_DEBUG=fatal-warnings): anything unexpected reads as -1 /
 * NULL and the caller reports a corrupt file. */
static gint64
int_node(JsonNode *n)
{
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_INT64
               ? json_node_get_int(n)
               : -1;
}

static gint64
int_at(JsonArray *a, guint i)
{
    return a && i < json_array_get_length(a) ? int_node(json_array_get_element(a, i)) : -1;
}

static gint64
int_member(JsonObject *o, const gchar *name)
{
    return int_node(json_object_get_member(o, name));
}

static JsonArray *
array_node(JsonNode *n)
{
    return n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;
}

static const gchar *
string_member(JsonObject *o, const gchar *name)
{
    JsonNode *n = json_object_get_member(o, name);
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == G_TYPE_STRING
               ? json_node_get_string(n)
               : NULL;
}

static gboolean
read_hugepages(VnTopology *t, guint idx, JsonArray *hp)
{
    for (guint h = 0; h < json_array_get_length(hp); h++) {
        JsonArray *e = array_node(json_array_get_element(hp, h));
        if (int_at(e, 0) <= 0 || int_at(e, 1) < 0 || int_at(e, 2) < 0)
            return FALSE;
        vn_topology_add_hugepages(t, idx, int_at(e, 0), int_at(e, 1), int_at(e, 2));
    }
    return TRUE;
}

static gboolean
read_nodes(VnTopology *t, JsonArray *nodes)
{
    for (guint i = 0; i < json_array_get_length(nodes); i++) {
        JsonNode *n = json_array_get_element(nodes, i);
        JsonObject *o = JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
        JsonArray *hp = o ? array_node(json_object_get_member(o, "hugepages")) : NULL;
        if (!o || !hp || int_member(o, "os_id") < 0 || int_member(o, "mem_total_kib") < 0)
            return FALSE;
        guint idx = vn_topology_add_node(t, (guint)int_member(o, "os_id"),
                                         (guint64)int_member(o, "mem_total_kib"));
        gint64 owner = int_member(o, "cpu_owner"); /* -1: none (or absent) */
        if (owner >= (gint64)json_array_get_length(nodes))
            return FALSE;
        t->nodes[idx].cpu_owner = (gint)owner;
        t->nodes[idx].subtype = g_strdup(string_member(o, "subtype"));
        if (!read_hugepages(t, idx, hp))
            return FALSE;
    }
    return TRUE;
}

/* "l3": [size_kib, "cpulist", ...] or null. */
static gboolean
read_l3(VnTopology *t, JsonObject *o)
{
    JsonNode *n = json_object_get_member(o, "l3");
    JsonArray *a = array_node(n);

    if (n && JSON_NODE_HOLDS_NULL(n))
        return TRUE;
    if (!a || json_array_get_length(a) % 2)
        return FALSE;
    for (guint i = 0; i < json_array_get_length(a); i += 2) {
        JsonNode *e = json_array_get_element(a, i + 1);
        const gchar *text = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING
                                ? json_node_get_string(e)
                                : NULL;
        /* sized by the CPUs read before: a domain holds no other */
        g_autoptr(VnBitmap) cpus = text ? vn_cpulist_parse(text, MAX(t->n_cpu_ids, 1), NULL) : NULL;
        if (int_at(a, i) < 0 || !cpus)
            return FALSE;
        vn_topology_add_l3(t, cpus, (guint64)int_at(a, i));
    }
    return TRUE;
}

static gboolean
read_cpus_and_distances(VnTopology *t, JsonObject *o)
{
    JsonArray *cpus = array_node(json_object_get_member(o, "cpus"));
    if (!cpus || json_array_get_length(cpus) % 4)
        return FALSE;
    for (guint i = 0; i < json_array_get_length(cpus); i += 4) {
        gint64 os_id = int_at(cpus, i), node = int_at(cpus, i + 1); /* -1: no node */
        gint64 core = int_at(cpus, i + 2), package = int_at(cpus, i + 3);
        if (os_id < 0 || node >= (gint64)t->n_nodes || core < 0 || package < 0)
            return FALSE;
        vn_topology_add_cpu(t, (guint)os_id, (gint)node, (guint)core, (guint)package);
    }
    JsonNode *d = json_object_get_member(o, "distance");
    if (!d || JSON_NODE_HOLDS_NULL(d))
        return TRUE;
    JsonArray *a = array_node(d);
    if (!a || json_array_get_length(a) != t->n_nodes * t->n_nodes)
        return FALSE;
    for (guint i = 0; i < t->n_nodes * t->n_nodes; i++)
        if (int_at(a, i) < 0)
            return FALSE;
    for (guint i = 0; i < t->n_nodes; i++)
        for (guint j = 0; j < t->n_nodes; j++)
            vn_topology_set_distance(t, i, j, (guint)int_at(a, i * t->n_nodes + j));
    return TRUE;
}

VnTopology *
vn_topology_cache_from_json(JsonNode *root, const gchar *what, const gchar *key, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_return_val_if_fail(what != NULL && key != NULL, NULL);
    JsonObject *o = root && JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    if (!o || int_member(o, "version") != CACHE_VERSION) {
        corrupt(error, what, "not a topology cache of this version");
        return NULL;
    }
    if (g_strcmp0(string_member(o, "key"), key) != 0)
        return NULL; /* stale: another host shape */
    JsonArray *nodes = array_node(json_object_get_member(o, "nodes"));
    const gchar *source = string_member(o, "source");
    g_autoptr(VnTopology) t = vn_topology_new(source ? source : "topology cache");
    if (!nodes || !read_nodes(t, nodes) || !read_cpus_and_distances(t, o) || !read_l3(t, o)) {
        corrupt(error, what, "malformed topology");
        return NULL;
    }
    if (!vn_topology_finish(t, &local)) {
        corrupt(error, what, local->message);
        return NULL;
    }
    return g_steal_pointer(&t);
}

VnTopology *
vn_topology_cache_load(const gchar *path, const gchar *key, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = vn_json_parse_file(path, &local);
    if (!root) {
        /* the message names the file already */
        if (!g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            g_set_error_literal(error, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT,
                                local->message);
        return NULL;
    }
    return vn_topology_cache_from_json(root, path, key, error);
}
