/* vn-topology-cache.c: the topology cache file, in GVariant form. */
#include <string.h>
#include <glib/gstdio.h>
#include "vn-boot-id.h"
#include "vn-cpulist.h"
#include "vn-sealed.h"
#include "vn-topology-cache.h"

G_DEFINE_QUARK(vn-topology-cache-error-quark, vn_topology_cache_error);

#define CACHE_VERSION                                                                              \
    5 /* 1, 2: JSON; 3: no cache domains; 4: no tiers, no HMAT, no memory-side caches */

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

/* ---- the serialized form ----
 *
 * One GVariant of type CACHE_TYPE, sealed (vn-sealed.h), laid out flat (fixed-size rows that
 * g_variant_get_fixed_array() hands out as the C structs below, strings
 * in one blob by offset) so that reading it costs a few checks per node
 * and CPU: the hook reads it at every VM start, and the same topology as
 * JSON cost it 3.8 M instructions on 16 nodes and 256 CPUs.
 *   (key, source,
 *    nodes:     NodeRow rows,
 *    hugepages: HugepagesRow rows, each node's a run of them,
 *    cpus:      CpuRow rows,
 *    distances: n_nodes * n_nodes values, row-major (none when assumed),
 *    l3:        L3Row rows, the derived cache domains standing in for the
 *               source's L3 caches (each inside one node, so
 *               vn_topology_finish() derives them back unchanged); none
 *               when the source had none (domains_assumed),
 *    access:    AccessRow rows, the HMAT figures (tiers are derived again),
 *    strings:   NUL-terminated UTF-8 strings) */

#define CACHE_MAGIC "vnuma-topology-cache-" G_STRINGIFY(CACHE_VERSION)
#define NODE_TYPE "(tiuuuuit)"
#define HUGEPAGES_TYPE "(ttt)"
#define CPU_TYPE "(uiuu)"
#define L3_TYPE "(tuu)"
#define ACCESS_TYPE "(uuuuuu)"
#define CACHE_TYPE                                                                                 \
    "(ssa" NODE_TYPE "a" HUGEPAGES_TYPE "a" CPU_TYPE "aua" L3_TYPE "a" ACCESS_TYPE "ay)"
#define NO_STRING G_MAXUINT32

typedef struct {
    guint64 mem_total_kib;
    gint32 cpu_owner; /* node index, -1: none */
    guint32 os_id;
    guint32 subtype; /* offset into the strings, NO_STRING: none */
    guint32 first_hugepages, n_hugepages;
    gint32 kernel_tier; /* -1: unknown */
    guint64 mem_side_cache_kib;
} NodeRow;

typedef struct {
    guint64 size_kib, total, free;
} HugepagesRow;

typedef struct {
    guint32 os_id;
    gint32 node; /* node index, -1: none */
    guint32 core, package;
} CpuRow;

typedef struct {
    guint64 size_kib;
    guint32 cpus; /* offset into the strings: a cpulist */
    guint32 reserved;
} L3Row;

typedef struct {
    guint32 initiator, target; /* node indices */
    guint32 value[VN_ACCESS_MAX];
} AccessRow;

G_STATIC_ASSERT(sizeof(AccessRow) == 24);
G_STATIC_ASSERT(sizeof(L3Row) == 16);
G_STATIC_ASSERT(sizeof(NodeRow) == 40);
G_STATIC_ASSERT(sizeof(HugepagesRow) == 24);
G_STATIC_ASSERT(sizeof(CpuRow) == 16);

static GVariant *
fixed_array(const gchar *type, GArray *rows, gsize size)
{
    return g_variant_new_fixed_array(G_VARIANT_TYPE(type), rows->data, rows->len, size);
}

