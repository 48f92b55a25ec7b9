/* vn-ledger-record-json.c: a ledger record for people and programs (see
 * the header); one writer, so the CLI and the API cannot round apart. */
#include "vn-ledger-record-json.h"
#include "vn-json-build.h"
#include "vn-size.h"

/* "memory_mib" and the exact "memory_kib" beside it */
static void
add_memory(JsonBuilder *b, guint64 kib)
{
    vn_json_add_int(b, "memory_mib", (gint64)vn_size_kib_to_mib(kib));
    vn_json_add_int(b, "memory_kib", (gint64)kib);
}

static void
add_cell(JsonBuilder *b, const VnLedgerCell *c)
{
    json_builder_begin_object(b);
    vn_json_add_int(b, "id", c->id);
    vn_json_add_int(b, "node", c->node_os_id);
    vn_json_add_string(b, "cpus", c->cpus);
    vn_json_add_int(b, "vcpus", c->vcpus);
    add_memory(b, c->memory_kib);
    if (c->vcpu_cpus) {
        /* each vCPU's own CPUs when finer than the cell's (guest dies) */
        json_builder_set_member_name(b, "vcpu_cpus");
        json_builder_begin_array(b);
        for (guint k = 0; k < c->vcpu_cpus->len; k++)
            json_builder_add_string_value(b, g_ptr_array_index(c->vcpu_cpus, k));
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
}

void
vn_ledger_record_add_json(JsonBuilder *b, const VnLedgerRecord *r)
{
    g_return_if_fail(b != NULL && r != NULL);
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    vn_json_add_string(b, "name", r->name);
    vn_json_add_string(b, "uuid", r->uuid);
    vn_json_add_string(b, "state", vn_ledger_state_to_string(r->state));
    vn_json_add_bool(b, "needs_apply", r->needs_apply);
    vn_json_add_bool(b, "dedicated", r->dedicated);
    vn_json_add_bool(b, "foreign", r->foreign);
    vn_json_add_string(b, "priority", vn_priority_to_string(r->priority));
    vn_json_add_int(b, "hugepage_kib", (gint64)r->hugepage_kib);
    vn_json_add_string(b, "nodes", nodes);
    vn_json_add_int(b, "vcpus", vn_ledger_record_vcpus(r));
    add_memory(b, vn_ledger_record_memory_kib(r));
    vn_json_add_int(b, "last_change", r->time);
    if (r->expires)
        vn_json_add_int(b, "expires", r->expires);
    json_builder_set_member_name(b, "cells");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->cells->len; i++)
        add_cell(b, &g_array_index(r->cells, VnLedgerCell, i));
    json_builder_end_array(b);
}

JsonNode *
vn_ledger_record_to_json(const VnLedgerRecord *r)
{
    g_return_val_if_fail(r != NULL, NULL);
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    vn_ledger_record_add_json(b, r);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}
