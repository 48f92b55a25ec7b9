/* vn-ledger-load.c: what the ledger's records commit, and admission of a
 * recorded placement.
 *
 * The accounting is the one of vn_load_commit() (scheduler/vn-plan.c), so
 * the planner and the hook agree on what a node still holds: per cell, the
 * guest memory (unless hugepage-backed, then the pages) plus an equal share
 * of the QEMU overhead; shared vCPUs count against the node, dedicated
 * CPUs go to the dedicated set; high priority vCPUs are counted apart.
 * The ledger stores cpulists (each cell's, and each vCPU's where finer),
 * not placements, which is why it fills the VnLoad itself instead of
 * calling vn_load_commit(). */
#include "vn-cpulist.h"
#include "vn-ledger.h"

static guint64
cell_overhead_kib(const VnLedgerRecord *r, const VnPolicy *policy)
{
    guint n_cells = MAX(r->cells->len, 1);
    return vn_policy_overhead_kib(policy, vn_ledger_record_memory_kib(r)) / n_cells;
}

/* Memory a cell adds to its node's committed_memory_kib. */
static guint64
cell_memory_charge(const VnLedgerRecord *r, const VnLedgerCell *c, guint64 overhead)
{
    return overhead + (r->hugepage_kib ? 0 : c->memory_kib);
}

/* A shared cell's vCPUs in the cache domains of their CPUs, each vCPU by
 * its own pin where the cell records one (guest dies), else the cell's
 * vCPUs by their share of the cell's CPUs. */
static void
add_domain_vcpus(const VnLedgerCell *c, const VnTopology *t, const VnPolicy *policy, VnLoad *load)
{
    g_autoptr(VnBitmap) cpus = NULL;

    if (!vn_load_counts_domains(t, policy) || c->vcpus == 0)
        return;
    if (c->vcpu_cpus) {
        for (guint k = 0; k < c->vcpu_cpus->len; k++) {
            g_autoptr(VnBitmap) pin =
                vn_cpulist_parse(g_ptr_array_index(c->vcpu_cpus, k), t->n_cpu_ids, NULL);
            if (pin)
                vn_load_add_domain_vcpus(load, t, pin, 1.0);
        }
        return;
    }
    cpus = vn_cpulist_parse(c->cpus, t->n_cpu_ids, NULL);
    if (cpus)
        vn_load_add_domain_vcpus(load, t, cpus, c->vcpus);
}

static void
add_record(const VnLedgerRecord *r, const VnTopology *t, const VnPolicy *policy, VnLoad *load)
{
    guint64 overhead = cell_overhead_kib(r, policy);
    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        gint idx = vn_topology_node_by_os_id(t, c->node_os_id);
        if (idx < 0)
            continue;
        VnNodeLoad *nl = &load->nodes[idx];
        nl->committed_memory_kib += cell_memory_charge(r, c, overhead);
        if (r->hugepage_kib)
            vn_load_add_hugepages(load, idx, r->hugepage_kib, c->memory_kib / r->hugepage_kib);
        if (r->dedicated) {
            g_autoptr(VnBitmap) cpus = vn_cpulist_parse(c->cpus, t->n_cpu_ids, NULL);
            if (cpus)
                vn_bitmap_or(load->dedicated_cpus, cpus);
        } else {
            nl->committed_vcpus += c->vcpus;
            add_domain_vcpus(c, t, policy, load);
        }
        if (r->priority == VN_PRIORITY_HIGH)
            nl->committed_high_vcpus += c->vcpus;
    }
}

void
vn_ledger_to_load(const VnLedger *l, const VnTopology *t, const VnPolicy *policy,
                  const gchar *skip_uuid, VnLoad *load)
{
    GPtrArray *recs = vn_ledger_records(l);
    for (guint i = 0; i < recs->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(recs, i);
        if (skip_uuid && g_strcmp0(r->uuid, skip_uuid) == 0)
            continue;
        add_record(r, t, policy, load);
    }
}

/* --- admission --- */

/* What this record has already put on each node (cells sharing a node). */
typedef struct {
    guint64 *memory_kib;
    guint *vcpus;
    guint64 *pages;
} Tally;

