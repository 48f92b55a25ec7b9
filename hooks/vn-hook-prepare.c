/* vn-hook-prepare.c: `prepare begin`, the one phase that decides.
 *
 * Runs before libvirt's own numad query.  Its output is discarded, so it
 * can only reserve, veto, or ask for a live apply after start:
 *   recorded placement fits          -> reserve it
 *   recorded placement does not fit  -> on_conflict: replan (plan anew
 *                                       by the engine's cell rule, reserve,
 *                                       apply live after start) | refuse
 *                                       (veto) | ignore (reserve as is)
 *   no placement, vnumad holds room  -> take that hold as the placement,
 *                                       apply live
 *   no placement, managed            -> plan, reserve, apply live
 *   no vnuma metadata, pinned by     -> count its pins as taken (any
 *   another manager (Nova, numad, a     `manage` but none): never re-
 *   hand-written <cputune>/numatune)    planned, moved or applied
 *   no vnuma metadata, <vcpu cpuset> -> managed: plan inside the set (an
 *   alone (Nova's cpu_shared_set)       allowed set, kept in the record);
 *                                       not managed: counted as taken
 *   not managed                      -> nothing
 * A plan that finds no room is a conflict too: refuse vetoes, the others
 * let the VM start unplaced.  All of read-plan-write happens under the
 * ledger lock, so concurrent starts never promise the same room twice. */
#include "vn-cpulist.h"
#include "vn-hook.h"
#include "vn-ledger-domain.h"
#include "vn-plan.h"

static gboolean
is_managed(const VnHook *h)
{
    const VnDomainMetadata *m = h->domain->meta;
    switch (h->config->hook_manage) {
    case VN_HOOK_MANAGE_ALL:
        return TRUE;
    case VN_HOOK_MANAGE_NONE:
        return FALSE;
    default:
        return m && (m->manage || m->has_placement);
    }
}

static void
refuse(VnHook *h, const gchar *why)
{
    vn_hook_decide(h, "refused", NULL, "%s (on_conflict = refuse)", why);
    h->refusal = g_strdup_printf("vnuma: refusing to start %s: %s", h->vm, why);
}

static gboolean
reserve(VnHook *h, VnLedger *l, VnLedgerRecord *r, GError **error)
{
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    r->state = VN_LEDGER_STATE_RESERVED;
    r->time = h->now;
    vn_ledger_put(l, r);
    g_free(h->nodes);
    h->nodes = g_steal_pointer(&nodes);
    return vn_ledger_commit(l, error);
}

/* A VM that starts with guest cells its guest cannot see (x86 without
 * ACPI): said in the decision's reason, so the log and `vnumactl log`
 * show it; the start is not refused for it. */
static void
warn_guest_view(VnHook *h)
{
    g_autofree gchar *w = vn_domain_guest_view_warning(h->domain);
    if (!w || !h->reason || h->refusal)
        return;
    gchar *reason = g_strdup_printf("%s; warning: %s", h->reason, w);
    g_free(h->reason);
    h->reason = reason;
}

/* "mid0 node 0 -> 1, small0 node 0 -> 2" */
static gchar *
moves_string(const VnHook *h, const GArray *moves)
{
    GString *s = g_string_new(NULL);

    for (guint i = 0; i < moves->len; i++) {
        const VnEngineMove *mv = &g_array_index(moves, VnEngineMove, i);
        g_string_append_printf(s, "%s%s node %u -> %u", i ? ", " : "", mv->vm,
                               h->t->nodes[mv->from_node].os_id, h->t->nodes[mv->to_node].os_id);
    }
    return g_string_free(s, FALSE);
}

/* [placement] defragment = apply found moves: each moved VM's record
 * takes its new cell, marked for a live apply. */
static void
record_moves(VnLedger *l, const GArray *moves)
{
    for (guint i = 0; i < moves->len; i++) {
        VnLedgerRecord *after = vn_ledger_record_copy(g_array_index(moves, VnEngineMove, i).after);
        after->needs_apply = TRUE;
        vn_ledger_put(l, after);
    }
}

/* The moved VMs applied live now, detached (they run; this VM's own apply
 * comes after `started`).  A move that fails keeps its record's
 * needs_apply and says why in apply.log. */
static gboolean
apply_moves(VnHook *h, const GArray *moves, GError **error)
{
    for (guint i = 0; i < moves->len; i++) {
        g_autofree gchar *vnumactl = NULL;
        if (!vn_hook_spawn_apply(h, g_array_index(moves, VnEngineMove, i).vm, FALSE, &vnumactl,
                                 error))
            return FALSE;
    }
    return TRUE;
}