GBytes *
vn_topology_cache_to_bytes(const VnTopology *t, const gchar *key)
{
    g_autoptr(GArray) nodes = g_array_new(FALSE, TRUE, sizeof(NodeRow));
    g_autoptr(GArray) hugepages = g_array_new(FALSE, TRUE, sizeof(HugepagesRow));
    g_autoptr(GArray) cpus = g_array_new(FALSE, TRUE, sizeof(CpuRow));
    g_autoptr(GArray) distances = g_array_new(FALSE, TRUE, sizeof(guint32));
    g_autoptr(GArray) l3 = g_array_new(FALSE, TRUE, sizeof(L3Row));
    g_autoptr(GArray) access = g_array_new(FALSE, TRUE, sizeof(AccessRow));
    g_autoptr(GString) strings = g_string_new(NULL);

    g_return_val_if_fail(t != NULL && key != NULL, NULL);
    for (guint i = 0; i < t->n_nodes; i++) {
        const VnNode *n = &t->nodes[i];
        NodeRow row = { .mem_total_kib = n->mem_total_kib,
                        .cpu_owner = n->cpu_owner,
                        .os_id = n->os_id,
                        .subtype = NO_STRING,
                        .first_hugepages = hugepages->len,
                        .n_hugepages = n->hugepages ? n->hugepages->len : 0,
                        .kernel_tier = n->kernel_tier,
                        .mem_side_cache_kib = n->mem_side_cache_kib };
        if (n->subtype) {
            row.subtype = vn_sealed_strings_add(strings, n->subtype);
        }
        for (guint h = 0; h < row.n_hugepages; h++) {
            const VnHugepages *hp = &g_array_index(n->hugepages, VnHugepages, h);
            HugepagesRow hr = { hp->size_kib, hp->total, hp->free };
            g_array_append_val(hugepages, hr);
        }
        g_array_append_val(nodes, row);
    }
    for (guint i = 0; i < t->cpus->len; i++) {
        const VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        CpuRow row = { c->os_id, c->node, c->core, c->package };
        g_array_append_val(cpus, row);
    }
    for (guint i = 0; !t->domains_assumed && i < t->n_domains; i++) {
        g_autofree gchar *list = vn_cpulist_format(t->domains[i].cpus);
        L3Row row = { .size_kib = t->domains[i].size_kib,
                      .cpus = vn_sealed_strings_add(strings, list) };
        g_array_append_val(l3, row);
    }
    for (guint i = 0; t->access && i < t->access->len; i++) {
        const VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, i);
        AccessRow row = { .initiator = a->initiator, .target = a->target };
        memcpy(row.value, a->value, sizeof(row.value));
        g_array_append_val(access, row);
    }
    for (guint i = 0; !t->distances_assumed && i < t->n_nodes * t->n_nodes; i++) {
        guint32 d = t->distance[i];
        g_array_append_val(distances, d);
    }
    GVariant *v = g_variant_new(
        "(ss@a" NODE_TYPE "@a" HUGEPAGES_TYPE "@a" CPU_TYPE "@au@a" L3_TYPE "@a" ACCESS_TYPE "@ay)",
        key, t->source ? t->source : "", fixed_array(NODE_TYPE, nodes, sizeof(NodeRow)),
        fixed_array(HUGEPAGES_TYPE, hugepages, sizeof(HugepagesRow)),
        fixed_array(CPU_TYPE, cpus, sizeof(CpuRow)), fixed_array("u", distances, sizeof(guint32)),
        fixed_array(L3_TYPE, l3, sizeof(L3Row)),
        fixed_array(ACCESS_TYPE, access, sizeof(AccessRow)),
        g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, strings->str, strings->len, 1));
    return vn_sealed_wrap(v, CACHE_MAGIC);
}