static gboolean
cell_cpus_fit(const VnLedgerRecord *r, const VnLedgerCell *c, const VnTopology *t, guint idx,
              const VnLoad *load, const VnPolicy *policy, Tally *tally, gchar **why)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(VnBitmap) cpus = vn_cpulist_parse(c->cpus, t->n_cpu_ids, &err);
    if (!cpus) {
        *why = g_strdup_printf("cell %u: CPUs \"%s\" are not this host's", c->id, c->cpus);
        return FALSE;
    }
    VN_BITMAP_FOREACH (cpus, cpu) {
        if (!vn_topology_cpu(t, (guint)cpu)) {
            *why = g_strdup_printf("cell %u: CPU %d is not on this host", c->id, cpu);
            return FALSE;
        }
    }
    if (r->dedicated) {
        if (vn_bitmap_intersects(cpus, load->dedicated_cpus) ||
            vn_bitmap_intersects(cpus, policy->reserved_cpus)) {
            *why = g_strdup_printf("cell %u: CPUs %s are dedicated to another domain "
                                   "or reserved for the host",
                                   c->id, c->cpus);
            return FALSE;
        }
        return TRUE;
    }
    /* shared vCPUs may float over their cell's CPUs: none of them may be
     * the host's or another domain's own (the config may have changed
     * since this placement was recorded) */
    if (vn_bitmap_intersects(cpus, policy->reserved_cpus) ||
        vn_bitmap_intersects(cpus, load->dedicated_cpus)) {
        *why = g_strdup_printf("cell %u: CPUs %s include CPUs reserved for the host "
                               "or dedicated to another domain",
                               c->id, c->cpus);
        return FALSE;
    }
    if (vn_topology_node_ncpus(t, idx) == 0)
        return TRUE; /* memory-only node: its vCPUs run elsewhere */
    g_autoptr(VnBitmap) usable = vn_policy_usable_cpus(policy, t, load, idx);
    /* the same capacity as vn_plan(): usable CPUs x overcommit */
    guint limit = (guint)(vn_bitmap_count(usable) * policy->cpu_overcommit);
    guint used = load->nodes[idx].committed_vcpus + tally->vcpus[idx];
    if (used + c->vcpus > limit) {
        *why = g_strdup_printf("node %u: %u of %u shared vCPUs committed, cell %u needs %u",
                               c->node_os_id, used, limit, c->id, c->vcpus);
        return FALSE;
    }
    tally->vcpus[idx] += c->vcpus;
    return TRUE;
}

static gboolean
cell_hugepages_fit(const VnLedgerRecord *r, const VnLedgerCell *c, const VnTopology *t, guint idx,
                   const VnLoad *load, Tally *tally, gchar **why)
{
    guint64 want = c->memory_kib / r->hugepage_kib, have = 0;
    GArray *hp = t->nodes[idx].hugepages;
    for (guint h = 0; hp && h < hp->len; h++) {
        const VnHugepages *p = &g_array_index(hp, VnHugepages, h);
        if (p->size_kib != r->hugepage_kib)
            continue;
        guint64 used = vn_load_get_hugepages(load, idx, p->size_kib) + tally->pages[idx];
        have = MIN(p->free, p->total > used ? p->total - used : 0);
    }
    if (want > have) {
        *why = g_strdup_printf("node %u: %" G_GUINT64_FORMAT " free %" G_GUINT64_FORMAT
                               " KiB pages, cell %u needs %" G_GUINT64_FORMAT,
                               c->node_os_id, have, r->hugepage_kib, c->id, want);
        return FALSE;
    }
    tally->pages[idx] += want;
    return TRUE;
}

static gboolean
cell_fits(const VnLedgerRecord *r, const VnLedgerCell *c, const VnTopology *t, const VnLoad *load,
          const VnPolicy *policy, Tally *tally, gchar **why)
{
    gint idx = vn_topology_node_by_os_id(t, c->node_os_id);
    if (idx < 0) {
        *why =
            g_strdup_printf("cell %u: node %u does not exist on this host", c->id, c->node_os_id);
        return FALSE;
    }
    guint64 charge = cell_memory_charge(r, c, cell_overhead_kib(r, policy));
    guint64 avail = vn_policy_usable_memory_kib(
        policy, t, idx, load->nodes[idx].committed_memory_kib + tally->memory_kib[idx]);
    if (charge > avail) {
        *why = g_strdup_printf("node %u: %" G_GUINT64_FORMAT " MiB usable memory left, "
                               "cell %u needs %" G_GUINT64_FORMAT " MiB",
                               c->node_os_id, avail / 1024, c->id, (charge + 1023) / 1024);
        return FALSE;
    }
    tally->memory_kib[idx] += charge;
    if (r->hugepage_kib && !cell_hugepages_fit(r, c, t, idx, load, tally, why))
        return FALSE;
    return cell_cpus_fit(r, c, t, idx, load, policy, tally, why);
}

