/* vn-load.c: load and policy values. */
#include "vn-load.h"
#include "vn-names.h"

VnLoad *
vn_load_new(const VnTopology *t)
{
    VnLoad *l = g_new0(VnLoad, 1);

    l->n_nodes = t->n_nodes;
    l->nodes = g_new0(VnNodeLoad, MAX(t->n_nodes, 1));
    for (guint i = 0; i < t->n_nodes; i++)
        l->nodes[i].cpu_busy = -1.0;
    l->dedicated_cpus = vn_bitmap_new(t->n_cpu_ids);
    l->committed_hugepages = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    l->n_domains = t->n_domains;
    l->domain_vcpus = g_new0(gdouble, MAX(t->n_domains, 1));
    return l;
}

void
vn_load_add_domain_vcpus(VnLoad *l, const VnTopology *t, const VnBitmap *cpus, gdouble vcpus)
{
    guint n = vn_bitmap_count(cpus);

    if (n == 0)
        return;
    VN_BITMAP_FOREACH (cpus, cpu) {
        const VnCpu *c = vn_topology_cpu(t, (guint)cpu);
        gdouble *v;
        if (!c || c->domain < 0 || (guint)c->domain >= l->n_domains)
            continue;
        v = &l->domain_vcpus[c->domain];
        *v += vcpus / n;
        if (*v < 1e-9)
            *v = 0; /* what a release leaves of a commit */
    }
}

gboolean
vn_load_counts_domains(const VnTopology *t, const VnPolicy *policy)
{
    return policy->cache_domains != VN_CACHE_DOMAINS_OFF && t->n_domains > t->n_nodes;
}

void
vn_load_free(VnLoad *l)
{
    if (!l)
        return;
    g_free(l->nodes);
    g_free(l->domain_vcpus);
    vn_bitmap_free(l->dedicated_cpus);
    g_hash_table_unref(l->committed_hugepages);
    g_free(l);
}

static gchar *
hugepage_key(guint node_index, guint64 size_kib)
{
    return g_strdup_printf("%u:%" G_GUINT64_FORMAT, node_index, size_kib);
}

void
vn_load_add_hugepages(VnLoad *l, guint node_index, guint64 size_kib, guint64 pages)
{
    g_autofree gchar *key = hugepage_key(node_index, size_kib);
    guint64 *v = g_hash_table_lookup(l->committed_hugepages, key);

    if (!v) {
        v = g_new0(guint64, 1);
        g_hash_table_insert(l->committed_hugepages, g_steal_pointer(&key), v);
    }
    *v += pages;
}

guint64
vn_load_get_hugepages(const VnLoad *l, guint node_index, guint64 size_kib)
{
    g_autofree gchar *key = hugepage_key(node_index, size_kib);
    guint64 *v = g_hash_table_lookup(l->committed_hugepages, key);

    return v ? *v : 0;
}

static const gchar *const balance_names[VN_BALANCE_MAX + 1] = {
    [VN_BALANCE_LOAD] = "load",
    [VN_BALANCE_MEMORY_PACKING] = "memory-packing",
    [VN_BALANCE_KEEP_HOLE] = "keep-hole",
    [VN_BALANCE_ADAPTIVE] = "adaptive",
    [VN_BALANCE_MAX] = NULL,
};

VN_DEFINE_ENUM_STRINGS(VnBalance, vn_balance, balance_names, VN_BALANCE_MAX)

const gchar *const *
vn_balance_names(void)
{
    return balance_names;
}

static const gchar *const split_names[VN_SPLIT_MAX + 1] = {
    [VN_SPLIT_FILL] = "fill",
    [VN_SPLIT_EVEN] = "even",
    [VN_SPLIT_MAX] = NULL,
};

VN_DEFINE_ENUM_STRINGS(VnSplit, vn_split, split_names, VN_SPLIT_MAX)

const gchar *const *
vn_split_names(void)
{
    return split_names;
}