gboolean
vn_topology_cache_save(const VnTopology *t, const gchar *path, const gchar *key, GError **error)
{
    g_autoptr(GBytes) bytes = vn_topology_cache_to_bytes(t, key);
    gsize len = 0;
    const gchar *data = g_bytes_get_data(bytes, &len);
    g_autoptr(GError) local = NULL;
    if (!g_file_set_contents_full(path, data, (gssize)len, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                  &local)) {
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

typedef struct {
    const NodeRow *nodes;
    const HugepagesRow *hugepages;
    const CpuRow *cpus;
    const guint32 *distances;
    const L3Row *l3;
    const AccessRow *access;
    const gchar *strings;
    gsize n_nodes, n_hugepages, n_cpus, n_distances, n_l3, n_access, n_strings;
} Rows;

/* Every value checked before vn_topology_add_*() sees it (their own
 * checks are criticals, not errors); vn_topology_finish() then checks the
 * whole as it checks a fresh import. */
static gboolean
read_rows(VnTopology *t, const Rows *r)
{
    for (gsize i = 0; i < r->n_nodes; i++) {
        const NodeRow *n = &r->nodes[i];
        if (n->cpu_owner < -1 || n->cpu_owner >= (gint64)r->n_nodes || n->kernel_tier < -1 ||
            n->mem_side_cache_kib > (guint64)G_MAXINT64 || n->first_hugepages > r->n_hugepages ||
            n->n_hugepages > r->n_hugepages - n->first_hugepages)
            return FALSE;
        const gchar *subtype = NULL;
        if (n->subtype != NO_STRING &&
            !(subtype = vn_sealed_strings_at(r->strings, r->n_strings, n->subtype)))
            return FALSE;
        guint idx = vn_topology_add_node(t, n->os_id, n->mem_total_kib);
        t->nodes[idx].cpu_owner = n->cpu_owner;
        t->nodes[idx].kernel_tier = n->kernel_tier;
        t->nodes[idx].mem_side_cache_kib = n->mem_side_cache_kib;
        t->nodes[idx].subtype = g_strdup(subtype);
        for (guint32 h = 0; h < n->n_hugepages; h++) {
            const HugepagesRow *hp = &r->hugepages[n->first_hugepages + h];
            if (hp->size_kib == 0 || hp->size_kib > (guint64)G_MAXINT64 ||
                hp->total > (guint64)G_MAXINT64 || hp->free > (guint64)G_MAXINT64)
                return FALSE;
            vn_topology_add_hugepages(t, idx, hp->size_kib, hp->total, hp->free);
        }
    }
    for (gsize i = 0; i < r->n_cpus; i++) {
        const CpuRow *c = &r->cpus[i];
        if (c->node < -1 || c->node >= (gint64)r->n_nodes || c->os_id > G_MAXINT32 ||
            c->core > G_MAXINT32 || c->package > G_MAXINT32)
            return FALSE;
        vn_topology_add_cpu(t, c->os_id, c->node, c->core, c->package);
    }
    for (gsize i = 0; i < r->n_l3; i++) {
        const gchar *text = vn_sealed_strings_at(r->strings, r->n_strings, r->l3[i].cpus);
        /* sized by the CPUs read before: a domain holds no other */
        g_autoptr(VnBitmap) cpus = text ? vn_cpulist_parse(text, MAX(t->n_cpu_ids, 1), NULL) : NULL;
        if (!cpus || r->l3[i].size_kib > (guint64)G_MAXINT64)
            return FALSE;
        vn_topology_add_l3(t, cpus, r->l3[i].size_kib);
    }
    for (gsize i = 0; i < r->n_access; i++) {
        const AccessRow *a = &r->access[i];
        if (a->initiator >= r->n_nodes || a->target >= r->n_nodes)
            return FALSE;
        for (guint k = 0; k < VN_ACCESS_MAX; k++)
            if (a->value[k])
                vn_topology_set_access(t, a->initiator, a->target, k, a->value[k]);
    }
    if (r->n_distances == 0)
        return TRUE;
    if (r->n_distances != r->n_nodes * r->n_nodes)
        return FALSE;
    for (gsize i = 0; i < r->n_nodes; i++)
        for (gsize j = 0; j < r->n_nodes; j++)
            vn_topology_set_distance(t, (guint)i, (guint)j, r->distances[i * r->n_nodes + j]);
    return TRUE;
}

VnTopology *
vn_topology_cache_from_bytes(GBytes *data, const gchar *what, const gchar *key, GError **error)
{
    g_autoptr(GVariant) v = NULL;
    g_autoptr(GVariant) v_nodes = NULL, v_hugepages = NULL, v_cpus = NULL;
    g_autoptr(GVariant) v_distances = NULL, v_l3 = NULL, v_access = NULL, v_strings = NULL;
    g_autoptr(GError) local = NULL;
    const gchar *cached_key, *source;
    Rows r;

    g_return_val_if_fail(data != NULL && what != NULL && key != NULL, NULL);
    v = vn_sealed_open(data, CACHE_MAGIC, G_VARIANT_TYPE(CACHE_TYPE));
    if (!v) {
        corrupt(error, what, "not a topology cache of this version, or damaged");
        return NULL;
    }
    g_variant_get(v,
                  "(&s&s@a" NODE_TYPE "@a" HUGEPAGES_TYPE "@a" CPU_TYPE "@au@a" L3_TYPE
                  "@a" ACCESS_TYPE "@ay)",
                  &cached_key, &source, &v_nodes, &v_hugepages, &v_cpus, &v_distances, &v_l3,
                  &v_access, &v_strings);
    if (strcmp(cached_key, key) != 0)
        return NULL; /* stale: another host shape */
    r.nodes = g_variant_get_fixed_array(v_nodes, &r.n_nodes, sizeof(NodeRow));
    r.hugepages = g_variant_get_fixed_array(v_hugepages, &r.n_hugepages, sizeof(HugepagesRow));
    r.cpus = g_variant_get_fixed_array(v_cpus, &r.n_cpus, sizeof(CpuRow));
    r.distances = g_variant_get_fixed_array(v_distances, &r.n_distances, sizeof(guint32));
    r.l3 = g_variant_get_fixed_array(v_l3, &r.n_l3, sizeof(L3Row));
    r.access = g_variant_get_fixed_array(v_access, &r.n_access, sizeof(AccessRow));
    r.strings = g_variant_get_fixed_array(v_strings, &r.n_strings, 1);
    g_autoptr(VnTopology) t = vn_topology_new(*source ? source : "topology cache");
    if (r.n_nodes > G_MAXUINT16 || r.n_cpus > G_MAXINT32 || !read_rows(t, &r)) {
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
    gchar *contents = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, &contents, &len, &local)) {
        if (!g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            g_set_error_literal(error, VN_TOPOLOGY_CACHE_ERROR, VN_TOPOLOGY_CACHE_ERROR_CORRUPT,
                                local->message);
        return NULL;
    }
    g_autoptr(GBytes) data = g_bytes_new_take(contents, len);
    return vn_topology_cache_from_bytes(data, path, key, error);
}