gboolean
vn_ledger_record_fits(const VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
                      const VnPolicy *policy, gchar **ret_reason)
{
    g_autofree guint64 *mem = g_new0(guint64, t->n_nodes);
    g_autofree guint *vcpus = g_new0(guint, t->n_nodes);
    g_autofree guint64 *pages = g_new0(guint64, t->n_nodes);
    Tally tally = { mem, vcpus, pages };
    if (r->cells->len == 0) {
        if (ret_reason)
            *ret_reason = g_strdup("the placement has no cells");
        return FALSE;
    }
    for (guint i = 0; i < r->cells->len; i++) {
        g_autofree gchar *why = NULL;
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        if (!cell_fits(r, c, t, load, policy, &tally, &why)) {
            if (ret_reason)
                *ret_reason = g_steal_pointer(&why);
            return FALSE;
        }
    }
    return TRUE;
}

/* The cache domain holding every CPU of `cpus` (a cpulist), or -1. */
static gint
domain_of(const VnTopology *t, const gchar *cpus)
{
    g_autoptr(VnBitmap) b = vn_cpulist_parse(cpus, t->n_cpu_ids, NULL);
    gint first = b ? vn_bitmap_next(b, -1) : -1;
    const VnCacheDomain *d = first >= 0 ? vn_topology_cpu_domain(t, (guint)first) : NULL;

    if (!d || vn_bitmap_count_and(b, d->cpus) != vn_bitmap_count(b))
        return -1;
    return (gint)(d - t->domains);
}

/* The cache domains of cell `c`'s guest dies (VnResidentCell.domains)
 * into `vm`'s last cell: its vCPUs in runs of equal pins, the runs of
 * equal length, each run's CPUs inside one domain (a different one each)
 * of a node that has several.  Nothing when they float over domains. */
static void
set_die_domains(VnResident *vm, const VnLedgerCell *c, const VnTopology *t, guint node)
{
    g_autoptr(GArray) domains = g_array_new(FALSE, FALSE, sizeof(guint));
    guint start = 0, len = 0;

    if (t->nodes[node].n_domains < 2 || c->vcpus == 0)
        return;
    for (guint k = 1; k <= c->vcpus; k++) {
        const gchar *pin = vn_ledger_cell_vcpu_pin(c, start);
        gint d;
        if (k < c->vcpus && g_strcmp0(vn_ledger_cell_vcpu_pin(c, k), pin) == 0)
            continue;
        /* a run [start, k): as long as the first, in a domain of its own */
        len = start ? len : k;
        if (k - start != len || (d = domain_of(t, pin ? pin : c->cpus)) < 0)
            return;
        for (guint j = 0; j < domains->len; j++)
            if (g_array_index(domains, guint, j) == (guint)d)
                return;
        g_array_append_val(domains, d);
        start = k;
    }
    vn_resident_set_cell_domains(vm, (const guint *)(gpointer)domains->data, domains->len);
}

GPtrArray *
vn_ledger_residents(const VnLedger *l, const VnTopology *t, const VnPolicy *policy)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)vn_resident_free);
    GPtrArray *records = vn_ledger_records(l);

    for (guint i = 0; i < records->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(records, i);
        VnResident *vm;
        guint64 overhead;
        /* holds and other managers' VMs are not vnuma's to move */
        if (r->state != VN_LEDGER_STATE_RUNNING || r->expires || r->foreign)
            continue;
        vm = vn_resident_new(r->name, r->priority, r->dedicated, r->time);
        if (r->allowed_cpus)
            vm->allowed_cpus = vn_cpulist_parse(r->allowed_cpus, t->n_cpu_ids, NULL);
        vm->whole = r->whole;
        overhead = cell_overhead_kib(r, policy);
        for (guint c = 0; c < r->cells->len; c++) {
            const VnLedgerCell *cell = &g_array_index(r->cells, VnLedgerCell, c);
            gint node = vn_topology_node_by_os_id(t, cell->node_os_id);
            if (node < 0)
                continue;
            vn_resident_add_cell(vm, cell->id, (guint)node, cell->vcpus, cell->memory_kib);
            vn_resident_set_cell_charge(vm, cell_memory_charge(r, cell, overhead));
            if (!r->dedicated)
                set_die_domains(vm, cell, t, (guint)node);
        }
        g_ptr_array_add(out, vm);
    }
    return out;
}
