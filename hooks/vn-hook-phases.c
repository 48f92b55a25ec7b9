/* vn-hook-phases.c: started, stopped/release and reconnect.
 *
 * These phases only move the domain's record: confirm it, drop it, or
 * re-register it.  They need the domain's key, not a parse of everything,
 * and stopped/release fall back to the VM name when the XML is unusable so
 * a reservation is never leaked by a bad input. */
#include "vn-hook.h"
#include "vn-ledger-domain.h"

/* The record of this domain: by key, else by VM name. */
static VnLedgerRecord *
find_record(const VnHook *h, VnLedger *l)
{
    VnLedgerRecord *r = vn_ledger_lookup(l, vn_hook_key(h));
    return r ? r : vn_ledger_lookup_name(l, h->vm);
}

/* The host is needed only for the config (state dir); the domain for its
 * key.  Neither failing may stop the phase: fall back to env and name. */
static void
load_best_effort(VnHook *h)
{
    g_autoptr(GError) err = NULL;
    if (!vn_hook_load_host(h, &err))
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "MESSAGE", "%s: using defaults: %s",
                         h->vm, err->message);
    g_clear_error(&err);
    if (!vn_hook_load_domain(h, &err))
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "MESSAGE",
                         "%s: domain XML unusable, keyed by name: %s", h->vm, err->message);
}

/* `vnumactl apply NAME` detached: the live pins and the data path, or
 * with `dataplane_only` just the data path (vn-dataplane.h). */
static gboolean
request_apply(VnHook *h, VnLedgerRecord *r, gboolean dataplane_only, GError **error)
{
    const gchar *what = dataplane_only ? "data path steering" : "live apply";
    g_autofree gchar *vnumactl = NULL;
    if (!vn_hook_spawn_apply(h, r->name, dataplane_only, &vnumactl, error))
        return FALSE;
    if (!vnumactl) {
        vn_hook_decide(h, "running", h->nodes, "%s needed but vnumactl was not found", what);
        return TRUE;
    }
    vn_hook_decide(h, "apply", h->nodes, "%s started in the background (%s apply %s%s)", what,
                   vnumactl, dataplane_only ? "--dataplane-only " : "", r->name);
    return TRUE;
}

/* vnuma.conf names data-plane processes for this VM ([dataplane]). */
static gboolean
has_dataplane(const VnHook *h, const VnLedgerRecord *r)
{
    return h->config && vn_config_dataplane_specs(h->config, r->name);
}

/* The ledger and this domain's record in it; without a record the
 * decision is "none" (`why`) and *ret_record NULL. */
static VnLedger *
open_with_record(VnHook *h, const gchar *why, VnLedgerRecord **ret_record, GError **error)
{
    load_best_effort(h);
    VnLedger *l = vn_hook_open_ledger(h, error);
    if (!l)
        return NULL;
    *ret_record = find_record(h, l);
    if (!*ret_record)
        vn_hook_decide(h, "none", NULL, "%s", why);
    return l;
}

gboolean
vn_hook_started(VnHook *h, GError **error)
{
    VnLedgerRecord *r = NULL;
    g_autoptr(VnLedger) l = open_with_record(h, "no reservation", &r, error);
    if (!l)
        return FALSE;
    if (!r)
        return TRUE;
    r->state = VN_LEDGER_STATE_RUNNING;
    r->time = h->now;
    h->nodes = vn_ledger_record_nodes_string(r);
    if (!vn_ledger_commit(l, error))
        return FALSE;
    if (r->needs_apply || has_dataplane(h, r))
        return request_apply(h, r, !r->needs_apply, error);
    vn_hook_decide(h, "running", h->nodes, "reservation confirmed");
    return TRUE;
}

gboolean
vn_hook_release(VnHook *h, GError **error)
{
    VnLedgerRecord *r = NULL;
    g_autoptr(VnLedger) l = open_with_record(h, "no reservation to release", &r, error);
    if (!l)
        return FALSE;
    if (!r)
        return TRUE;
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    vn_ledger_remove(l, r->uuid);
    if (!vn_ledger_commit(l, error))
        return FALSE;
    vn_hook_decide(h, "released", nodes, "domain stopped");
    return TRUE;
}

gboolean
vn_hook_reconnect(VnHook *h, GError **error)
{
    load_best_effort(h);
    g_autoptr(VnLedger) l = vn_hook_open_ledger(h, error);
    if (!l)
        return FALSE;
    const VnDomainMetadata *m = h->domain ? h->domain->meta : NULL;
    VnLedgerRecord *r = find_record(h, l);
    if (!r && m && m->has_placement) {
        r = vn_ledger_record_from_domain(h->domain);
        vn_ledger_put(l, r);
    }
    if (!r) {
        vn_hook_decide(h, "none", NULL, "no placement to re-register");
        return TRUE;
    }
    r->state = VN_LEDGER_STATE_RUNNING;
    r->time = h->now;
    h->nodes = vn_ledger_record_nodes_string(r);
    if (!vn_ledger_commit(l, error))
        return FALSE;
    vn_hook_decide(h, "registered", h->nodes, "running domain re-registered after daemon restart");
    return TRUE;
}
