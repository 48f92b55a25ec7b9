/* vnd-reservations.c: /v1/reservations — capacity held between a
 * controller's decision and the VM's start.
 *
 * A reservation is an ordinary ledger record, so the hook and every plan
 * count it at once: uuid "reservation:<id>", state reserved, `expires` set
 * (unix seconds).  Its name is the VM's when the client gave one ("name",
 * or the domain XML's <name>) so the hook can find and consume it when
 * that VM starts; else "reservation-<id>".  Planning, admission and the
 * write happen under the ledger's lock, so two controllers (or a
 * controller and a starting VM) never take the same capacity. */
#include "vnd.h"
#include "vnd-spec.h"

#include "vn-json-parse.h"
#include "vn-ledger-domain.h"
#include "vn-ledger-record-json.h"
#include "vn-placement-json.h"
#include "vn-json-build.h"

#include <string.h>

static gint64
now_s(void)
{
    return g_get_real_time() / G_USEC_PER_SEC;
}

/* One line in history.log (`vnumactl log`), phase "reservation". */
static void
history(VndDaemon *d, const gchar *vm, const gchar *decision, const gchar *nodes,
        const gchar *reason)
{
    vnd_state_history(d->state, vm, "reservation", decision, nodes, reason);
}

static gboolean
is_reservation(const VnLedgerRecord *r)
{
    return g_str_has_prefix(r->uuid, VND_RESERVATION_PREFIX);
}

static VnLedger *
open_ledger(VndDaemon *d, GError **error)
{
    VnLedger *l = vnd_ledger_open(vnd_state_config(d->state)->state_dir, error);

    if (!l) {
        g_prefix_error(error, "ledger: ");
        (*error)->code = VND_ERROR_UNAVAILABLE;
        (*error)->domain = VND_ERROR;
    }
    return l;
}

static gboolean
commit(VndDaemon *d, VnLedger *l, GError **error)
{
    vnd_state_invalidate(d->state);
    if (vn_ledger_commit(l, error))
        return TRUE;
    g_prefix_error(error, "ledger: ");
    (*error)->code = VND_ERROR_INTERNAL;
    (*error)->domain = VND_ERROR;
    return FALSE;
}

void
vnd_reservations_reclaim(VndDaemon *d)
{
    const gchar *dir = vnd_state_config(d->state)->state_dir;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = vnd_ledger_snapshot(dir, &error);
    g_autoptr(VnLedger) l = NULL;
    g_autoptr(GPtrArray) removed = NULL;
    gint64 now = now_s();
    gboolean lapsed = FALSE;

    for (guint i = 0; snap && i < vn_ledger_records(snap)->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(vn_ledger_records(snap), i);
        lapsed |= r->expires && now >= r->expires;
    }
    if (!lapsed)
        return;
    /* the periodic sweep must never stop the daemon: log and retry later */
    if (!(l = open_ledger(d, &error)) ||
        (vn_ledger_reclaim_expired(l, now, &removed) > 0 && !commit(d, l, &error))) {
        g_message("reservations not reclaimed: %s", error->message);
        return;
    }
    for (guint i = 0; i < removed->len; i++) {
        g_info("reservation lapsed: %s", (const gchar *)g_ptr_array_index(removed, i));
        history(d, g_ptr_array_index(removed, i), "lapsed", NULL,
                "TTL passed before the VM started");
        vnd_metrics_count_reservation(d->metrics, "expired");
    }
}

static JsonNode *
created_json(VndDaemon *d, const gchar *id, const VnLedgerRecord *r, const VndPlanOutcome *out)
{
    g_autoptr(JsonNode) node =
        vn_placement_to_json(vnd_state_topology(d->state), out->placement, FALSE);
    JsonObject *o = json_node_get_object(node);
    g_autoptr(GDateTime) exp = g_date_time_new_from_unix_utc(r->expires);
    g_autofree gchar *exp_text = g_date_time_format_iso8601(exp);

    json_object_set_string_member(o, "id", id);
    json_object_set_string_member(o, "name", r->name);
    json_object_set_int_member(o, "expires", r->expires);
    json_object_set_string_member(o, "expires_at", exp_text);
    if (out->xml)
        json_object_set_string_member(o, "xml", out->xml);
    return g_steal_pointer(&node);
}

