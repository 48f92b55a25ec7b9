/* vn-load-release.c: the counterpart of vn_load_commit(), and load copies.
 *
 * The arithmetic mirrors vn_load_commit() in vn-plan.c line for line (the
 * same integer division of the overhead over cells), so a commit followed
 * by a release is an exact no-op.
 */
#include "vn-load-release.h"

static guint64
sub_u64(guint64 a, guint64 b)
{
    return a > b ? a - b : 0;
}

static guint
sub_uint(guint a, guint b)
{
    return a > b ? a - b : 0;
}

/* The committed-hugepage table is keyed "node:sizekib" (vn-load.h). */
static void
release_hugepages(VnLoad *load, guint node, guint64 size_kib, guint64 pages)
{
    g_autofree gchar *key = g_strdup_printf("%u:%" G_GUINT64_FORMAT, node, size_kib);
    guint64 *v = g_hash_table_lookup(load->committed_hugepages, key);

    if (v)
        *v = sub_u64(*v, pages);
}

void
vn_load_release(VnLoad *load, const VnTopology *t, const VnPolicy *policy, const VnRequest *req,
                const VnPlacement *p)
{
    guint64 overhead = vn_policy_overhead_kib(policy, req->memory_kib);
    guint n_cells = MAX(p->cells->len, 1);

    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        VnNodeLoad *nl;

        g_return_if_fail(cell->node < load->n_nodes);
        nl = &load->nodes[cell->node];
        nl->committed_memory_kib =
            sub_u64(nl->committed_memory_kib,
                    overhead / n_cells + (p->hugepage_kib ? 0 : cell->memory_kib));
        if (p->hugepage_kib)
            release_hugepages(load, cell->node, p->hugepage_kib,
                              cell->memory_kib / p->hugepage_kib);
        if (p->dedicated)
            vn_bitmap_and_not(load->dedicated_cpus, cell->cpus);
        else
            nl->committed_vcpus = sub_uint(nl->committed_vcpus, cell->n_vcpus);
        if (req->priority == VN_PRIORITY_HIGH)
            nl->committed_high_vcpus = sub_uint(nl->committed_high_vcpus, cell->n_vcpus);
    }
    if (p->isolated_cpus)
        vn_bitmap_and_not(load->dedicated_cpus, p->isolated_cpus);
    vn_load_domains_add(load, t, policy, p, -1.0);
}

void
vn_load_domains_add(VnLoad *load, const VnTopology *t, const VnPolicy *policy, const VnPlacement *p,
                    gdouble sign)
{
    if (p->dedicated || !vn_load_counts_domains(t, policy))
        return;
    for (guint v = 0; v < p->vcpu_pins->len; v++)
        vn_load_add_domain_vcpus(load, t, g_ptr_array_index(p->vcpu_pins, v), sign);
}

VnLoad *
vn_load_copy(const VnLoad *l)
{
    VnLoad *c = g_new0(VnLoad, 1);
    GHashTableIter it;
    gpointer key, value;

    c->n_nodes = l->n_nodes;
    c->nodes = g_memdup2(l->nodes, sizeof(VnNodeLoad) * MAX(l->n_nodes, 1));
    c->dedicated_cpus = vn_bitmap_copy(l->dedicated_cpus);
    c->n_domains = l->n_domains;
    c->domain_vcpus = g_memdup2(l->domain_vcpus, sizeof(gdouble) * MAX(l->n_domains, 1));
    c->committed_hugepages = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_hash_table_iter_init(&it, l->committed_hugepages);
    while (g_hash_table_iter_next(&it, &key, &value))
        g_hash_table_insert(c->committed_hugepages, g_strdup(key),
                            g_memdup2(value, sizeof(guint64)));
    return c;
}
