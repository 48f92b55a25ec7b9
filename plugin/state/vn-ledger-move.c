/* vn-ledger-move.c: a rebalancing move written into a ledger record.
 *
 * Why here: the pure rebalancer says where a cell (or one of its guest
 * dies) goes, by node and cache domain; the CPUs each vCPU then runs on
 * depend on what the host holds now (reserved and dedicated CPUs, the
 * VM's allowed set), which is the ledger's side.  One function, so the
 * CLI that applies the move and the tests read the same pins. */
#include "vn-cpulist.h"
#include "vn-ledger.h"

/* The usable CPUs of node index `node` for `r`, within `domain` when it
 * is >= 0 and within the record's allowed CPUs. */
static VnBitmap *
target_cpus(const VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
            const VnPolicy *policy, guint node, gint domain)
{
    VnBitmap *cpus = vn_policy_usable_cpus(policy, t, load, node);
    g_autoptr(VnBitmap) allowed =
        r->allowed_cpus ? vn_cpulist_parse(r->allowed_cpus, t->n_cpu_ids, NULL) : NULL;

    if (domain >= 0)
        vn_bitmap_and(cpus, t->domains[domain].cpus);
    if (allowed)
        vn_bitmap_and(cpus, allowed);
    return cpus;
}

gboolean
vn_ledger_record_apply_move(VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
                            const VnPolicy *policy, const VnMove *m)
{
    g_autoptr(GPtrArray) pins = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    VnLedgerCell *cell = NULL;
    guint index = 0, dies;

    g_return_val_if_fail(r && t && load && policy && m && m->to_node < t->n_nodes, FALSE);
    for (guint i = 0; i < r->cells->len && !cell; i++)
        if (g_array_index(r->cells, VnLedgerCell, i).id == m->cell)
            cell = &g_array_index(r->cells, VnLedgerCell, (index = i));
    if (!cell || cell->vcpus == 0)
        return FALSE;
    dies = m->domains && m->domains->len ? m->domains->len : 1;
    if (cell->vcpus % dies)
        return FALSE;
    for (guint j = 0; j < dies; j++) {
        gint domain =
            m->domains && m->domains->len ? (gint)g_array_index(m->domains, guint, j) : -1;
        g_autoptr(VnBitmap) cpus = target_cpus(r, t, load, policy, m->to_node, domain);
        if (vn_bitmap_is_empty(cpus))
            return FALSE;
        for (guint k = 0; k < cell->vcpus / dies; k++)
            g_ptr_array_add(pins, vn_bitmap_copy(cpus));
    }
    cell->node_os_id = t->nodes[m->to_node].os_id;
    vn_ledger_record_set_cell_pins(r, index, pins);
    return TRUE;
}
