/* vn-topology.c: building and reading the topology value. */
#include "vn-topology.h"
#include "vn-topology-private.h"

#include <string.h>

G_DEFINE_QUARK(vn-topology-error-quark, vn_topology_error);

VnTopology *
vn_topology_new(const gchar *source)
{
    VnTopology *t = g_new0(VnTopology, 1);

    t->cpus = g_array_new(FALSE, TRUE, sizeof(VnCpu));
    t->source = g_strdup(source ? source : "unknown");
    return t;
}

void
vn_topology_free(VnTopology *t)
{
    if (!t)
        return;
    for (guint i = 0; i < t->n_nodes; i++) {
        vn_bitmap_free(t->nodes[i].cpus);
        g_free(t->nodes[i].subtype);
        g_free(t->nodes[i].tier_reason);
        g_clear_pointer(&t->nodes[i].hugepages, g_array_unref);
    }
    g_free(t->nodes);
    for (guint i = 0; i < t->n_domains; i++)
        vn_bitmap_free(t->domains[i].cpus);
    g_free(t->domains);
    if (t->l3)
        for (guint i = 0; i < t->l3->len; i++)
            vn_bitmap_free(g_array_index(t->l3, VnCacheDomain, i).cpus);
    g_clear_pointer(&t->l3, g_array_unref);
    g_array_unref(t->cpus);
    g_clear_pointer(&t->access, g_array_unref);
    g_free(t->distance);
    g_free(t->cpu_index);
    g_free(t->source);
    g_free(t);
}

guint
vn_topology_add_node(VnTopology *t, guint os_id, guint64 mem_total_kib)
{
    VnNode *n;

    g_return_val_if_fail(!t->finished && t->distance == NULL, 0);
    t->nodes = g_renew(VnNode, t->nodes, t->n_nodes + 1);
    n = &t->nodes[t->n_nodes];
    memset(n, 0, sizeof(*n));
    n->os_id = os_id;
    n->mem_total_kib = mem_total_kib;
    n->mem_free_kib = G_MAXUINT64;
    n->cpu_owner = -1;
    n->kernel_tier = -1;
    n->hugepages = g_array_new(FALSE, TRUE, sizeof(VnHugepages));
    return t->n_nodes++;
}

void
vn_topology_add_cpu(VnTopology *t, guint os_id, gint node_index, guint core, guint package)
{
    VnCpu c = {
        .os_id = os_id, .node = node_index, .core = core, .package = package, .domain = -1
    };

    g_return_if_fail(!t->finished);
    g_return_if_fail(node_index < (gint)t->n_nodes);
    g_array_append_val(t->cpus, c);
    t->n_cpu_ids = MAX(t->n_cpu_ids, os_id + 1);
}

static gint
hugepages_cmp(gconstpointer a, gconstpointer b)
{
    const VnHugepages *x = a, *y = b;
    return (x->size_kib > y->size_kib) - (x->size_kib < y->size_kib);
}

void
vn_topology_add_hugepages(VnTopology *t, guint node_index, guint64 size_kib, guint64 total,
                          guint64 free)
{
    VnHugepages h = { .size_kib = size_kib, .total = total, .free = MIN(free, total) };

    g_return_if_fail(node_index < t->n_nodes);
    g_array_append_val(t->nodes[node_index].hugepages, h);
    g_array_sort(t->nodes[node_index].hugepages, hugepages_cmp);
}

void
vn_topology_add_l3(VnTopology *t, const VnBitmap *cpus, guint64 size_kib)
{
    VnCacheDomain c = { .cpus = vn_bitmap_copy(cpus), .size_kib = size_kib };

    g_return_if_fail(!t->finished && cpus != NULL);
    if (!t->l3)
        t->l3 = g_array_new(FALSE, TRUE, sizeof(VnCacheDomain));
    g_array_append_val(t->l3, c);
}

