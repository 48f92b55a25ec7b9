/* vnd-plan.c: POST /v1/plan and POST /v1/fit — planning without side
 * effects.  A VM comes as flags-like members or as a domain XML, which is
 * then rewritten exactly as `vnumactl plan DOMAIN.xml` would. */
#include "vnd.h"
#include "vnd-spec.h"

#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-placement-json.h"
#include "vn-plan.h"
#include "vn-json-build.h"

#include <math.h>
#include <string.h>

void
vnd_plan_outcome_clear(VndPlanOutcome *o)
{
    g_clear_pointer(&o->request, vn_request_free);
    g_clear_pointer(&o->placement, vn_placement_free);
    g_clear_pointer(&o->reasons, g_ptr_array_unref);
    g_clear_pointer(&o->xml, g_free);
    g_clear_pointer(&o->domain_name, g_free);
    vn_engine_result_clear(&o->defrag);
}

/* The engine's defragmentation results into `out`. */
static void
take_defrag(VndPlanOutcome *out, VnEngineResult *res)
{
    out->defrag.moves = g_steal_pointer(&res->moves);
    out->defrag.defrag_node = res->defrag_node;
    out->defrag.defrag_note = g_steal_pointer(&res->defrag_note);
}

gboolean
vnd_plan_error_is_no_fit(const GError *error)
{
    return g_error_matches(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
}

/* Library errors -> HTTP: the client's input (400) or a hand-written pin
 * the client may override with "force" (409).  NO_FIT passes through. */
static void
to_http_error(GError **error)
{
    GError *e = *error;
    gint code;

    if (!e || e->domain == VND_ERROR || vnd_plan_error_is_no_fit(e))
        return;
    code = g_error_matches(e, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN) ? VND_ERROR_CONFLICT
           : e->domain == VN_DOMAIN_ERROR || e->domain == VN_PLAN_ERROR     ? VND_ERROR_BAD_REQUEST
                                                                            : VND_ERROR_INTERNAL;
    e->domain = VND_ERROR;
    e->code = code;
}

static gboolean
plan_xml(VndState *s, VndSpec *spec, const VnEngineHost *host, VndPlanOutcome *out, GError **error)
{
    const VnConfig *c = vnd_state_config(s);
    VnDomainWriteOptions wo = { .force = spec->force, .memory_mode = c->memory_mode };
    g_autoptr(VnDomain) dom =
        vn_domain_load_buffer(spec->domain_xml, strlen(spec->domain_xml), "domain_xml", error);
    g_auto(VnEngineResult) res = { 0 };
    gboolean ok;

    if (!dom)
        return FALSE;
    ok = vn_engine_run(dom, host, VN_ENGINE_PLAN, &wo, &res, error);
    out->request = g_steal_pointer(&res.request);
    out->reasons = g_steal_pointer(&res.reasons);
    if (!ok)
        return FALSE;
    out->placement = g_steal_pointer(&res.placement);
    out->xml = g_steal_pointer(&res.xml);
    out->domain_name = g_strdup(dom->name);
    take_defrag(out, &res);
    return TRUE;
}

/* The request as given, then the engine's defragmentation step, as
 * `vnumactl plan` from flags. */
static gboolean
plan_request(VndSpec *spec, const VnEngineHost *host, VndPlanOutcome *out, GError **error)
{
    g_auto(VnEngineResult) res = { 0 };

    res.request = g_steal_pointer(&spec->request);
    res.placement = vn_plan(host->t, host->load, host->policy, res.request, &out->reasons, error);
    vn_engine_defragment(host, NULL, &res);
    out->request = g_steal_pointer(&res.request);
    out->placement = g_steal_pointer(&res.placement);
    take_defrag(out, &res);
    return out->placement != NULL;
}

gboolean
vnd_plan_run(VndState *s, VndSpec *spec, const VnLoad *load, const VnLedger *ledger,
             VndPlanOutcome *out, GError **error)
{
    const VnConfig *c = vnd_state_config(s);
    const VnEngineHost host = { .t = vnd_state_topology(s),
                                .load = load,
                                .policy = c->policy,
                                .sysroot = vnd_state_sysroot(s),
                                .defragment = ledger ? c->defragment : VN_DEFRAGMENT_OFF,
                                .ledger = ledger };
    gboolean ok = spec->domain_xml ? plan_xml(s, spec, &host, out, error)
                                   : plan_request(spec, &host, out, error);

    to_http_error(error);
    return ok;
}

/* Body -> spec -> outcome, shared by plan and fit. */
static gboolean
plan_body(VndDaemon *d, SoupServerMessage *msg, VndSpecKind kind, VndSpec **ret_spec,
          VndPlanOutcome *out, GError **error)
{
    g_autoptr(JsonNode) body = vnd_body_object(msg, vnd_spec_members(kind), error);
    g_autoptr(VndSpec) spec = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(VnLoad) own = NULL;
    const VnConfig *c = vnd_state_config(d->state);
    const VnLoad *load;

    if (!body || !(spec = vnd_spec_parse(json_node_get_object(body), kind, error)))
        return FALSE;
    if (kind == VND_SPEC_PLAN && c->defragment != VN_DEFRAGMENT_OFF) {
        /* the VMs that may move and the load they make, from one snapshot
         * (the cached load may be a ledger generation behind it) */
        if (!(ledger = vnd_ledger_snapshot(c->state_dir, error)))
            return FALSE;
        load = own = vnd_state_load_with_ledger(d->state, ledger);
    } else if (!(load = vnd_state_load(d->state, error))) {
        return FALSE;
    }
    if (!vnd_plan_run(d->state, spec, load, ledger, out, error))
        return FALSE;
    *ret_spec = g_steal_pointer(&spec);
    return TRUE;
}

static void
reply_no_fit(SoupServerMessage *msg, const GError *error, GPtrArray *reasons)
{
    g_autoptr(JsonNode) node = vn_plan_error_to_json(error, reasons);

    vnd_reply_json(msg, SOUP_STATUS_CONFLICT, node);
}

gboolean
vnd_handle_plan(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    g_auto(VndPlanOutcome) out = { 0 };
    g_autoptr(VndSpec) spec = NULL;
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) node = NULL;

    if (!plan_body(d, msg, VND_SPEC_PLAN, &spec, &out, &local)) {
        if (!vnd_plan_error_is_no_fit(local)) {
            g_propagate_error(error, g_steal_pointer(&local));
            return FALSE;
        }
        reply_no_fit(msg, local, out.reasons);
        return TRUE;
    }
    node = vn_placement_to_json(vnd_state_topology(d->state), out.placement, spec->explain);
    if (out.xml)
        json_object_set_string_member(json_node_get_object(node), "xml", out.xml);
    /* the moves, as `vnumactl plan --json` gives them */
    vn_engine_defrag_add_json(json_node_get_object(node), vnd_state_topology(d->state),
                              vnd_state_config(d->state)->defragment, &out.defrag);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}

