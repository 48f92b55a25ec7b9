/* vn-engine-consolidate.c: consolidation on a real host — the ledger's
 * split VMs handed to vn_rebalance_consolidate(), its answer made into a
 * ledger record the live-apply path can apply (vn-engine.h). */
#include "vn-engine-residents.h"
#include "vn-engine.h"
#include "vn-ledger-domain.h"
#include "vn-rebalance-consolidate.h"

void
vn_engine_consolidation_clear(VnEngineConsolidation *c)
{
    g_clear_pointer(&c->vm, g_free);
    g_clear_pointer(&c->before, vn_ledger_record_free);
    g_clear_pointer(&c->after, vn_ledger_record_free);
}

/* A record vnuma may consolidate (the core checks dedication, hugepages
 * and allowed CPUs on the request): running, vnuma's own, guest cells,
 * split over more than one cell, each cell on a node of `t`. */
static gboolean
candidate(const VnLedgerRecord *r, const VnTopology *t, gconstpointer data)
{
    (void)data;
    if (r->state != VN_LEDGER_STATE_RUNNING || r->expires || r->foreign || r->whole ||
        r->cells->len < 2)
        return FALSE;
    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        if (vn_topology_node_by_os_id(t, c->node_os_id) < 0)
            return FALSE;
    }
    return TRUE;
}

/* The record of `before`'s VM on placement `p`: its guest cells (ids by
 * position), pins as planned, marked for a live apply. */
static VnLedgerRecord *
record_after(const VnLedgerRecord *before, const VnPlacement *p, const VnRequest *req)
{
    VnLedgerRecord *after = vn_ledger_record_from_placement(before->uuid, before->name, p, req);

    for (guint i = 0; i < after->cells->len && i < before->cells->len; i++)
        g_array_index(after->cells, VnLedgerCell, i).id =
            g_array_index(before->cells, VnLedgerCell, i).id;
    after->state = before->state;
    after->time = before->time;
    after->needs_apply = TRUE;
    return after;
}

GArray *
vn_engine_consolidate(const VnEngineHost *host)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(VnEngineConsolidation));
    g_auto(VnEngineResidents) res = { 0 };
    g_autoptr(GArray) found = NULL;

    g_array_set_clear_func(out, (GDestroyNotify)vn_engine_consolidation_clear);
    if (!host->ledger)
        return out;
    vn_engine_residents_init(&res, host->ledger, host->t, candidate, NULL);
    if (!res.records->len)
        return out;
    found =
        vn_rebalance_consolidate(host->t, host->load, host->policy, res.requests, res.placements,
                                 VN_CONSOLIDATE_MAX_VMS, VN_CONSOLIDATE_MAX_MEMORY_KIB);
    for (guint i = 0; i < found->len; i++) {
        const VnConsolidation *c = &g_array_index(found, VnConsolidation, i);
        const VnLedgerRecord *before = g_ptr_array_index(res.records, c->vm);
        VnEngineConsolidation ec = {
            .vm = g_strdup(before->name),
            .nodes_before = c->nodes_before,
            .nodes_after = c->nodes_after,
            .moved_kib = c->moved_kib,
            .before = vn_ledger_record_copy(before),
            .after = record_after(before, c->placement, g_ptr_array_index(res.requests, c->vm)),
        };
        g_array_append_val(out, ec);
    }
    return out;
}

gchar *
vn_engine_consolidation_describe(const VnEngineConsolidation *c)
{
    g_autofree gchar *from = vn_ledger_record_nodes_string(c->before);
    g_autofree gchar *to = vn_ledger_record_nodes_string(c->after);

    return g_strdup_printf("%s from nodes %s onto node%s %s, %" G_GUINT64_FORMAT " MiB", c->vm,
                           from, c->nodes_after > 1 ? "s" : "", to, c->moved_kib / 1024);
}