void
vn_topology_set_distance(VnTopology *t, guint from, guint to, guint value)
{
    g_return_if_fail(from < t->n_nodes && to < t->n_nodes);
    if (!t->distance)
        t->distance = g_new0(guint, (gsize)t->n_nodes * t->n_nodes);
    t->distance[from * t->n_nodes + to] = value;
}

static gint
cpu_cmp(gconstpointer a, gconstpointer b)
{
    const VnCpu *x = a, *y = b;
    return (x->os_id > y->os_id) - (x->os_id < y->os_id);
}

static gboolean
finish_distances(VnTopology *t, GError **error)
{
    guint n = t->n_nodes;

    if (!t->distance) {
        t->distance = g_new0(guint, (gsize)n * n);
        /* one node has nothing remote to assume */
        t->distances_assumed = n > 1;
        for (guint i = 0; i < n; i++)
            for (guint j = 0; j < n; j++)
                t->distance[i * n + j] = i == j ? VN_DISTANCE_LOCAL : VN_DISTANCE_REMOTE_DEFAULT;
        return TRUE;
    }
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++) {
            guint d = t->distance[i * n + j];
            if (d == 0 || d > 10000 || (i != j && d < t->distance[i * n + i])) {
                g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID,
                            "%s: distance from node %u to node %u is %u, not a valid SLIT value",
                            t->source, t->nodes[i].os_id, t->nodes[j].os_id, d);
                return FALSE;
            }
        }
    return TRUE;
}

/* Nodes that share one CPU set (DRAM + HBM behind one package): the first
 * node with CPUs keeps them, the others point at it and hold none. */
static void
finish_shared_cpus(VnTopology *t)
{
    for (guint i = 0; i < t->n_nodes; i++) {
        if (vn_bitmap_is_empty(t->nodes[i].cpus))
            continue;
        for (guint j = 0; j < i; j++) {
            if (t->nodes[j].cpu_owner < 0 && vn_bitmap_equal(t->nodes[i].cpus, t->nodes[j].cpus)) {
                t->nodes[i].cpu_owner = (gint)j;
                vn_bitmap_clear_all(t->nodes[i].cpus);
                break;
            }
        }
    }
}

static gint
node_os_cmp(gconstpointer a, gconstpointer b, gpointer topology)
{
    const VnTopology *t = topology;
    guint x = t->nodes[*(const guint *)a].os_id, y = t->nodes[*(const guint *)b].os_id;
    return (x > y) - (x < y);
}

/* Node indices follow the kernel's node numbers (hwloc's logical order may
 * not: 0,1,6,7,2,... on some AMD hosts), so every listing reads in node
 * order.  Builders index nodes in their own order; this renumbers the
 * nodes, the CPUs' nodes, the CPU owners and the distance matrix. */
static void
sort_nodes(VnTopology *t)
{
    guint n = t->n_nodes;
    g_autofree guint *order = g_new(guint, n);
    g_autofree guint *new_index = g_new(guint, n);
    g_autofree VnNode *nodes = g_new(VnNode, n);
    g_autofree guint *dist = NULL;

    for (guint i = 0; i < n; i++)
        order[i] = i;
    g_qsort_with_data(order, (gint)n, sizeof(guint), node_os_cmp, t);
    for (guint i = 0; i < n; i++) {
        new_index[order[i]] = i;
        nodes[i] = t->nodes[order[i]];
    }
    for (guint i = 0; i < n; i++)
        if (nodes[i].cpu_owner >= 0)
            nodes[i].cpu_owner = (gint)new_index[nodes[i].cpu_owner];
    memcpy(t->nodes, nodes, n * sizeof(VnNode));
    for (guint i = 0; i < t->cpus->len; i++) {
        VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        if (c->node >= 0)
            c->node = (gint)new_index[c->node];
    }
    for (guint i = 0; t->access && i < t->access->len; i++) {
        VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, i);
        a->initiator = new_index[a->initiator];
        a->target = new_index[a->target];
    }
    if (!t->distance)
        return;
    dist = g_new(guint, (gsize)n * n);
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            dist[new_index[i] * n + new_index[j]] = t->distance[i * n + j];
    memcpy(t->distance, dist, (gsize)n * n * sizeof(guint));
}

