/* vn-simulate.c: the what-if replay.  Contracts and metrics: vn-simulate.h.
 *
 * Every policy runs on its own copy of the load; the oracles (vn_plan()
 * for feasibility, for one-node fits and for the best split distance) are
 * asked about that same copy just before the policy's choice is
 * committed, so "at that moment" means the policy's own host state.
 */
#include "vn-simulate.h"

#include <string.h>

#include "vn-load-release.h"
#include "vn-plan.h"
#include "vn-simulate-private.h"
#include "vn-rebalance-consolidate.h"
#include "vn-rebalance-room.h"

/* The rebalancer's round (vn-rebalance.h defaults) bounds the moves made
 * for one admission. */
#define DEFRAG_MAX_MOVES 2
#define DEFRAG_MAX_MEMORY_KIB (16ull * 1024 * 1024)

G_DEFINE_QUARK(vn-simulate-error-quark, vn_simulate_error);

static const gchar *const policy_names[VN_SIM_POLICY_MAX] = {
    [VN_SIM_POLICY_VNUMA] = "vnuma",
    [VN_SIM_POLICY_FIRST_FIT] = "first-fit",
    [VN_SIM_POLICY_MOST_FREE] = "most-free",
    [VN_SIM_POLICY_ROUND_ROBIN] = "round-robin",
    [VN_SIM_POLICY_NO_PINNING] = "no-pinning",
    [VN_SIM_POLICY_VNUMA_PACKING] = "vnuma-packing",
    [VN_SIM_POLICY_VNUMA_HOLE] = "vnuma-hole",
    [VN_SIM_POLICY_VNUMA_EVEN] = "vnuma-even",
    [VN_SIM_POLICY_VNUMA_DEFRAG] = "vnuma-defrag",
    [VN_SIM_POLICY_VNUMA_LOAD] = "vnuma-load",
    [VN_SIM_POLICY_VNUMA_NO_CONSOLIDATE] = "vnuma-no-consolidate",
    [VN_SIM_POLICY_VNUMA_MIRROR] = "vnuma-mirror",
    [VN_SIM_POLICY_VNUMA_REBALANCE] = "vnuma-rebalance",
};

const gchar *
vn_sim_policy_to_string(VnSimPolicy p)
{
    return p < VN_SIM_POLICY_MAX ? policy_names[p] : NULL;
}

gboolean
vn_sim_policy_from_string(const gchar *s, VnSimPolicy *ret_p)
{
    for (guint i = 0; i < VN_SIM_POLICY_MAX; i++)
        if (g_strcmp0(s, policy_names[i]) == 0) {
            *ret_p = (VnSimPolicy)i;
            return TRUE;
        }
    return FALSE;
}

typedef struct {
    gdouble time;
    gboolean departure;
    guint vm;
} Event;

static gint
event_cmp(gconstpointer pa, gconstpointer pb)
{
    const Event *a = pa, *b = pb;

    if (a->time != b->time)
        return a->time < b->time ? -1 : 1;
    if (a->departure != b->departure)
        return a->departure ? -1 : 1;
    return (a->vm > b->vm) - (a->vm < b->vm);
}

/* Arrivals and departures of every VM, in replay order.  A departure of a
 * VM that was not admitted is skipped when it comes up. */
static GArray *
events_new(const VnTrace *trace)
{
    GArray *ev = g_array_sized_new(FALSE, FALSE, sizeof(Event), 2 * trace->vms->len);

    for (guint i = 0; i < trace->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(trace->vms, VnTraceVm, i);
        Event a = { vm->time_s, FALSE, i }, d = { vm->time_s + vm->duration_s, TRUE, i };
        g_array_append_val(ev, a);
        g_array_append_val(ev, d);
    }
    g_array_sort(ev, event_cmp);
    return ev;
}

/* vn_plan() with one of its policies (not a baseline). */
static gboolean
vnuma_policy(VnSimPolicy which)
{
    return which == VN_SIM_POLICY_VNUMA || which >= VN_SIM_POLICY_VNUMA_PACKING;
}

static VnPlacement *
sim_place(VnSim *s, const VnRequest *req, GError **error)
{
    if (vnuma_policy(s->which))
        return vn_plan(s->t, s->load, s->plan_policy, req, NULL, error);
    return vn_baseline_place((VnBaseline)(s->which - 1), s->t, s->load, s->policy, req, &s->cursor,
                             error);
}

/* NULL with *error unset means "no fit"; an invalid request is an error. */
static VnPlacement *
place_or_error(VnSim *s, const VnRequest *req, GError **error)
{
    g_autoptr(GError) local = NULL;
    VnPlacement *p = sim_place(s, req, &local);

    if (p || g_error_matches(local, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT) ||
        g_error_matches(local, VN_BASELINE_ERROR, VN_BASELINE_ERROR_NO_FIT))
        return p;
    g_propagate_error(error, g_steal_pointer(&local));
    return NULL;
}

