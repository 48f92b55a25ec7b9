/* vn-hook-filter.c: `migrate begin` (incoming) and `restore begin`.
 *
 * These are libvirt's only filters: what the hook prints replaces the XML,
 * nothing printed keeps it.  libvirt then checks that the guest ABI did
 * not change (vNUMA cells, CPU topology), and a failing check cancels the
 * migration — worse than a VM placed as on its old host.  So:
 *   recorded placement fits here          -> print nothing
 *   it does not (or none, VM managed)     -> re-plan with the guest's cell
 *                                            count (1 without guest NUMA),
 *                                            rewrite pins, numatune
 *                                            and metadata, print it, but
 *                                            only if every guest cell keeps
 *                                            its vCPUs and memory
 *   anything else, any error              -> print nothing
 * No reservation here: libvirt runs `prepare` next with the XML we print,
 * and that reserves it.  Only managed VMs are rewritten, and for them the
 * old host's pins are replaced even when the metadata does not account for
 * them (a live apply pins without rewriting the metadata). */
#include "vn-hook.h"
#include "vn-ledger-domain.h"
#include "vn-plan.h"

/* Same guest cells, in order: vCPUs and memory (no cells on both sides is
 * the same too). */
static gboolean same_cells(GArray *a, GArray *b)
{
    guint na = a ? a->len : 0, nb = b ? b->len : 0;
    if (na != nb)
        return FALSE;
    for (guint i = 0; i < na; i++) {
        const VnDomainCell *x = &g_array_index(a, VnDomainCell, i);
        const VnDomainCell *y = &g_array_index(b, VnDomainCell, i);
        if (x->memory_kib != y->memory_kib || !vn_bitmap_equal(x->vcpus, y->vcpus))
            return FALSE;
    }
    return TRUE;
}

/* Copies the guest cells (vCPU sets and sizes) before the rewrite. */
static GArray *copy_cells(GArray *cells)
{
    GArray *c = g_array_new(FALSE, TRUE, sizeof(VnDomainCell));
    for (guint i = 0; cells && i < cells->len; i++) {
        VnDomainCell x = g_array_index(cells, VnDomainCell, i);
        x.vcpus = vn_bitmap_copy(x.vcpus);
        g_array_append_val(c, x);
    }
    return c;
}

static void free_cells(GArray *c)
{
    for (guint i = 0; i < c->len; i++)
        vn_bitmap_free(g_array_index(c, VnDomainCell, i).vcpus);
    g_array_unref(c);
}

static gboolean replan(VnHook *h, const VnLoad *load, const gchar *why, GError **error)
{
    const VnDomainMetadata *m = h->domain->meta;
    g_autoptr(VnRequest) req = vn_domain_to_request(h->domain, NULL, error);
    if (!req)
        return FALSE;
    /* The guest keeps its cell count: a VM without guest NUMA stays on one
     * node (no fit = left as it was). */
    guint cells = h->domain->cells ? h->domain->cells->len : 0;
    req->cells = MAX(cells, 1);
    g_autoptr(VnPlacement) p = vn_plan(h->t, load, h->config->policy, req, NULL, error);
    if (!p)
        return FALSE;
    if (m && m->has_placement && m->threads_per_core && p->threads_per_core != m->threads_per_core) {
        vn_hook_decide(h, "unchanged", NULL, "%s; a new placement would change the guest's "
                       "threads per core, kept as it was", why);
        return TRUE;
    }
    GArray *before = copy_cells(h->domain->cells);
    /* force: the pins in a managed VM's incoming XML are the old host's
     * (vnuma's own, or set live by `vnumactl apply`), meaningless here. */
    VnDomainWriteOptions o = { .force = TRUE,
                               .memory_mode = m ? m->memory_mode : VN_MEMORY_MODE_RESTRICTIVE };
    gboolean ok = vn_domain_apply_placement(h->domain, h->t, p, &o, error);
    gboolean abi_kept = ok && same_cells(before, h->domain->cells);
    free_cells(before);
    if (!ok)
        return FALSE;
    if (!abi_kept) {
        vn_hook_decide(h, "unchanged", NULL, "%s; a new placement would change the guest "
                       "NUMA cells, kept as it was", why);
        return TRUE;
    }
    g_autoptr(GArray) nodes = vn_placement_nodes(p);
    g_autoptr(GString) list = g_string_new(NULL);
    for (guint i = 0; i < nodes->len; i++)
        g_string_append_printf(list, "%s%u", i ? "," : "",
                               h->t->nodes[g_array_index(nodes, guint, i)].os_id);
    h->filtered = vn_domain_to_string(h->domain);
    vn_hook_decide(h, "replaced", list->str, "%s; pins and numatune re-planned for this host",
                   why);
    return TRUE;
}

gboolean vn_hook_filter(VnHook *h, GError **error)
{
    if (!vn_hook_load_host(h, error) || !vn_hook_load_domain(h, error))
        return FALSE;
    const VnDomainMetadata *m = h->domain->meta;
    gboolean managed = h->config->hook_manage == VN_HOOK_MANAGE_ALL ||
                       (h->config->hook_manage == VN_HOOK_MANAGE_OPTED_IN && m &&
                        (m->manage || m->has_placement));
    if (!managed) {
        vn_hook_decide(h, "unchanged", NULL, "not managed by vnuma");
        return TRUE;
    }
    g_autoptr(VnLedger) l = vn_ledger_snapshot(vn_hook_state_dir(h), error);
    if (!l)
        return FALSE;
    g_autoptr(VnLoad) load = vn_load_new(h->t);
    vn_ledger_to_load(l, h->t, h->config->policy, vn_hook_key(h), load);
    if (!m || !m->has_placement)
        return replan(h, load, "no recorded placement", error);
    g_autoptr(VnLedgerRecord) r =
        vn_ledger_record_from_metadata(h->domain->uuid, h->domain->name, m);
    g_autofree gchar *why = NULL;
    if (vn_ledger_record_fits(r, h->t, load, h->config->policy, &why)) {
        vn_hook_decide(h, "unchanged", NULL, "recorded placement fits this host");
        return TRUE;
    }
    g_autofree gchar *conflict = g_strdup_printf("recorded placement does not fit this host: %s",
                                                 why);
    return replan(h, load, conflict, error);
}