/* Which L3 each CPU is under (-1: none); FALSE when a CPU is under two. */
static gboolean
map_l3(VnTopology *t, gint *ret_l3, GError **error)
{
    for (guint i = 0; i < t->n_cpu_ids; i++)
        ret_l3[i] = -1;
    for (guint b = 0; t->l3 && b < t->l3->len; b++) {
        VN_BITMAP_FOREACH (g_array_index(t->l3, VnCacheDomain, b).cpus, cpu) {
            if ((guint)cpu >= t->n_cpu_ids || t->cpu_index[cpu] < 0)
                continue;
            if (ret_l3[cpu] >= 0) {
                g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID,
                            "%s: CPU %d is under two L3 caches", t->source, cpu);
                return FALSE;
            }
            ret_l3[cpu] = (gint)b;
        }
    }
    return TRUE;
}

/* One domain per (node, L3) pair with CPUs, plus one for a node's CPUs
 * under no L3; in node order, then by first CPU (the order CPUs come in). */
static void
add_node_domains(VnTopology *t, guint node, const gint *l3, GArray *domains, gint *l3_domain)
{
    gint none = -1; /* the domain of this node's CPUs under no L3 */

    t->nodes[node].first_domain = domains->len;
    VN_BITMAP_FOREACH (t->nodes[node].cpus, cpu) {
        gint *slot = l3[cpu] >= 0 ? &l3_domain[l3[cpu]] : &none;
        if (*slot < 0 || g_array_index(domains, VnCacheDomain, *slot).node != node) {
            VnCacheDomain d = {
                .node = node,
                .cpus = vn_bitmap_new(t->n_cpu_ids),
                .size_kib =
                    l3[cpu] >= 0 ? g_array_index(t->l3, VnCacheDomain, l3[cpu]).size_kib : 0,
            };
            *slot = (gint)domains->len;
            g_array_append_val(domains, d);
        }
        vn_bitmap_set(g_array_index(domains, VnCacheDomain, *slot).cpus, (guint)cpu);
        g_array_index(t->cpus, VnCpu, t->cpu_index[cpu]).domain = *slot;
    }
    t->nodes[node].n_domains = domains->len - t->nodes[node].first_domain;
}

static gboolean
finish_domains(VnTopology *t, GError **error)
{
    guint n_l3 = t->l3 ? t->l3->len : 0;
    g_autofree gint *l3 = g_new(gint, MAX(t->n_cpu_ids, 1));
    g_autofree gint *l3_domain = g_new(gint, MAX(n_l3, 1));
    GArray *domains;

    if (!map_l3(t, l3, error))
        return FALSE;
    for (guint b = 0; b < n_l3; b++)
        l3_domain[b] = -1;
    domains = g_array_new(FALSE, TRUE, sizeof(VnCacheDomain));
    for (guint i = 0; i < t->n_nodes; i++)
        add_node_domains(t, i, l3, domains, l3_domain);
    t->n_domains = domains->len;
    t->domains = (VnCacheDomain *)g_array_free(domains, FALSE);
    /* by what the L3s cover, not by how many were added, so that the
     * domains written back as L3s (the topology cache) derive the same */
    t->domains_assumed = TRUE;
    for (guint i = 0; i < t->n_cpu_ids; i++)
        if (l3[i] >= 0)
            t->domains_assumed = FALSE;
    return TRUE;
}

