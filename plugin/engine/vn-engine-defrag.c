/* vn-engine-defrag.c: defragmentation at admission on a real host — the
 * ledger's movable VMs handed to vn_rebalance_make_room(), and its moves
 * made into ledger records the live-apply path can apply (vn-engine.h).
 */
#include "vn-engine-residents.h"
#include "vn-engine.h"
#include "vn-load-release.h"
#include "vn-plan.h"
#include "vn-rebalance-room.h"

void
vn_engine_move_clear(VnEngineMove *m)
{
    g_clear_pointer(&m->vm, g_free);
    g_clear_pointer(&m->before, vn_ledger_record_free);
    g_clear_pointer(&m->after, vn_ledger_record_free);
}

/* A record make_room may move: running (not a start in progress, not a
 * hold), vnuma's own, shared, normal pages, free to run anywhere, one
 * cell on a node of `t`; never the domain being placed. */
static gboolean
movable(const VnLedgerRecord *r, const VnTopology *t, gconstpointer skip_name)
{
    const VnLedgerCell *c;

    if (r->state != VN_LEDGER_STATE_RUNNING || r->expires || r->foreign || r->dedicated ||
        r->hugepage_kib || r->allowed_cpus || r->whole || r->cells->len != 1 ||
        g_strcmp0(r->name, skip_name) == 0)
        return FALSE;
    c = &g_array_index(r->cells, VnLedgerCell, 0);
    return c->vcpus > 0 && vn_topology_node_by_os_id(t, c->node_os_id) >= 0;
}

static gboolean
spans_nodes(const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);

    return nodes->len > 1;
}

/* Room move -> the moved VM's record before and after (the rebalancer's
 * own record edit, vn_ledger_record_apply_move()). */
static gboolean
engine_move(const VnEngineHost *host, const VnLoad *load, const VnEngineResidents *res,
            const VnRoomMove *rm, VnEngineMove *ret)
{
    const VnLedgerRecord *r = g_ptr_array_index(res->records, rm->vm);
    const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, 0);
    VnMove m = { .vm = r->name,
                 .cell = c->id,
                 .from_node = rm->from_node,
                 .to_node = rm->to_node,
                 .vcpus = c->vcpus,
                 .memory_kib = rm->memory_kib,
                 .from_domain = -1,
                 .to_domain = -1 };
    g_autoptr(VnLedgerRecord) after = vn_ledger_record_copy(r);

    if (!vn_ledger_record_apply_move(after, host->t, load, host->policy, &m))
        return FALSE;
    ret->vm = g_strdup(r->name);
    ret->cell = c->id;
    ret->from_node = rm->from_node;
    ret->to_node = rm->to_node;
    ret->vcpus = c->vcpus;
    ret->memory_kib = rm->memory_kib;
    ret->before = vn_ledger_record_copy(r);
    ret->after = g_steal_pointer(&after);
    return TRUE;
}

static void set_note(VnEngineResult *ret, const gchar *fmt, ...) G_GNUC_PRINTF(2, 3);

static void
set_note(VnEngineResult *ret, const gchar *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    g_free(ret->defrag_note);
    ret->defrag_note = g_strdup_vprintf(fmt, args);
    va_end(args);
}

/* The moves, applied to a copy of the load, and the VM placed again:
 * its one-node placement, or NULL. */
static VnPlacement *
place_after(const VnEngineHost *host, const VnEngineResidents *res, GArray *room,
            const VnRequest *req, VnEngineResult *ret)
{
    g_autoptr(VnLoad) load = vn_load_copy(host->load);
    g_autoptr(GArray) moves = g_array_new(FALSE, TRUE, sizeof(VnEngineMove));
    g_autoptr(VnPlacement) whole = NULL;

    g_array_set_clear_func(moves, (GDestroyNotify)vn_engine_move_clear);
    for (guint i = 0; i < room->len; i++) {
        const VnRoomMove *rm = &g_array_index(room, VnRoomMove, i);
        const VnRequest *r = g_ptr_array_index(res->requests, rm->vm);
        VnEngineMove m = { 0 };
        if (!engine_move(host, load, res, rm, &m)) {
            set_note(ret, "%s has no usable CPUs on node %u for its move",
                     ((VnLedgerRecord *)g_ptr_array_index(res->records, rm->vm))->name,
                     host->t->nodes[rm->to_node].os_id);
            return NULL;
        }
        g_array_append_val(moves, m);
        vn_load_release(load, host->t, host->policy, r, g_ptr_array_index(res->placements, rm->vm));
        vn_load_commit(load, host->t, host->policy, r, rm->placement);
    }
    whole = vn_plan(host->t, load, host->policy, req, NULL, NULL);
    if (!whole || spans_nodes(whole)) {
        set_note(ret, "after the moves the VM is still split (the planner chose otherwise)");
        return NULL;
    }
    ret->moves = g_steal_pointer(&moves);
    return g_steal_pointer(&whole);
}

void
vn_engine_defragment(const VnEngineHost *host, const gchar *name, VnEngineResult *ret)
{
    g_auto(VnEngineResidents) res = { 0 };
    g_autoptr(GArray) room = NULL;
    g_autoptr(VnPlacement) whole = NULL;
    guint node = 0;

    if (host->defragment == VN_DEFRAGMENT_OFF || !host->ledger || !ret->placement ||
        !spans_nodes(ret->placement))
        return;
    if (ret->request->cells || ret->request->cell_sizes) {
        set_note(ret, "not looked for: the domain's guest cells are given");
        return;
    }
    vn_engine_residents_init(&res, host->ledger, host->t, movable, name);
    room = vn_rebalance_make_room(host->t, host->load, host->policy, ret->request, res.requests,
                                  res.placements, VN_ENGINE_DEFRAG_MAX_MOVES,
                                  VN_ENGINE_DEFRAG_MAX_MEMORY_KIB, &node);
    if (!room) {
        set_note(ret,
                 "no moves of at most %u small one-node VMs (%" G_GUINT64_FORMAT
                 " GiB) let it fit one node",
                 VN_ENGINE_DEFRAG_MAX_MOVES, VN_ENGINE_DEFRAG_MAX_MEMORY_KIB / (1024 * 1024));
        return;
    }
    whole = place_after(host, &res, room, ret->request, ret);
    if (!whole)
        return;
    ret->defrag_node = host->t->nodes[g_array_index(whole->cells, VnCell, 0).node].os_id;
    if (host->defragment == VN_DEFRAGMENT_APPLY) {
        ret->split = g_steal_pointer(&ret->placement);
        ret->placement = g_steal_pointer(&whole);
    }
}
