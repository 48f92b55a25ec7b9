/* vn-domain-plan.c: domain -> request -> vn_plan -> rewritten domain, and
 * the placement a domain records, rebuilt on a topology.
 */
#include "vn-domain-private.h"
#include "vn-plan.h"

/* Cells vnuma recorded may be re-chosen: the planner first gets a free
 * hand, and its answer is kept when it has the same number of cells (so
 * placing a placed domain again gives the same answer as placing it the
 * first time); otherwise the count stays, as for any existing cells.
 * Cells of their own sizes (the user's, uneven) are never re-chosen. */
static VnPlacement *
plan(const VnDomain *d, const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
     VnRequest *req, GPtrArray **ret_reasons, GError **error)
{
    guint fixed = req->cells;

    if (fixed > 0 && !req->cell_sizes && d->meta && d->meta->has_placement &&
        d->meta->cells->len == fixed) {
        g_autoptr(VnPlacement) p = NULL;
        req->cells = 0;
        p = vn_plan(t, load, policy, req, NULL, NULL);
        req->cells = fixed;
        if (p && p->cells->len == fixed)
            return g_steal_pointer(&p);
    }
    return vn_plan(t, load, policy, req, ret_reasons, error);
}

/* An x86 guest learns its NUMA cells from the ACPI SRAT and SLIT tables
 * QEMU builds; libvirt turns ACPI off (-machine acpi=off) unless the domain
 * has <features><acpi/>, and the guest then sees one node whatever its
 * cells say (seen in the emulated host: "A valid RSDP was not found",
 * node0 only).  Other architectures (aarch64 virt) also describe NUMA in
 * the device tree.  A missing <os><type arch> is the host's architecture. */
static gboolean
arch_needs_acpi_for_numa(const gchar *arch)
{
    if (!arch) {
#if defined(__x86_64__) || defined(__i386__)
        return TRUE;
#else
        return FALSE;
#endif
    }
    return g_str_equal(arch, "x86_64") || g_str_equal(arch, "i686");
}

gchar *
vn_domain_guest_view_warning(const VnDomain *d)
{
    xmlNode *root = xmlDocGetRootElement(d->doc);
    xmlNode *numa = vn_xml_child(vn_xml_child(root, "cpu"), "numa");
    g_autoptr(GPtrArray) cells = vn_xml_children(numa, "cell");
    g_autofree gchar *arch = vn_xml_prop(vn_xml_child(vn_xml_child(root, "os"), "type"), "arch");

    if (cells->len < 2 || vn_xml_child(vn_xml_child(root, "features"), "acpi") ||
        !arch_needs_acpi_for_numa(arch))
        return NULL;
    return g_strdup_printf("domain '%s' has %u guest NUMA cells but no <features><acpi/>: "
                           "an %s guest reads its cells from ACPI and will see one node",
                           d->name, cells->len, arch ? arch : "x86");
}

void
vn_domain_check_guest_view(const VnDomain *d, VnPlacement *p)
{
    g_autofree gchar *w = vn_domain_guest_view_warning(d);

    if (w)
        vn_placement_add_warning(p, "%s", w);
}

VnPlacement *
vn_domain_place(VnDomain *d, const VnTopology *t, const VnLoad *load,
                const VnPolicy *policy, const VnRequest *req, const gchar *sysroot,
                const VnDomainWriteOptions *o, GPtrArray **ret_reasons, GError **error)
{
    g_autoptr(VnRequest) own = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GPtrArray) reasons = NULL;

    g_return_val_if_fail(d != NULL && t != NULL && load != NULL && policy != NULL, NULL);
    if (req) {
        p = vn_plan(t, load, policy, req, &reasons, error);
    } else {
        own = vn_domain_to_request(d, sysroot, error);
        if (!own)
            return NULL;
        p = plan(d, t, load, policy, own, &reasons, error);
    }
    if (!p) {
        g_prefix_error(error, "domain '%s': ", d->name);
        if (ret_reasons)
            *ret_reasons = g_steal_pointer(&reasons);
        return NULL;
    }
    if (!vn_domain_apply_placement(d, t, p, o, error))
        return NULL;
    vn_domain_check_guest_view(d, p);
    if (ret_reasons)
        *ret_reasons = g_steal_pointer(&reasons);
    return g_steal_pointer(&p);
}

gchar *
vn_domain_plan_rewrite(const gchar *path, const VnTopology *t, const VnLoad *load,
                       const VnPolicy *policy, const gchar *sysroot,
                       const VnDomainWriteOptions *o, VnPlacement **ret_placement,
                       GPtrArray **ret_reasons, GError **error)
{
    g_autoptr(VnDomain) d = vn_domain_load_file(path, error);
    g_autoptr(VnPlacement) p = NULL;

    if (!d)
        return NULL;
    p = vn_domain_place(d, t, load, policy, NULL, sysroot, o, ret_reasons, error);
    if (!p)
        return NULL;
    if (ret_placement)
        *ret_placement = g_steal_pointer(&p);
    return vn_domain_to_string(d);
}

/* ---- the recorded placement ----------------------------------------- */

static gboolean
bitmap_fits(const VnBitmap *b, guint n_bits)
{
    gint last = -1;

    VN_BITMAP_FOREACH(b, i)
        last = i;
    return last < (gint)n_bits;
}

static VnBitmap *
resize(const VnBitmap *b, guint n_bits)
{
    VnBitmap *r = vn_bitmap_new(n_bits);

    VN_BITMAP_FOREACH(b, i)
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
                    "recorded cell %u is on node %u / CPUs that this host does not have",
                    mc->id, mc->node_os_id);
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
vn_domain_metadata_to_placement(const VnDomainMetadata *m, const VnTopology *t,
                                GError **error)
{
    g_autoptr(VnPlacement) p = vn_placement_new();
    guint n_vcpus = 0;

    g_return_val_if_fail(m != NULL && m->has_placement, NULL);
    p->dedicated = m->dedicated;
    p->threads_per_core = m->threads_per_core;
    p->hugepage_kib = m->hugepage_kib;
    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *mc = &g_array_index(m->cells, VnDomainMetaCell, i);
        if (!recorded_cell(p, mc, t, error))
            return NULL;
        VN_BITMAP_FOREACH(mc->vcpus, v)
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

    if (!d->meta || !d->meta->has_placement)
        return NULL;
    p = vn_domain_metadata_to_placement(d->meta, t, error);
    if (!p) {
        g_prefix_error(error, "domain '%s': ", d->name);
        return NULL;
    }
    /* the domain's own vcpupins are finer than the cells (dedicated VMs) */
    for (guint v = 0; v < p->vcpu_pins->len; v++) {
        VnBitmap *pin = vn_domain_vcpupin(d, v, t->n_cpu_ids);
        if (pin) {
            vn_bitmap_free(p->vcpu_pins->pdata[v]);
            p->vcpu_pins->pdata[v] = pin;
        }
    }
    return g_steal_pointer(&p);
}
