/* vn-engine-residents.c: ledger records -> requests and placements
 * (vn-engine-residents.h). */
#include "vn-engine-residents.h"
#include "vn-cpulist.h"

/* The pin of vCPU `k` of cell `c` (cpus: the cell's CPUs). */
static VnBitmap *
vcpu_pin(const VnLedgerRecord *r, const VnLedgerCell *c, guint k, const VnBitmap *cpus,
         const VnTopology *t)
{
    const gchar *pin = vn_ledger_cell_vcpu_pin(c, k);
    VnBitmap *b = pin ? vn_cpulist_parse(pin, t->n_cpu_ids, NULL) : NULL;
    gint cpu = -1;

    if (b)
        return b;
    if (!r->dedicated)
        return vn_bitmap_copy(cpus);
    for (guint i = 0; i <= k; i++)
        cpu = vn_bitmap_next(cpus, cpu);
    if (cpu < 0)
        return vn_bitmap_copy(cpus);
    b = vn_bitmap_new(t->n_cpu_ids);
    vn_bitmap_set(b, (guint)cpu);
    return b;
}

/* Cell `c` of `r` appended to `p`; FALSE when its node or CPUs are not
 * `t`'s. */
static gboolean
add_cell(VnPlacement *p, const VnLedgerRecord *r, const VnLedgerCell *c, const VnTopology *t,
         guint vcpu_first)
{
    gint node = vn_topology_node_by_os_id(t, c->node_os_id);
    g_autoptr(VnBitmap) cpus = node >= 0 ? vn_cpulist_parse(c->cpus, t->n_cpu_ids, NULL) : NULL;
    VnCell cell = { 0 };

    if (!cpus)
        return FALSE;
    for (guint k = 0; k < c->vcpus; k++)
        g_ptr_array_add(p->vcpu_pins, vcpu_pin(r, c, k, cpus, t));
    if (!p->emulator_cpus)
        p->emulator_cpus = vn_bitmap_new(t->n_cpu_ids);
    vn_bitmap_or(p->emulator_cpus, cpus);
    cell.id = c->id;
    cell.node = (guint)node;
    cell.node_os_id = c->node_os_id;
    cell.vcpu_first = vcpu_first;
    cell.n_vcpus = c->vcpus;
    cell.memory_kib = c->memory_kib;
    cell.cpus = g_steal_pointer(&cpus);
    g_array_append_val(p->cells, cell);
    return TRUE;
}

VnPlacement *
vn_engine_record_placement(const VnLedgerRecord *r, const VnTopology *t, VnRequest **ret_req)
{
    g_autoptr(VnPlacement) p = vn_placement_new();
    VnRequest *req;
    guint vcpus = 0;

    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        if (!add_cell(p, r, c, t, vcpus))
            return NULL;
        vcpus += c->vcpus;
    }
    if (!p->cells->len)
        return NULL;
    p->dedicated = r->dedicated;
    p->hugepage_kib = r->hugepage_kib;
    p->interleave = r->whole;
    req = vn_request_new();
    req->vcpus = vcpus;
    req->memory_kib = vn_ledger_record_memory_kib(r);
    req->priority = r->priority;
    req->dedicated = r->dedicated;
    req->hugepage_kib = r->hugepage_kib;
    if (r->allowed_cpus)
        req->allowed_cpus = vn_cpulist_parse(r->allowed_cpus, t->n_cpu_ids, NULL);
    *ret_req = req;
    return g_steal_pointer(&p);
}

void
vn_engine_residents_clear(VnEngineResidents *res)
{
    g_clear_pointer(&res->records, g_ptr_array_unref);
    g_clear_pointer(&res->requests, g_ptr_array_unref);
    g_clear_pointer(&res->placements, g_ptr_array_unref);
}

void
vn_engine_residents_init(VnEngineResidents *res, const VnLedger *l, const VnTopology *t,
                         VnEngineResidentFilter keep, gconstpointer data)
{
    GPtrArray *records = vn_ledger_records(l);

    res->records = g_ptr_array_new();
    res->requests = g_ptr_array_new_with_free_func((GDestroyNotify)vn_request_free);
    res->placements = g_ptr_array_new_with_free_func((GDestroyNotify)vn_placement_free);
    for (guint i = 0; i < records->len; i++) {
        VnLedgerRecord *r = g_ptr_array_index(records, i);
        VnRequest *req = NULL;
        VnPlacement *p = keep(r, t, data) ? vn_engine_record_placement(r, t, &req) : NULL;
        if (!p)
            continue;
        g_ptr_array_add(res->records, r);
        g_ptr_array_add(res->requests, req);
        g_ptr_array_add(res->placements, p);
    }
}
