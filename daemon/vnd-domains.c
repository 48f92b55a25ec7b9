/* vnd-domains.c: GET /v1/domains — each VM in the ledger, where vnuma put
 * it and where its memory actually is.
 *
 * Memory per node comes from /proc/<pid>/numa_maps of the QEMU process
 * (pid from libvirt's <run_dir>/<name>.pid, both under --sysroot), and the
 * locality is the share of it on the nodes the VM's vCPUs run on (its
 * cells' nodes), as ESXi's N%L.  A VM not measurable (not started yet,
 * pid file gone) gets nulls and a "measure_error".  The record's own
 * members come from the one writer of a ledger record
 * (vn-ledger-record-json.h), as `vnumactl reservations --json` prints. */
#include "vnd.h"

#include "vn-ledger-domain.h"
#include "vn-numa-maps.h"
#include "vn-ledger-record-json.h"
#include "vn-size.h"
#include "vn-json-build.h"

#include <math.h>

static GArray *
record_nodes(const VnLedgerRecord *r)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint i = 0; i < r->cells->len; i++)
        g_array_append_val(nodes, g_array_index(r->cells, VnLedgerCell, i).node_os_id);
    return nodes;
}

static void
add_measured(JsonBuilder *b, const VnLedgerRecord *r, const gchar *sysroot)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = NULL;
    g_autoptr(GArray) nodes = record_nodes(r);
    gint64 pid = 0;
    gdouble loc;

    if (vn_numa_maps_domain_pid(sysroot, vn_ledger_libvirt_run_dir(), r->name, &pid, &error))
        u = vn_numa_maps_read(sysroot, pid, &error);
    json_builder_set_member_name(b, "pid");
    pid &&u ? json_builder_add_int_value(b, pid) : json_builder_add_null_value(b);
    json_builder_set_member_name(b, "memory_mib_by_node");
    if (!u) {
        json_builder_add_null_value(b);
        json_builder_set_member_name(b, "locality_percent");
        json_builder_add_null_value(b);
        vn_json_add_string(b, "measure_error", error->message);
        return;
    }
    json_builder_begin_object(b);
    for (guint n = 0; n < u->n_nodes; n++) {
        g_autofree gchar *key = g_strdup_printf("%u", n);
        if (!u->node_kib[n])
            continue;
        vn_json_add_int(b, key, (gint64)vn_size_kib_to_mib(u->node_kib[n]));
    }
    json_builder_end_object(b);
    loc = vn_numa_usage_locality(u, nodes);
    json_builder_set_member_name(b, "locality_percent");
    loc < 0 ? json_builder_add_null_value(b)
            : json_builder_add_int_value(b, (gint64)round(loc * 100.0));
}

static void
add_domain(JsonBuilder *b, const VnLedgerRecord *r, const gchar *sysroot)
{
    json_builder_begin_object(b);
    vn_ledger_record_add_json(b, r);
    add_measured(b, r, sysroot);
    json_builder_end_object(b);
}

JsonNode *
vnd_domains_to_json(VndDaemon *d, GError **error)
{
    g_autoptr(VnLedger) snap = vnd_ledger_snapshot(vnd_state_config(d->state)->state_dir, error);
    g_autoptr(JsonBuilder) b = json_builder_new();

    if (!snap)
        return NULL;
    json_builder_begin_array(b);
    for (guint i = 0; i < vn_ledger_records(snap)->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(vn_ledger_records(snap), i);
        if (!g_str_has_prefix(r->uuid, VND_RESERVATION_PREFIX))
            add_domain(b, r, vnd_state_sysroot(d->state));
    }
    json_builder_end_array(b);
    return json_builder_get_root(b);
}

gboolean
vnd_handle_domains(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    g_autoptr(JsonNode) list = vnd_domains_to_json(d, error);
    g_autoptr(JsonNode) node = NULL;
    g_autoptr(JsonObject) o = NULL;

    if (!list)
        return FALSE;
    o = json_object_new();
    json_object_set_member(o, "domains", g_steal_pointer(&list));
    node = json_node_init_object(json_node_alloc(), o);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
