/* vn-hook-consolidate.c: [placement] consolidate when a VM stops.
 *
 * The stopped VM's record leaves the ledger; in the same transaction the
 * engine looks for one VM vnuma split over nodes that fewer nodes now
 * hold (vn_engine_consolidate()).  apply: its record takes the new cells,
 * marked for a live apply, and once the ledger is written its
 * `vnumactl apply` starts detached (the hook cannot call libvirt); a
 * failed start is logged, one line, and the record keeps its mark.
 * propose: the decision names the move, the ledger is unchanged.  A stop
 * never fails for any of it. */
#include "vn-hook.h"

GArray *
vn_hook_consolidate(VnHook *h, VnLedger *l)
{
    g_autoptr(VnLoad) load = NULL;
    GArray *found;

    if (!h->t || !h->config || h->config->consolidate == VN_CONSOLIDATE_OFF)
        return NULL;
    load = vn_load_new(h->t);
    vn_ledger_to_load(l, h->t, h->config->policy, NULL, load);
    const VnEngineHost host = { .t = h->t, .load = load, .policy = h->config->policy, .ledger = l };
    found = vn_engine_consolidate(&host);
    if (h->config->consolidate == VN_CONSOLIDATE_APPLY) {
        for (guint i = 0; i < found->len; i++) {
            VnLedgerRecord *after =
                vn_ledger_record_copy(g_array_index(found, VnEngineConsolidation, i).after);
            after->time = h->now;
            vn_ledger_put(l, after);
        }
    }
    return found;
}

/* One consolidation's text for the decision; APPLY starts its apply. */
static gchar *
consolidated(VnHook *h, const VnEngineConsolidation *c)
{
    g_autofree gchar *what = vn_engine_consolidation_describe(c);
    g_autofree gchar *vnumactl = NULL;
    g_autoptr(GError) error = NULL;

    if (h->config->consolidate == VN_CONSOLIDATE_PROPOSE)
        return g_strdup_printf("consolidate = propose: would consolidate %s", what);
    if (!vn_hook_spawn_apply(h, c->vm, FALSE, &vnumactl, &error)) {
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "MESSAGE",
                         "%s: consolidation of %s recorded, its live apply not started: %s", h->vm,
                         c->vm, error->message);
        return g_strdup_printf("consolidated %s (consolidate = apply: its live apply could not "
                               "start: %s)",
                               what, error->message);
    }
    if (!vnumactl)
        return g_strdup_printf("consolidated %s (consolidate = apply: live apply needed but "
                               "vnumactl was not found)",
                               what);
    return g_strdup_printf("consolidated %s (consolidate = apply: its live apply started now)",
                           what);
}

gchar *
vn_hook_consolidated(VnHook *h, const GArray *found)
{
    GString *s = g_string_new(NULL);

    for (guint i = 0; found && i < found->len; i++) {
        g_autofree gchar *one = consolidated(h, &g_array_index(found, VnEngineConsolidation, i));
        g_string_append_printf(s, "; %s", one);
    }
    return g_string_free(s, FALSE);
}