/* The locked part: plan against everyone in the ledger, then hold. */
static VnLedgerRecord *
reserve(VndDaemon *d, VnLedger *l, VndSpec *spec, const gchar *id, VndPlanOutcome *out,
        GError **error)
{
    g_autoptr(VnLoad) load = NULL;
    g_autofree gchar *uuid = g_strconcat(VND_RESERVATION_PREFIX, id, NULL);
    g_autofree gchar *fallback = g_strconcat("reservation-", id, NULL);
    const gchar *name;
    gint64 now = now_s();
    g_autoptr(GPtrArray) lapsed = NULL;
    VnLedgerRecord *r;

    vn_ledger_reclaim_expired(l, now, &lapsed);
    for (guint i = 0; i < lapsed->len; i++) {
        history(d, g_ptr_array_index(lapsed, i), "lapsed", NULL,
                "TTL passed before the VM started");
        vnd_metrics_count_reservation(d->metrics, "expired");
    }
    load = vnd_state_load_with_ledger(d->state, l);
    if (!vnd_plan_run(d->state, spec, load, NULL, out, error))
        return NULL;
    name = spec->name ? spec->name : out->domain_name ? out->domain_name : fallback;
    if (vn_ledger_lookup_name(l, name)) {
        g_set_error(error, VND_ERROR, VND_ERROR_CONFLICT,
                    "name: \"%s\" already holds capacity in the ledger", name);
        return NULL;
    }
    r = vn_ledger_record_from_placement(uuid, name, out->placement, out->request);
    r->state = VN_LEDGER_STATE_RESERVED;
    r->time = now;
    r->expires = now + spec->ttl_s;
    vn_ledger_put(l, r);
    return r;
}

gboolean
vnd_handle_reservation_create(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                              GError **error)
{
    g_autoptr(JsonNode) body = vnd_body_object(msg, vnd_spec_members(VND_SPEC_RESERVE), error);
    g_autoptr(VndSpec) spec = NULL;
    g_autoptr(VnLedger) l = NULL;
    g_autoptr(GError) local = NULL;
    g_auto(VndPlanOutcome) out = { 0 };
    g_autofree gchar *id = g_uuid_string_random();
    g_autoptr(JsonNode) node = NULL;
    VnLedgerRecord *r;

    if (!body || !(spec = vnd_spec_parse(json_node_get_object(body), VND_SPEC_RESERVE, error)) ||
        !(l = open_ledger(d, error)))
        return FALSE;
    if (!(r = reserve(d, l, spec, id, &out, &local))) {
        if (!vnd_plan_error_is_no_fit(local)) {
            g_propagate_error(error, g_steal_pointer(&local));
            return FALSE;
        }
        node = vn_plan_error_to_json(local, out.reasons);
        vnd_reply_json(msg, SOUP_STATUS_CONFLICT, node);
        return TRUE;
    }
    node = created_json(d, id, r, &out);
    if (!commit(d, l, error))
        return FALSE;
    vnd_metrics_count_reservation(d->metrics, "created");
    g_info("reservation %s for %s until %" G_GINT64_FORMAT, id, r->name, r->expires);
    {
        g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
        g_autofree gchar *why =
            g_strdup_printf("reservation %s for %u s: %s", id, spec->ttl_s,
                            out.placement->reasons->len
                                ? (const gchar *)g_ptr_array_index(out.placement->reasons, 0)
                                : "");
        history(d, r->name, "reserved", nodes, why);
    }
    vnd_reply_json(msg, SOUP_STATUS_CREATED, node);
    return TRUE;
}

gboolean
vnd_handle_reservation_delete(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                              GError **error)
{
    g_autofree gchar *uuid = g_strconcat(VND_RESERVATION_PREFIX, arg, NULL);
    g_autoptr(VnLedger) l = NULL;
    g_autofree gchar *name = NULL, *nodes = NULL;
    VnLedgerRecord *r;

    if (!g_uuid_string_is_valid(arg)) {
        g_autofree gchar *shown = vn_json_quote(arg);
        g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "id: %s is not a reservation id",
                    shown);
        return FALSE;
    }
    if (!(l = open_ledger(d, error)))
        return FALSE;
    if ((r = vn_ledger_lookup(l, uuid))) {
        name = g_strdup(r->name);
        nodes = vn_ledger_record_nodes_string(r);
    }
    if (!vn_ledger_remove(l, uuid)) {
        g_set_error(error, VND_ERROR, VND_ERROR_NOT_FOUND,
                    "reservation %s: none (released, consumed by its VM, or lapsed)", arg);
        return FALSE;
    }
    if (!commit(d, l, error))
        return FALSE;
    vnd_metrics_count_reservation(d->metrics, "deleted");
    g_info("reservation %s released", arg);
    history(d, name, "released", nodes, "released through the API");
    soup_server_message_set_status(msg, SOUP_STATUS_NO_CONTENT, NULL);
    return TRUE;
}

/* "id" (the reservation's, as POST answered it), then the record as the
 * one writer of a ledger record shows it (vn-ledger-record-json.h). */
static void
add_reservation(JsonBuilder *b, const VnLedgerRecord *r)
{
    json_builder_begin_object(b);
    vn_json_add_string(b, "id", r->uuid + strlen(VND_RESERVATION_PREFIX));
    vn_ledger_record_add_json(b, r);
    json_builder_end_object(b);
}

gboolean
vnd_handle_reservations_list(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    g_autoptr(VnLedger) snap = vnd_ledger_snapshot(vnd_state_config(d->state)->state_dir, error);
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) node = NULL;
    gint64 now = now_s();

    if (!snap)
        return FALSE;
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "reservations");
    json_builder_begin_array(b);
    for (guint i = 0; i < vn_ledger_records(snap)->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(vn_ledger_records(snap), i);
        if (is_reservation(r) && (!r->expires || now < r->expires))
            add_reservation(b, r);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    node = json_builder_get_root(b);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
