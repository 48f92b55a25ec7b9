/* vn-domain-recorded.c: the placement a domain records, rebuilt on a
 * topology. */
#include "vn-domain-private.h"

static gboolean
bitmap_fits(const VnBitmap *b, guint n_bits)
{
    gint last = -1;

    VN_BITMAP_FOREACH (b, i)
        last = i;
    return last < (gint)n_bits;
}

static VnBitmap *
resize(const VnBitmap *b, guint n_bits)
{
    VnBitmap *r = vn_bitmap_new(n_bits);

    VN_BITMAP_FOREACH (b, i)
        vn_bitmap_set(r, (guint)i);
    return r;
}

static gboolean
recorded_cell(VnPlacement *p, const VnDomainMetaCell *mc, const VnTopology *t, GError **error)
{
    gint node = vn_topology_node_by_os_id(t, mc->node_os_id);
    VnCell c = { .id = mc->id, .node_os_id = mc->node_os_id };

    if (node < 0 || !bitmap_fits(mc->cpus, t->n_cpu_ids)) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH,
                    "recorded cell %u is on node %u / CPUs that this host does not have", mc->id,
                    mc->node_os_id);
        return FALSE;
    }
    c.node = (guint)node;
    c.vcpu_first = (guint)MAX(0, vn_bitmap_next(mc->vcpus, -1));
    c.n_vcpus = vn_bitmap_count(mc->vcpus);
    c.cpus = resize(mc->cpus, t->n_cpu_ids);
    c.memory_kib = mc->memory_kib;
    g_array_append_val(p->cells, c);
    return TRUE;
}

static const VnBitmap *
cell_cpus_of(const VnDomainMetadata *m, const VnPlacement *p, guint vcpu)
{
    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *mc = &g_array_index(m->cells, VnDomainMetaCell, i);
        if (vcpu < mc->vcpus->n_bits && vn_bitmap_test(mc->vcpus, vcpu))
            return g_array_index(p->cells, VnCell, i).cpus;
    }
    return NULL;
}

VnPlacement *
vn_domain_metadata_to_placement(const VnDomainMetadata *m, const VnTopology *t, GError **error)
{
    g_autoptr(VnPlacement) p = vn_placement_new();
    guint n_vcpus = 0;

    g_return_val_if_fail(m != NULL && m->has_placement, NULL);
    p->dedicated = m->dedicated;
    p->threads_per_core = m->threads_per_core;
    p->hugepage_kib = m->hugepage_kib;
    p->tiers = m->tiers;
    p->interleave = m->interleave;
    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *mc = &g_array_index(m->cells, VnDomainMetaCell, i);
        if (!recorded_cell(p, mc, t, error))
            return NULL;
        VN_BITMAP_FOREACH (mc->vcpus, v)
            n_vcpus = MAX(n_vcpus, (guint)v + 1);
    }
    for (guint v = 0; v < n_vcpus; v++) {
        const VnBitmap *cpus = cell_cpus_of(m, p, v);
        g_ptr_array_add(p->vcpu_pins, cpus ? vn_bitmap_copy(cpus) : vn_bitmap_new(t->n_cpu_ids));
    }
    if (m->emulator_cpus && bitmap_fits(m->emulator_cpus, t->n_cpu_ids))
        p->emulator_cpus = resize(m->emulator_cpus, t->n_cpu_ids);
    for (guint i = 0; i < m->iothreads->len; i++) {
        const VnDomainMetaIOThread *mi = &g_array_index(m->iothreads, VnDomainMetaIOThread, i);
        VnIOThreadPin io = { .id = mi->id };
        if (!bitmap_fits(mi->cpus, t->n_cpu_ids)) {
            g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH,
                        "recorded IOThread %u is on CPUs that this host does not have", mi->id);
            return NULL;
        }
        io.cpus = resize(mi->cpus, t->n_cpu_ids);
        g_array_append_val(p->iothreads, io);
    }
    return g_steal_pointer(&p);
}

VnPlacement *
vn_domain_recorded_placement(const VnDomain *d, const VnTopology *t, GError **error)
{
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GPtrArray) pins = NULL;

    if (!d->meta || !d->meta->has_placement)
        return NULL;
    p = vn_domain_metadata_to_placement(d->meta, t, error);
    if (!p) {
        g_prefix_error(error, "domain '%s': ", d->name);
        return NULL;
    }
    /* the domain's own vcpupins are finer than the cells (dedicated VMs) */
    pins = vn_domain_vcpupins(d, p->vcpu_pins->len, t->n_cpu_ids);
    for (guint v = 0; v < p->vcpu_pins->len; v++) {
        if (pins->pdata[v]) {
            vn_bitmap_free(p->vcpu_pins->pdata[v]);
            p->vcpu_pins->pdata[v] = g_steal_pointer(&pins->pdata[v]);
        }
    }
    return g_steal_pointer(&p);
}
