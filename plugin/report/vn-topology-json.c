/* vn-topology-json.c: VnTopology (+ VnLoad) -> JSON with json-glib. */
#include "vn-topology-json.h"

#include "vn-cpulist.h"
#include "vn-json-build.h"
#include "vn-placement-json.h"
#include "vn-size.h"

static void
add_hugepages(JsonBuilder *b, const VnNode *n)
{
    json_builder_set_member_name(b, "hugepages");
    json_builder_begin_array(b);
    for (guint h = 0; n->hugepages && h < n->hugepages->len; h++) {
        const VnHugepages *hp = &g_array_index(n->hugepages, VnHugepages, h);

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "size_kib");
        json_builder_add_int_value(b, (gint64)hp->size_kib);
        json_builder_set_member_name(b, "total");
        json_builder_add_int_value(b, (gint64)hp->total);
        json_builder_set_member_name(b, "free");
        json_builder_add_int_value(b, (gint64)hp->free);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void
add_load(JsonBuilder *b, const VnNodeLoad *l)
{
    json_builder_set_member_name(b, "load");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "committed_vcpus");
    json_builder_add_int_value(b, l ? l->committed_vcpus : 0);
    json_builder_set_member_name(b, "committed_memory_mib");
    json_builder_add_int_value(b, l ? (gint64)vn_size_kib_to_mib(l->committed_memory_kib) : 0);
    json_builder_set_member_name(b, "cpu_busy");
    /* four decimals: the measurement is not finer, and the JSON reads well */
    if (l && l->cpu_busy >= 0)
        json_builder_add_double_value(b, (gdouble)(gint64)(l->cpu_busy * 10000.0 + 0.5) / 10000.0);
    else
        json_builder_add_null_value(b);
    json_builder_end_object(b);
}

/* The node's identity and memory. */
static void
add_node_basics(JsonBuilder *b, const VnTopology *t, guint i)
{
    const VnNode *n = &t->nodes[i];
    g_autofree gchar *cpus = vn_cpulist_format(n->cpus);

    json_builder_set_member_name(b, "id");
    json_builder_add_int_value(b, n->os_id);
    json_builder_set_member_name(b, "cpus");
    json_builder_add_string_value(b, cpus);
    json_builder_set_member_name(b, "cpu_count");
    json_builder_add_int_value(b, vn_topology_node_ncpus(t, i));
    json_builder_set_member_name(b, "memory_total_mib");
    json_builder_add_int_value(b, (gint64)vn_size_kib_to_mib(n->mem_total_kib));
    json_builder_set_member_name(b, "memory_free_mib");
    if (n->mem_free_kib == G_MAXUINT64)
        json_builder_add_null_value(b);
    else
        json_builder_add_int_value(b, (gint64)vn_size_kib_to_mib(n->mem_free_kib));
    /* page cache and reclaimable slab: counted as available by placement */
    json_builder_set_member_name(b, "memory_reclaimable_mib");
    if (n->mem_free_kib == G_MAXUINT64)
        json_builder_add_null_value(b);
    else
        json_builder_add_int_value(b, (gint64)vn_size_kib_to_mib(n->mem_reclaimable_kib));
}

/* The node's cache domains, each with its CPUs and L3 size (null: unknown
 * or assumed). */
