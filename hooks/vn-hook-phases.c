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
 * decision is "none" (`why`) and *ret_record NULL.  `ret_reclaimed` (may
 * be NULL): whether opening it reclaimed this domain's record (libvirt
 * removed its status file before the hook ran). */
static VnLedger *
open_with_record(VnHook *h, const gchar *why, VnLedgerRecord **ret_record, gboolean *ret_reclaimed,
                 GError **error)
{
    g_autoptr(GPtrArray) reclaimed = NULL;
    load_best_effort(h);
    VnLedger *l = vn_hook_open_ledger(h, &reclaimed, error);
    if (!l)
        return NULL;
    *ret_record = find_record(h, l);
    if (!*ret_record)
        vn_hook_decide(h, "none", NULL, "%s", why);
    if (ret_reclaimed)
        *ret_reclaimed =
            reclaimed && g_ptr_array_find_with_equal_func(reclaimed, h->vm, g_str_equal, NULL);
    return l;
}

gboolean
vn_hook_started(VnHook *h, GError **error)
{
    VnLedgerRecord *r = NULL;
    g_autoptr(VnLedger) l = open_with_record(h, "no reservation", &r, NULL, error);
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

/* The stopped VM's record leaves the ledger (found, or reclaimed when the
 * ledger was opened), and in the same transaction [placement] consolidate
 * looks for a split VM that fewer nodes now hold (vn-hook-consolidate.c).
 * Both `stopped end` and `release end` come here: the first that finds
 * the record removes it and consolidates, the other finds nothing. */
gboolean
vn_hook_release(VnHook *h, GError **error)
{
    VnLedgerRecord *r = NULL;
    gboolean reclaimed = FALSE;
    g_autoptr(VnLedger) l = open_with_record(h, "no reservation to release", &r, &reclaimed, error);
    g_autoptr(GArray) found = NULL;
    g_autofree gchar *nodes = NULL;
    g_autofree gchar *also = NULL;
    if (!l)
        return FALSE;
    if (!r && !reclaimed)
        return TRUE;
    if (r) {
        nodes = vn_ledger_record_nodes_string(r);
        vn_ledger_remove(l, r->uuid);
    }
    found = vn_hook_consolidate(h, l);
    if (!vn_ledger_commit(l, error))
        return FALSE;
    also = vn_hook_consolidated(h, found);
    if (r)
        vn_hook_decide(h, "released", nodes, "domain stopped%s", also);
    else if (*also)
        vn_hook_decide(h, "none", NULL, "no reservation to release%s", also);
    return TRUE;
}

gboolean
vn_hook_reconnect(VnHook *h, GError **error)
{
    load_best_effort(h);
    g_autoptr(VnLedger) l = vn_hook_open_ledger(h, NULL, error);
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
