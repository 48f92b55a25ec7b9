/* vnd-rebalance.c: POST /v1/rebalance?dry_run=true|false.
 *
 * dry_run=true (the default) runs one round of the rebalancer
 * (scheduler/vn-rebalance.h) on the ledger's running VMs and the current
 * load, and answers the moves in the shape of `vnumactl rebalance --json`:
 *   {"dry_run": true, "moves": [{"vm", "cell", "from", "to", "vcpus",
 *    "memory_mib", "reason", "applied": false}], "notes": [...]}
 * Applying moves takes live libvirt calls that may wait tens of seconds
 * for a domain's job; the daemon's single-threaded loop must not, so
 * dry_run=false answers 501 and `vnumactl rebalance` applies. */
#include "vnd.h"

#include "vn-rebalance.h"

/* Running domains of the ledger (reservations and reserved starts are
 * not movable) as residents on `t`. */
static GPtrArray *
residents(const VnLedger *l, const VnTopology *t)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)vn_resident_free);

    for (guint i = 0; i < vn_ledger_records(l)->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(vn_ledger_records(l), i);
        VnResident *vm;
        if (r->state != VN_LEDGER_STATE_RUNNING || r->expires)
            continue;
        vm = vn_resident_new(r->name, r->priority, r->dedicated, r->time);
        for (guint c = 0; c < r->cells->len; c++) {
            const VnLedgerCell *cell = &g_array_index(r->cells, VnLedgerCell, c);
            gint node = vn_topology_node_by_os_id(t, cell->node_os_id);
            if (node >= 0)
                vn_resident_add_cell(vm, cell->id, (guint)node, cell->vcpus, cell->memory_kib);
        }
        g_ptr_array_add(out, vm);
    }
    return out;
}

static void
add_move(JsonBuilder *b, const VnTopology *t, const VnMove *m)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "vm");
    json_builder_add_string_value(b, m->vm);
    json_builder_set_member_name(b, "cell");
    json_builder_add_int_value(b, m->cell);
    json_builder_set_member_name(b, "from");
    json_builder_add_int_value(b, t->nodes[m->from_node].os_id);
    json_builder_set_member_name(b, "to");
    json_builder_add_int_value(b, t->nodes[m->to_node].os_id);
    json_builder_set_member_name(b, "vcpus");
    json_builder_add_int_value(b, m->vcpus);
    json_builder_set_member_name(b, "memory_mib");
    json_builder_add_int_value(b, (gint64)(m->memory_kib / 1024));
    json_builder_set_member_name(b, "reason");
    json_builder_add_string_value(b, m->reason);
    json_builder_set_member_name(b, "applied");
    json_builder_add_boolean_value(b, FALSE);
    json_builder_end_object(b);
}

static JsonNode *
moves_json(const VnTopology *t, GPtrArray *moves, GPtrArray *notes)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "dry_run");
    json_builder_add_boolean_value(b, TRUE);
    json_builder_set_member_name(b, "moves");
    json_builder_begin_array(b);
    for (guint i = 0; i < moves->len; i++)
        add_move(b, t, g_ptr_array_index(moves, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "notes");
    json_builder_begin_array(b);
    for (guint i = 0; notes && i < notes->len; i++)
        json_builder_add_string_value(b, g_ptr_array_index(notes, i));
    json_builder_end_array(b);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

gboolean
vnd_handle_rebalance(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    const VnTopology *t = vnd_state_topology(d->state);
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(VnLedger) snap = NULL;
    g_autoptr(GPtrArray) vms = NULL, moves = NULL, notes = NULL;
    g_autoptr(JsonNode) node = NULL;
    VnRebalanceLimits lim;
    const VnLoad *load;
    gboolean dry_run;

    if (!vnd_query_bool(msg, "dry_run", TRUE, &dry_run, error))
        return FALSE;
    if (!dry_run) {
        g_set_error_literal(error, VND_ERROR, VND_ERROR_NOT_IMPLEMENTED,
                            "dry_run=false: vnumad only proposes; apply with `vnumactl rebalance`");
        return FALSE;
    }
    if (!(load = vnd_state_load(d->state, error)) || !(snap = vn_ledger_snapshot(c->state_dir, error)))
        return FALSE;
    vms = residents(snap, t);
    vn_rebalance_limits_init(&lim, g_get_real_time() / G_USEC_PER_SEC);
    moves = vn_rebalance_propose(t, load, c->policy, vms, &lim, &notes);
    node = moves_json(t, moves, notes);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