static gboolean
spans_nodes(const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);

    return nodes->len > 1;
}

void
vn_sim_move_vm(VnSim *s, guint vm, VnPlacement *to)
{
    const VnRequest *r = g_ptr_array_index(s->requests, vm);
    VnPlacement *old = g_ptr_array_index(s->placed, vm);

    vn_sim_account_moved(s, &g_array_index(s->trace->vms, VnTraceVm, vm), r, old, to);
    vn_load_release(s->load, s->t, s->policy, r, old);
    vn_load_commit(s->load, s->t, s->policy, r, to);
    vn_placement_free(old);
    g_ptr_array_index(s->placed, vm) = to;
    s->since[vm] = (gint64)s->now;
}

/* vnuma-defrag: a VM about to be split fits one node after a few moves;
 * the moves are applied and the VM placed again. */
static VnPlacement *
defragment(VnSim *s, const VnRequest *req, VnPlacement *p)
{
    g_autoptr(GArray) moves = NULL;
    VnPlacement *again;

    if (s->which != VN_SIM_POLICY_VNUMA_DEFRAG || !spans_nodes(p))
        return p;
    moves = vn_rebalance_make_room(s->t, s->load, s->plan_policy, req, s->requests, s->placed,
                                   DEFRAG_MAX_MOVES, DEFRAG_MAX_MEMORY_KIB, NULL);
    if (!moves)
        return p;
    for (guint m = 0; m < moves->len; m++) {
        VnRoomMove *mv = &g_array_index(moves, VnRoomMove, m);
        s->m.moves++;
        s->m.moved_gib += mv->memory_kib / (1024.0 * 1024.0);
        vn_sim_move_vm(s, mv->vm, g_steal_pointer(&mv->placement));
    }
    again = vn_plan(s->t, s->load, s->plan_policy, req, NULL, NULL);
    if (!again)
        return p;
    s->m.defragmented += !spans_nodes(again);
    vn_placement_free(p);
    return again;
}

static gboolean
arrive(VnSim *s, guint i, GError **error)
{
    const VnTraceVm *vm = &g_array_index(s->trace->vms, VnTraceVm, i);
    const VnRequest *req = g_ptr_array_index(s->requests, i);
    g_autoptr(GError) local = NULL;
    g_autoptr(VnPlacement) p = place_or_error(s, req, &local);

    if (local) {
        g_set_error(error, VN_SIMULATE_ERROR, VN_SIMULATE_ERROR_INVALID, "VM %s: %s", vm->name,
                    local->message);
        return FALSE;
    }
    if (!p) {
        vn_sim_account_rejected(s, req);
        return TRUE;
    }
    p = defragment(s, req, g_steal_pointer(&p));
    vn_sim_account_admitted(s, vm, req, p);
    vn_load_commit(s->load, s->t, s->policy, req, p);
    g_ptr_array_index(s->placed, i) = g_steal_pointer(&p);
    s->since[i] = (gint64)vm->time_s;
    if (s->admitted)
        s->admitted[i] = TRUE;
    return TRUE;
}

/* Every vnuma policy but vnuma-no-consolidate: after a departure, split
 * VMs put back on fewer nodes (vn_rebalance_consolidate()), within the
 * budget of one VM's stop, as the qemu hook does at `release`. */
static void
consolidate(VnSim *s)
{
    g_autoptr(GArray) done = NULL;

    if (!vnuma_policy(s->which) || s->which == VN_SIM_POLICY_VNUMA_NO_CONSOLIDATE)
        return;
    done = vn_rebalance_consolidate(s->t, s->load, s->plan_policy, s->requests, s->placed,
                                    VN_CONSOLIDATE_MAX_VMS, VN_CONSOLIDATE_MAX_MEMORY_KIB);
    for (guint k = 0; k < done->len; k++) {
        VnConsolidation *c = &g_array_index(done, VnConsolidation, k);
        s->m.consolidated++;
        s->m.consolidated_gib += c->moved_kib / (1024.0 * 1024.0);
        vn_sim_move_vm(s, c->vm, g_steal_pointer(&c->placement));
    }
}

static void
depart(VnSim *s, guint i)
{
    VnPlacement *p = g_ptr_array_index(s->placed, i);

    if (!p)
        return;
    vn_sim_account_departed(s, g_ptr_array_index(s->requests, i), p);
    vn_load_release(s->load, s->t, s->policy, g_ptr_array_index(s->requests, i), p);
    g_clear_pointer(&g_ptr_array_index(s->placed, i), vn_placement_free);
    consolidate(s);
}