/* ---- fit ---------------------------------------------------------------- */

static const VnCandidate *
chosen_candidate(const VnPlacement *p)
{
    for (guint i = 0; p->candidates && i < p->candidates->len; i++) {
        const VnCandidate *c = g_ptr_array_index(p->candidates, i);
        if (c->chosen)
            return c;
    }
    return NULL;
}

/* The host's score for this VM, an integer 0..100, higher = better
 * (doc/openapi.yaml):
 *   round(100 x (1 - u) x 10 / dbar)
 * u: the highest utilisation (0..1) of the placement's nodes after placing
 * it; dbar: the mean SLIT distance between its cells' nodes (10 for one
 * node).  An empty host taking the VM on one node scores near 100; a full
 * host or a VM spread over distant nodes scores low; no fit scores 0,
 * and so does a self-overcommitted fit (some of the VM's vCPUs share CPUs
 * with each other), so that any host giving each vCPU a CPU ranks above. */
static gint
fit_score(const VnPlacement *p)
{
    const VnCandidate *c = chosen_candidate(p);
    guint k = p->cells->len;
    gdouble u = c ? CLAMP(c->load_after, 0.0, 1.0) : 1.0;
    gdouble pairs = k * (k - 1) / 2.0;
    gdouble dbar = k > 1 && c ? (gdouble)c->internal_distance / pairs : 10.0;

    if (p->self_overcommitted)
        return 0;
    if (dbar < 10.0)
        dbar = 10.0;
    return (gint)round(100.0 * (1.0 - u) * 10.0 / dbar);
}

static JsonNode *
fit_json(gboolean fits, guint cells, gint score, GPtrArray *reasons, const VnPlacement *p)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    vn_json_add_bool(b, "fits", fits);
    vn_json_add_bool(b, "single_node", fits && cells == 1);
    vn_json_add_int(b, "cells", cells);
    vn_json_add_int(b, "score", score);
    vn_json_add_bool(b, "self_overcommitted", p && p->self_overcommitted);
    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; p && i < p->cells->len; i++)
        json_builder_add_int_value(b, g_array_index(p->cells, VnCell, i).node_os_id);
    json_builder_end_array(b);
    vn_json_add_strings(b, "reasons", reasons);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

gboolean
vnd_handle_fit(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    g_auto(VndPlanOutcome) out = { 0 };
    g_autoptr(VndSpec) spec = NULL;
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) node = NULL;

    if (plan_body(d, msg, VND_SPEC_FIT, &spec, &out, &local)) {
        node = fit_json(TRUE, out.placement->cells->len, fit_score(out.placement),
                        out.placement->reasons, out.placement);
    } else if (vnd_plan_error_is_no_fit(local)) {
        g_autoptr(GPtrArray) reasons = g_ptr_array_new_with_free_func(g_free);
        g_ptr_array_add(reasons, g_strdup(local->message));
        for (guint i = 0; out.reasons && i < out.reasons->len; i++)
            if (!g_str_equal(g_ptr_array_index(out.reasons, i), local->message))
                g_ptr_array_add(reasons, g_strdup(g_ptr_array_index(out.reasons, i)));
        node = fit_json(FALSE, 0, 0, reasons, NULL);
    } else {
        g_propagate_error(error, g_steal_pointer(&local));
        return FALSE;
    }
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