gboolean
vn_topology_finish(VnTopology *t, GError **error)
{
    GHashTable *cores;

    g_return_val_if_fail(!t->finished, FALSE);
    if (t->n_nodes == 0) {
        g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID, "%s: no NUMA node found",
                    t->source);
        return FALSE;
    }
    for (guint i = 0; i < t->n_nodes; i++)
        for (guint j = i + 1; j < t->n_nodes; j++)
            if (t->nodes[i].os_id == t->nodes[j].os_id) {
                g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID,
                            "%s: node %u appears twice", t->source, t->nodes[i].os_id);
                return FALSE;
            }
    /* before sizing the per-id tables by the largest id */
    for (guint i = 0; i < t->cpus->len; i++) {
        guint id = g_array_index(t->cpus, VnCpu, i).os_id;
        if (id >= VN_TOPOLOGY_MAX_CPU_ID) {
            g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID,
                        "%s: CPU id %u is not below %u (a CPU without an OS index?)", t->source, id,
                        VN_TOPOLOGY_MAX_CPU_ID);
            return FALSE;
        }
    }
    sort_nodes(t);
    vn_topology_finish_access(t);
    if (!finish_distances(t, error))
        return FALSE;

    g_array_sort(t->cpus, cpu_cmp);
    t->cpu_index = g_new(gint, MAX(t->n_cpu_ids, 1));
    for (guint i = 0; i < t->n_cpu_ids; i++)
        t->cpu_index[i] = -1;
    for (guint i = 0; i < t->n_nodes; i++)
        t->nodes[i].cpus = vn_bitmap_new(t->n_cpu_ids);

    cores = g_hash_table_new(g_direct_hash, g_direct_equal);
    for (guint i = 0; i < t->cpus->len; i++) {
        VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        guint n;

        if (t->cpu_index[c->os_id] >= 0) {
            g_hash_table_unref(cores);
            g_set_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID,
                        "%s: CPU %u appears twice", t->source, c->os_id);
            return FALSE;
        }
        t->cpu_index[c->os_id] = (gint)i;
        if (c->node >= 0)
            vn_bitmap_set(t->nodes[c->node].cpus, c->os_id);
        n = GPOINTER_TO_UINT(g_hash_table_lookup(cores, GUINT_TO_POINTER(c->core))) + 1;
        g_hash_table_insert(cores, GUINT_TO_POINTER(c->core), GUINT_TO_POINTER(n));
        t->smt_width = MAX(t->smt_width, n);
    }
    g_hash_table_unref(cores);
    t->smt_width = MAX(t->smt_width, 1);
    finish_shared_cpus(t);
    if (!finish_domains(t, error))
        return FALSE;
    vn_topology_finish_tiers(t);
    t->finished = TRUE;
    return TRUE;
}

void
vn_topology_add_source_note(VnTopology *t, const gchar *note)
{
    g_autofree gchar *old = g_steal_pointer(&t->source);

    t->source = g_strdup_printf("%s; %s", old, note);
}

gint
vn_topology_node_by_os_id(const VnTopology *t, guint os_id)
{
    for (guint i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].os_id == os_id)
            return (gint)i;
    return -1;
}

const VnCpu *
vn_topology_cpu(const VnTopology *t, guint os_id)
{
    if (os_id >= t->n_cpu_ids || t->cpu_index[os_id] < 0)
        return NULL;
    return &g_array_index(t->cpus, VnCpu, t->cpu_index[os_id]);
}

guint
vn_topology_node_ncpus(const VnTopology *t, guint i)
{
    return vn_bitmap_count(t->nodes[i].cpus);
}

gboolean
vn_topology_node_is_memory_only(const VnTopology *t, guint i)
{
    return vn_bitmap_is_empty(t->nodes[i].cpus) && t->nodes[i].mem_total_kib > 0;
}

guint64
vn_topology_node_available_kib(const VnTopology *t, guint i)
{
    const VnNode *n = &t->nodes[i];

    if (n->mem_free_kib == G_MAXUINT64)
        return G_MAXUINT64;
    return MIN(n->mem_total_kib, n->mem_free_kib + n->mem_reclaimable_kib);
}

const VnCacheDomain *
vn_topology_cpu_domain(const VnTopology *t, guint os_id)
{
    const VnCpu *c = vn_topology_cpu(t, os_id);

    return c && c->domain >= 0 ? &t->domains[c->domain] : NULL;
}
