/* vn-hook-filter.c: `migrate begin` (incoming) and `restore begin`.
 *
 * These are libvirt's only filters: what the hook prints replaces the XML,
 * nothing printed keeps it.  libvirt then checks that the guest ABI did
 * not change (vNUMA cells, CPU topology), and a failing check cancels the
 * migration — worse than a VM placed as on its old host.  So:
 *   recorded placement fits here          -> print nothing
 *   it does not (or none, VM managed)     -> re-plan (vn_engine_run(),
 *                                            VN_ENGINE_FILTER: the guest's
 *                                            cell count, 1 without guest
 *                                            NUMA), rewrite pins, numatune
 *                                            and metadata, print it, but
 *                                            only if every guest cell keeps
 *                                            its vCPUs and memory
 *   pinned by another manager, no vnuma   -> print nothing (its pins are
 *   metadata                                 not vnuma's to change); a
 *                                            <vcpu cpuset> alone is no pin
 *                                            but the set the re-plan keeps to
 *   anything else, any error              -> print nothing
 * No reservation here: libvirt runs `prepare` next with the XML we print,
 * and that reserves it.  Only managed VMs are rewritten, and for them the
 * old host's pins are replaced even when the metadata does not account for
 * them (a live apply pins without rewriting the metadata). */
#include "vn-hook.h"
#include "vn-ledger-domain.h"
#include "vn-plan.h"

/* The engine's filter: re-planned by its cell rule (a guest without NUMA
 * stays on one node), rewritten only when the guest ABI stays. */
static gboolean
replan(VnHook *h, const VnLoad *load, const gchar *why, GError **error)
{
    const VnEngineHost host = { .t = h->t, .load = load, .policy = h->config->policy };
    g_auto(VnEngineResult) res = { 0 };
    if (!vn_engine_run(h->domain, &host, VN_ENGINE_FILTER, NULL, &res, error))
        return FALSE;
    if (!res.xml) {
        vn_hook_decide(h, "unchanged", NULL, "%s; %s, kept as it was", why, res.kept);
        return TRUE;
    }
    g_autoptr(GArray) nodes = vn_placement_nodes(res.placement);
    g_autoptr(GString) list = g_string_new(NULL);
    for (guint i = 0; i < nodes->len; i++)
        g_string_append_printf(list, "%s%u", i ? "," : "",
                               h->t->nodes[g_array_index(nodes, guint, i)].os_id);
    h->filtered = g_steal_pointer(&res.xml);
    vn_hook_decide(h, "replaced", list->str, "%s; pins and numatune re-planned for this host", why);
    return TRUE;
}

gboolean
vn_hook_filter(VnHook *h, GError **error)
{
    if (!vn_hook_load_host(h, error) || !vn_hook_load_domain(h, error))
        return FALSE;
    const VnDomainMetadata *m = h->domain->meta;
    gboolean managed =
        h->config->hook_manage == VN_HOOK_MANAGE_ALL ||
        (h->config->hook_manage == VN_HOOK_MANAGE_OPTED_IN && m && (m->manage || m->has_placement));
    if (!managed) {
        vn_hook_decide(h, "unchanged", NULL, "not managed by vnuma");
        return TRUE;
    }
    if (!(m && (m->manage || m->has_placement))) {
        g_autoptr(VnDomainPins) pins = vn_domain_foreign_pins(h->domain);
        if (pins && !pins->allowed_set) {
            vn_hook_decide(h, "unchanged", NULL, "placed by another manager (%s): left as it is",
                           pins->what);
            return TRUE;
        }
    }
    g_autoptr(VnLedger) l = vn_ledger_snapshot(vn_hook_state_dir(h), error);
    if (!l)
        return FALSE;
    g_autoptr(VnLoad) load = vn_load_new(h->t);
    vn_ledger_to_load(l, h->t, h->config->policy, vn_hook_key(h), load);
    if (!m || !m->has_placement)
        return replan(h, load, "no recorded placement", error);
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_from_domain(h->domain);
    g_autofree gchar *why = NULL;
    if (vn_ledger_record_fits(r, h->t, load, h->config->policy, &why)) {
        vn_hook_decide(h, "unchanged", NULL, "recorded placement fits this host");
        return TRUE;
    }
    g_autofree gchar *conflict =
        g_strdup_printf("recorded placement does not fit this host: %s", why);
    return replan(h, load, conflict, error);
}