static void
add_domains(JsonBuilder *b, const VnTopology *t, guint i)
{
    const VnNode *n = &t->nodes[i];

    json_builder_set_member_name(b, "cache_domains");
    json_builder_begin_array(b);
    for (guint d = n->first_domain; d < n->first_domain + n->n_domains; d++) {
        g_autofree gchar *cpus = vn_cpulist_format(t->domains[d].cpus);

        json_builder_begin_object(b);
        json_builder_set_member_name(b, "id");
        json_builder_add_int_value(b, d);
        json_builder_set_member_name(b, "cpus");
        json_builder_add_string_value(b, cpus);
        json_builder_set_member_name(b, "cpu_count");
        json_builder_add_int_value(b, vn_bitmap_count(t->domains[d].cpus));
        json_builder_set_member_name(b, "l3_kib");
        if (t->domains[d].size_kib)
            json_builder_add_int_value(b, (gint64)t->domains[d].size_kib);
        else
            json_builder_add_null_value(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

/* The JSON names of the HMAT figures, in VnAccessKind order. */
static const gchar *const access_members[] = { "read_latency_ns", "write_latency_ns",
                                               "read_bandwidth_mibs", "write_bandwidth_mibs" };
G_STATIC_ASSERT(G_N_ELEMENTS(access_members) == VN_ACCESS_MAX);

/* The node's tier and, for each initiator the source publishes figures
 * from, its HMAT figures as this node's memory reaches it. */
static void
add_tier(JsonBuilder *b, const VnTopology *t, guint i)
{
    const VnNode *n = &t->nodes[i];

    vn_json_add_string(b, "tier", vn_memory_tier_to_string(n->tier));
    vn_json_add_string(b, "tier_reason", n->tier_reason);
    json_builder_set_member_name(b, "kernel_tier");
    if (n->kernel_tier >= 0)
        json_builder_add_int_value(b, n->kernel_tier);
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "memory_side_cache_mib");
    if (n->mem_side_cache_kib)
        json_builder_add_int_value(b, (gint64)vn_size_kib_to_mib(n->mem_side_cache_kib));
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "access");
    json_builder_begin_array(b);
    for (guint k = 0; t->access && k < t->access->len; k++) {
        const VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, k);

        if (a->target != i)
            continue;
        json_builder_begin_object(b);
        vn_json_add_int(b, "from_node", t->nodes[a->initiator].os_id);
        for (guint v = 0; v < VN_ACCESS_MAX; v++) {
            json_builder_set_member_name(b, access_members[v]);
            if (a->value[v])
                json_builder_add_int_value(b, a->value[v]);
            else
                json_builder_add_null_value(b);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void
add_node(JsonBuilder *b, const VnTopology *t, const VnLoad *load, guint i)
{
    const VnNode *n = &t->nodes[i];

    json_builder_begin_object(b);
    add_node_basics(b, t, i);
    json_builder_set_member_name(b, "memory_only");
    json_builder_add_boolean_value(b, vn_topology_node_is_memory_only(t, i));
    json_builder_set_member_name(b, "cpu_owner");
    if (n->cpu_owner >= 0)
        json_builder_add_int_value(b, t->nodes[n->cpu_owner].os_id);
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "subtype");
    if (n->subtype)
        json_builder_add_string_value(b, n->subtype);
    else
        json_builder_add_null_value(b);
    add_tier(b, t, i);
    add_hugepages(b, n);
    add_domains(b, t, i);
    add_load(b, load ? &load->nodes[i] : NULL);
    json_builder_end_object(b);
}

static void
add_distances(JsonBuilder *b, const VnTopology *t)
{
    json_builder_set_member_name(b, "distances");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_nodes; i++) {
        json_builder_begin_array(b);
        for (guint j = 0; j < t->n_nodes; j++)
            json_builder_add_int_value(b, vn_topology_distance(t, i, j));
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
}

GPtrArray *
vn_topology_notes(const VnTopology *t)
{
    GPtrArray *notes = g_ptr_array_new_with_free_func(g_free);

    if (t->distances_assumed)
        g_ptr_array_add(notes, g_strdup("no distances in the source: assumed 10 local, 20 remote"));
    if (t->domains_assumed)
        g_ptr_array_add(notes, g_strdup("no L3 caches in the source: one cache domain per node"));
    return notes;
}

JsonNode *
vn_topology_to_json(const VnTopology *t, const VnLoad *load)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(GPtrArray) notes = NULL;

    g_return_val_if_fail(t != NULL, NULL);
    notes = vn_topology_notes(t);
    g_return_val_if_fail(!load || load->n_nodes == t->n_nodes, NULL);

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "source");
    json_builder_add_string_value(b, t->source ? t->source : "");
    json_builder_set_member_name(b, "distances_assumed");
    json_builder_add_boolean_value(b, t->distances_assumed);
    json_builder_set_member_name(b, "cache_domains_assumed");
    json_builder_add_boolean_value(b, t->domains_assumed);
    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < t->n_nodes; i++)
        add_node(b, t, load, i);
    json_builder_end_array(b);
    add_distances(b, t);
    vn_json_add_strings(b, "notes", notes);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}