/* Plans against everyone else's load through the engine (its cell rule:
 * the domain's own guest cells win, the core chooses without them), with
 * [placement] defragment: `apply` moves up to 2 small running VMs live so
 * a VM that would be split fits one node (their records changed, their
 * live applies started now), `propose` says which moves would. */
static gboolean
plan(VnHook *h, VnLedger *l, const VnLoad *load, const gchar *why, GError **error)
{
    const VnEngineHost host = { .t = h->t,
                                .load = load,
                                .policy = h->config->policy,
                                .defragment = h->config->defragment,
                                .ledger = l };
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(GError) plan_error = NULL;
    if (!vn_engine_run(h->domain, &host, VN_ENGINE_START, NULL, &res, &plan_error)) {
        if (!g_error_matches(plan_error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT)) {
            g_propagate_error(error, g_steal_pointer(&plan_error));
            return FALSE;
        }
        g_autofree gchar *short_of =
            g_strdup_printf("%s; no placement fits now: %s", why, plan_error->message);
        if (h->config->hook_on_conflict == VN_HOOK_CONFLICT_REFUSE)
            refuse(h, short_of);
        else
            vn_hook_decide(h, "unplaced", NULL, "%s; started without placement", short_of);
        return TRUE;
    }
    VnLedgerRecord *r = vn_ledger_record_from_placement(h->domain->uuid, h->domain->name,
                                                        res.placement, res.request);
    r->needs_apply = TRUE;
    g_autofree gchar *moved = res.moves && res.moves->len ? moves_string(h, res.moves) : NULL;
    if (moved && res.split)
        record_moves(l, res.moves);
    if (!reserve(h, l, r, error))
        return FALSE;
    if (moved && res.split) {
        if (!apply_moves(h, res.moves, error))
            return FALSE;
        vn_hook_decide(h, "planned", h->nodes,
                       "%s; planned on one node after moving %s (defragment = apply: their live "
                       "moves started now), live apply after start",
                       why, moved);
    } else if (moved)
        vn_hook_decide(h, "planned", h->nodes,
                       "%s; planned, live apply after start; defragment = propose: moving %s "
                       "would let it fit node %u",
                       why, moved, res.defrag_node);
    else
        vn_hook_decide(h, "planned", h->nodes, "%s; planned, live apply after start", why);
    return TRUE;
}

static gboolean
recorded(VnHook *h, VnLedger *l, const VnLoad *load, GError **error)
{
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_from_domain(h->domain);
    g_autofree gchar *why = NULL;
    if (vn_ledger_record_fits(r, h->t, load, h->config->policy, &why)) {
        if (!reserve(h, l, g_steal_pointer(&r), error))
            return FALSE;
        vn_hook_decide(h, "reserved", h->nodes, "recorded placement fits");
        return TRUE;
    }
    g_autofree gchar *conflict = g_strdup_printf("recorded placement no longer fits: %s", why);
    switch (h->config->hook_on_conflict) {
    case VN_HOOK_CONFLICT_REFUSE:
        refuse(h, conflict);
        return TRUE;
    case VN_HOOK_CONFLICT_IGNORE:
        if (!reserve(h, l, g_steal_pointer(&r), error))
            return FALSE;
        vn_hook_decide(h, "reserved", h->nodes, "%s; kept as recorded (on_conflict = ignore)",
                       conflict);
        return TRUE;
    default:
        return plan(h, l, load, conflict, error);
    }
}

/* No placement in the XML, but vnumad reserved one for this VM: take it
 * (applied live after start) if it still fits, else plan anew. */
static gboolean
held_placement(VnHook *h, VnLedger *l, const VnLoad *load, const VnLedgerRecord *held,
               GError **error)
{
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_copy(held);
    g_free(r->uuid);
    r->uuid = g_strdup(vn_hook_key(h));
    r->expires = 0;
    r->needs_apply = TRUE;
    g_autofree gchar *why = NULL;
    /* the controller asked without the domain's <vcpu cpuset>: a hold
     * outside it is no placement for this domain */
    if (h->domain->allowed_cpus && !vn_ledger_record_within(r, h->domain->allowed_cpus))
        return plan(h, l, load,
                    "the placement reserved through the planning API lies outside the "
                    "domain's <vcpu cpuset>",
                    error);
    if (!vn_ledger_record_fits(r, h->t, load, h->config->policy, &why)) {
        g_autofree gchar *conflict = g_strdup_printf("the placement reserved through the "
                                                     "planning API no longer fits: %s",
                                                     why);
        return plan(h, l, load, conflict, error);
    }
    g_free(r->allowed_cpus);
    r->allowed_cpus = h->domain->allowed_cpus ? vn_cpulist_format(h->domain->allowed_cpus) : NULL;
    if (!reserve(h, l, g_steal_pointer(&r), error))
        return FALSE;
    vn_hook_decide(h, "reserved", h->nodes,
                   "placement reserved through the planning API; "
                   "live apply after start");
    return TRUE;
}