const gchar *const *
vn_cache_domains_names(void)
{
    static const gchar *const names[] = { "off", "prefer", "require", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_CACHE_DOMAINS_MAX + 1);
    return names;
}

VnPolicy *
vn_policy_new_default(const VnTopology *t)
{
    VnPolicy *p = g_new0(VnPolicy, 1);

    p->reserved_cpus = vn_bitmap_new(t->n_cpu_ids);
    p->reserved_memory_kib = 0;
    p->overhead_base_kib = 32 * 1024;
    p->overhead_per_gib_kib = 8 * 1024;
    p->headroom_percent = 5;
    p->cpu_overcommit = 4.0;
    p->balance = VN_BALANCE_ADAPTIVE;
    p->cache_domains = VN_CACHE_DOMAINS_OFF;
    p->split = VN_SPLIT_FILL;
    return p;
}

void
vn_policy_free(VnPolicy *p)
{
    if (!p)
        return;
    vn_bitmap_free(p->reserved_cpus);
    g_free(p);
}

VnBitmap *
vn_policy_usable_cpus(const VnPolicy *p, const VnTopology *t, const VnLoad *load, guint node)
{
    VnBitmap *cpus;

    g_return_val_if_fail(node < t->n_nodes, NULL);
    cpus = vn_bitmap_copy(t->nodes[node].cpus);
    vn_bitmap_and_not(cpus, p->reserved_cpus);
    if (load)
        vn_bitmap_and_not(cpus, load->dedicated_cpus);
    return cpus;
}

guint64
vn_policy_memory_base_kib(const VnPolicy *p, const VnTopology *t, guint node)
{
    guint64 total = t->nodes[node].mem_total_kib;

    return total > p->reserved_memory_kib ? total - p->reserved_memory_kib : 0;
}

gdouble
vn_policy_committed_share(const VnPolicy *p, const VnTopology *t, const VnLoad *load)
{
    guint64 total = 0, used = 0;

    g_return_val_if_fail(load->n_nodes == t->n_nodes, 0.0);
    for (guint i = 0; i < t->n_nodes; i++) {
        const VnNode *node = &t->nodes[i];
        guint64 n_used;
        if (vn_bitmap_is_empty(node->cpus) || node->mem_total_kib == 0)
            continue;
        n_used = node->mem_total_kib - vn_policy_memory_base_kib(p, t, i) +
                 node->mem_total_kib / 100 * p->headroom_percent +
                 load->nodes[i].committed_memory_kib;
        total += node->mem_total_kib;
        used += MIN(n_used, node->mem_total_kib);
    }
    return total ? (gdouble)used / (gdouble)total : 0.0;
}

VnBalance
vn_policy_balance_at(const VnPolicy *p, gdouble share)
{
    if (p->balance != VN_BALANCE_ADAPTIVE)
        return p->balance;
    return share >= VN_BALANCE_ADAPTIVE_PACK_AT ? VN_BALANCE_MEMORY_PACKING : VN_BALANCE_LOAD;
}

guint64
vn_policy_usable_memory_kib(const VnPolicy *p, const VnTopology *t, guint node,
                            guint64 committed_kib)
{
    guint64 base = vn_policy_memory_base_kib(p, t, node);
    guint64 headroom = t->nodes[node].mem_total_kib / 100 * p->headroom_percent;
    guint64 avail = base > headroom + committed_kib ? base - headroom - committed_kib : 0;
    guint64 now = vn_topology_node_available_kib(t, node);

    if (now != G_MAXUINT64)
        avail = MIN(avail, now > headroom ? now - headroom : 0);
    return avail;
}

guint64
vn_policy_overhead_kib(const VnPolicy *p, guint64 memory_kib)
{
    guint64 gib = (memory_kib + 1024 * 1024 - 1) / (1024 * 1024);
    return p->overhead_base_kib + gib * p->overhead_per_gib_kib;
}