static GPtrArray *
requests_new(const VnTrace *trace)
{
    GPtrArray *reqs = g_ptr_array_new_full(trace->vms->len, (GDestroyNotify)vn_request_free);

    for (guint i = 0; i < trace->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(trace->vms, VnTraceVm, i);
        VnRequest *r = vn_request_new();
        r->vcpus = vm->vcpus;
        r->memory_kib = vm->memory_kib;
        g_ptr_array_add(reqs, r);
    }
    return reqs;
}

static gboolean
run(VnSim *s, GError **error)
{
    g_autoptr(GArray) ev = events_new(s->trace);

    for (guint e = 0; e < ev->len; e++) {
        const Event *x = &g_array_index(ev, Event, e);

        vn_sim_account_time(s, x->time);
        if (x->departure)
            depart(s, x->vm);
        else if (!arrive(s, x->vm, error))
            return FALSE;
        if (s->which == VN_SIM_POLICY_VNUMA_REBALANCE)
            vn_sim_rebalance_round(s, x->time);
        if (!x->departure && x->time == s->last_arrival)
            vn_sim_account_last_arrival(s);
    }
    return TRUE;
}

gboolean
vn_simulate(const VnTopology *t, const VnLoad *initial, const VnPolicy *policy,
            const VnTrace *trace, VnSimPolicy which, const VnSimModel *model,
            VnSimMetrics *ret_metrics, GError **error)
{
    return vn_simulate_admitted(t, initial, policy, trace, which, model, ret_metrics, NULL, error);
}

/* Every VM's times within what the replay counts (vn-trace.h): a trace
 * not read from CSV (vn-trace-file.c checks) may hold any double. */
static gboolean
trace_in_range(const VnTrace *trace, GError **error)
{
    for (guint i = 0; i < trace->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(trace->vms, VnTraceVm, i);
        if (!(vm->time_s >= 0 && vm->time_s <= VN_TRACE_MAX_SECONDS && vm->duration_s > 0 &&
              vm->duration_s <= VN_TRACE_MAX_SECONDS)) {
            g_set_error(error, VN_SIMULATE_ERROR, VN_SIMULATE_ERROR_INVALID,
                        "VM %s: time %g s or duration %g s out of range (0 to %.0e)", vm->name,
                        vm->time_s, vm->duration_s, VN_TRACE_MAX_SECONDS);
            return FALSE;
        }
    }
    return TRUE;
}

gboolean
vn_simulate_admitted(const VnTopology *t, const VnLoad *initial, const VnPolicy *policy,
                     const VnTrace *trace, VnSimPolicy which, const VnSimModel *model,
                     VnSimMetrics *ret_metrics, gboolean *ret_admitted, GError **error)
{
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(GPtrArray) requests = NULL;
    g_autoptr(GPtrArray) placed = NULL;
    VnSim s = { 0 };
    /* Shallow copies, borrowing reserved_cpus: only the balance, the
     * split and (vnuma-mirror) the search order differ. */
    VnPolicy by_load, adaptive, packing, hole, even, mirror;

    g_return_val_if_fail(t && t->finished && policy && trace && which < VN_SIM_POLICY_MAX, FALSE);
    g_return_val_if_fail(!initial || initial->n_nodes == t->n_nodes, FALSE);
    if (!trace_in_range(trace, error))
        return FALSE;
    by_load = *policy;
    by_load.balance = VN_BALANCE_LOAD;
    by_load.split = VN_SPLIT_FILL;
    adaptive = by_load;
    adaptive.balance = VN_BALANCE_ADAPTIVE;
    packing = by_load;
    packing.balance = VN_BALANCE_MEMORY_PACKING;
    hole = by_load;
    hole.balance = VN_BALANCE_KEEP_HOLE;
    even = adaptive;
    even.split = VN_SPLIT_EVEN;
    mirror = adaptive;
    mirror.search_from_last = TRUE;
    load = initial ? vn_load_copy(initial) : vn_load_new(t);
    requests = requests_new(trace);
    placed = g_ptr_array_new_full(trace->vms->len, (GDestroyNotify)vn_placement_free);
    g_ptr_array_set_size(placed, trace->vms->len);
    vn_sim_init(&s, t, &by_load, trace, which, model, load, requests, placed);
    if (ret_admitted)
        memset(ret_admitted, 0, trace->vms->len * sizeof(gboolean));
    s.admitted = ret_admitted;
    s.plan_policy = which == VN_SIM_POLICY_VNUMA_PACKING  ? &packing
                    : which == VN_SIM_POLICY_VNUMA_HOLE   ? &hole
                    : which == VN_SIM_POLICY_VNUMA_EVEN   ? &even
                    : which == VN_SIM_POLICY_VNUMA_LOAD   ? &by_load
                    : which == VN_SIM_POLICY_VNUMA_MIRROR ? &mirror
                                                          : &adaptive;
    if (!run(&s, error)) {
        vn_sim_clear(&s);
        return FALSE;
    }
    vn_sim_finish(&s, ret_metrics);
    vn_sim_clear(&s);
    return TRUE;
}