/* The room vnumad holds for this VM: by its name, else by its UUID (a
 * hold a cloud controller made for its instance's UUID). */
static VnLedgerRecord *
take_hold(const VnHook *h, VnLedger *l)
{
    VnLedgerRecord *held = vn_ledger_take_reservation(l, h->domain->name, h->now);
    g_autofree gchar *uuid = h->domain->uuid ? g_ascii_strdown(h->domain->uuid, -1) : NULL;

    if (!held && uuid)
        held = vn_ledger_take_reservation(l, uuid, h->now);
    return held;
}

/* A domain another manager placed (no placement of vnuma's recorded, but
 * pins or numatune it did not write): its CPUs and memory go into the
 * ledger as taken, so vnuma places others around it, and nothing of it
 * is changed. */
static gboolean
respect_foreign(VnHook *h, const VnDomainPins *pins, GError **error)
{
    g_autoptr(VnLedger) l = vn_hook_open_ledger(h, NULL, error);
    if (!l)
        return FALSE;
    g_autoptr(VnLedgerRecord) held = take_hold(h, l);
    gboolean stale = vn_ledger_remove(l, vn_hook_key(h));
    VnLedgerRecord *r =
        vn_ledger_record_from_pins(h->domain->uuid, h->domain->name, h->domain, pins, h->t);
    if (!r) {
        vn_hook_decide(h, "respected", NULL,
                       "placed by another manager (%s), on no node of this host: left as it is",
                       pins->what);
        return !(stale || held) || vn_ledger_commit(l, error);
    }
    if (!reserve(h, l, r, error))
        return FALSE;
    vn_hook_decide(h, "respected", h->nodes,
                   "placed by another manager (%s): left as it is, its CPUs and memory counted "
                   "as taken",
                   pins->what);
    return TRUE;
}

gboolean
vn_hook_prepare(VnHook *h, GError **error)
{
    /* config first: `strict` must be known even when the XML is bad */
    if (!vn_hook_load_host(h, error) || !vn_hook_load_domain(h, error))
        return FALSE;
    /* a domain that opted in (manage='yes') or carries vnuma's placement
     * is vnuma's, whatever else its XML says */
    if (h->config->hook_manage != VN_HOOK_MANAGE_NONE &&
        !(h->domain->meta && (h->domain->meta->manage || h->domain->meta->has_placement))) {
        g_autoptr(VnDomainPins) pins = vn_domain_foreign_pins(h->domain);
        /* <vcpu cpuset> alone is a set to place within, when vnuma places
         * the domain at all; else it is the other manager's as pins are */
        if (pins && !(pins->allowed_set && is_managed(h)))
            return respect_foreign(h, pins, error);
    }
    if (!is_managed(h)) {
        vn_hook_decide(h, "skipped", NULL, "not managed by vnuma (manage = %s)",
                       vn_hook_manage_to_string(h->config->hook_manage));
        return TRUE;
    }
    g_autoptr(VnLedger) l = vn_hook_open_ledger(h, NULL, error);
    if (!l)
        return FALSE;
    /* The room vnumad held for this VM (planning API) is the VM's own:
     * release it before checking, so the VM does not compete with itself. */
    g_autoptr(VnLedgerRecord) held = take_hold(h, l);
    /* A record of an earlier run of this domain is stale: drop it too, and
     * make both stick even when no new reservation is written. */
    gboolean stale = vn_ledger_remove(l, vn_hook_key(h));
    g_autoptr(VnLoad) load = vn_load_new(h->t);
    vn_ledger_to_load(l, h->t, h->config->policy, NULL, load);
    gboolean ok;
    if (h->domain->meta && h->domain->meta->has_placement)
        ok = recorded(h, l, load, error);
    else if (held)
        ok = held_placement(h, l, load, held, error);
    else
        ok = plan(h, l, load, "no recorded placement", error);
    warn_guest_view(h);
    if (ok && (stale || held) && !h->nodes)
        return vn_ledger_commit(l, error);
    return ok;
}
