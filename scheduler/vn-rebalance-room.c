/* vn-rebalance-room.c: defragmentation at admission (contracts:
 * vn-rebalance-room.h). */
#include "vn-rebalance-room.h"
#include "vn-load-release.h"
#include "vn-plan.h"

/* Nodes tried as the one to empty: those with the most memory room. */
#define ROOM_NODES 3
/* VMs of a node tried for a move, smallest first. */
#define ROOM_CANDIDATES 24

static void
room_move_clear(gpointer data)
{
    VnRoomMove *m = data;

    g_clear_pointer(&m->placement, vn_placement_free);
}

/* `req` as one guest cell on the nodes whose CPUs are in `cpus`, within
 * its own allowed CPUs when it has them. */
static VnRequest *
one_cell_request(const VnRequest *req, const VnBitmap *cpus)
{
    VnRequest *r = vn_request_new();

    r->vcpus = req->vcpus;
    r->memory_kib = req->memory_kib;
    r->priority = req->priority;
    r->cells = 1;
    r->allowed_cpus = vn_bitmap_copy(cpus);
    if (req->allowed_cpus)
        vn_bitmap_and(r->allowed_cpus, req->allowed_cpus);
    return r;
}

static gboolean
fits_node(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const VnRequest *req,
          guint node)
{
    g_autoptr(VnRequest) one = one_cell_request(req, t->nodes[node].cpus);
    g_autoptr(VnPlacement) p = vn_plan(t, load, policy, one, NULL, NULL);

    return p != NULL;
}

/* A VM that may move: shared, normal pages, one cell on `node`. */
static gboolean
movable_from(const VnRequest *r, const VnPlacement *p, guint node)
{
    return p && !r->dedicated && !r->hugepage_kib && !r->allowed_cpus && p->cells->len == 1 &&
           g_array_index(p->cells, VnCell, 0).node == node;
}

/* Its placement on one node other than `node`, or NULL. */
static VnPlacement *
place_elsewhere(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const VnRequest *r,
                guint node)
{
    g_autoptr(VnBitmap) cpus = vn_bitmap_new(t->n_cpu_ids);
    g_autoptr(VnRequest) one = NULL;

    for (guint i = 0; i < t->n_nodes; i++)
        if (i != node)
            vn_bitmap_or(cpus, t->nodes[i].cpus);
    one = one_cell_request(r, cpus);
    return vn_plan(t, load, policy, one, NULL, NULL);
}

typedef struct {
    const VnTopology *t;
    const VnPolicy *policy;
    const VnRequest *req;
    GPtrArray *requests, *placements;
    guint max_moves;
    guint64 max_memory_kib;
} Room;

static gint
memory_asc(gconstpointer a, gconstpointer b, gpointer requests)
{
    const VnRequest *x = g_ptr_array_index((GPtrArray *)requests, *(const guint *)a);
    const VnRequest *y = g_ptr_array_index((GPtrArray *)requests, *(const guint *)b);

    return (x->memory_kib > y->memory_kib) - (x->memory_kib < y->memory_kib);
}

/* The VMs that may move off `node`, smallest first, at most
 * ROOM_CANDIDATES. */
static GArray *
candidates_on(const Room *r, guint node)
{
    GArray *c = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint i = 0; i < r->placements->len; i++)
        if (movable_from(g_ptr_array_index(r->requests, i), g_ptr_array_index(r->placements, i),
                         node))
            g_array_append_val(c, i);
    g_array_sort_with_data(c, memory_asc, r->requests);
    if (c->len > ROOM_CANDIDATES)
        g_array_set_size(c, ROOM_CANDIDATES);
    return c;
}

/* Tries candidate `vm` on `load`: released and placed elsewhere; the
 * move, or FALSE with `load` unchanged. */
static gboolean
try_move(const Room *r, VnLoad *load, guint node, guint vm, VnRoomMove *ret)
{
    const VnRequest *req = g_ptr_array_index(r->requests, vm);
    const VnPlacement *p = g_ptr_array_index(r->placements, vm);
    VnPlacement *to;

    vn_load_release(load, r->t, r->policy, req, p);
    to = place_elsewhere(r->t, load, r->policy, req, node);
    if (!to) {
        vn_load_commit(load, r->t, r->policy, req, p);
        return FALSE;
    }
    vn_load_commit(load, r->t, r->policy, req, to);
    ret->vm = vm;
    ret->from_node = node;
    ret->to_node = g_array_index(to->cells, VnCell, 0).node;
    ret->memory_kib = req->memory_kib;
    ret->placement = to;
    return TRUE;
}

static void
undo_move(const Room *r, VnLoad *load, VnRoomMove *m)
{
    const VnRequest *req = g_ptr_array_index(r->requests, m->vm);

    vn_load_release(load, r->t, r->policy, req, m->placement);
    vn_load_commit(load, r->t, r->policy, req, g_ptr_array_index(r->placements, m->vm));
    room_move_clear(m);
}

/* The greedy plan for emptying `node`, or NULL. */
static GArray *
plan_node(const Room *r, const VnLoad *initial, guint node)
{
    g_autoptr(VnLoad) load = vn_load_copy(initial);
    g_autoptr(GArray) cands = candidates_on(r, node);
    g_autofree gboolean *used = g_new0(gboolean, MAX(cands->len, 1));
    g_autoptr(GArray) moves = g_array_new(FALSE, TRUE, sizeof(VnRoomMove));
    guint64 moved = 0;

    g_array_set_clear_func(moves, room_move_clear);
    while (moves->len < r->max_moves) {
        VnRoomMove best = { 0 };
        gint largest = -1;
        gboolean done = FALSE;
        /* the smallest whose move alone lets the VM fit */
        for (guint i = 0; i < cands->len && !done; i++) {
            guint vm = g_array_index(cands, guint, i);
            VnRoomMove m;
            if (used[i] ||
                moved + ((VnRequest *)r->requests->pdata[vm])->memory_kib > r->max_memory_kib)
                continue;
            if (!try_move(r, load, node, vm, &m))
                continue;
            /* the largest that can move: one with nowhere to go must
             * not end the search for the smaller ones */
            largest = (gint)i;
            if (fits_node(r->t, load, r->policy, r->req, node)) {
                best = m;
                used[i] = done = TRUE;
            } else {
                undo_move(r, load, &m);
            }
        }
        if (done) {
            g_array_append_val(moves, best);
            return g_steal_pointer(&moves);
        }
        /* else the largest within the budget that can move, and go on */
        if (largest < 0 || moves->len + 1 >= r->max_moves ||
            !try_move(r, load, node, g_array_index(cands, guint, largest), &best))
            return NULL;
        used[largest] = TRUE;
        moved += best.memory_kib;
        g_array_append_val(moves, best);
    }
    return NULL;
}

static guint64
moves_memory(const GArray *moves)
{
    guint64 sum = 0;

    for (guint i = 0; i < moves->len; i++)
        sum += g_array_index(moves, VnRoomMove, i).memory_kib;
    return sum;
}

GArray *
vn_rebalance_make_room(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                       const VnRequest *req, GPtrArray *requests, GPtrArray *placements,
                       guint max_moves, guint64 max_memory_kib, guint *ret_node)
{
    Room r = { t, policy, req, requests, placements, max_moves, max_memory_kib };
    g_autofree guint *order = g_new(guint, MAX(t->n_nodes, 1));
    g_autofree gint64 *room = g_new0(gint64, MAX(t->n_nodes, 1));
    GArray *best = NULL;
    guint best_node = 0, n = 0;

    g_return_val_if_fail(t && load && policy && req && requests && placements, NULL);
    g_return_val_if_fail(requests->len == placements->len, NULL);
    if (req->cells || req->cell_sizes || req->dedicated || req->hugepage_kib || !max_moves)
        return NULL;
    for (guint i = 0; i < t->n_nodes; i++) {
        /* a node the VM may not run on is no use emptied */
        if (vn_bitmap_is_empty(t->nodes[i].cpus) ||
            (req->allowed_cpus && !vn_bitmap_intersects(t->nodes[i].cpus, req->allowed_cpus)))
            continue;
        if (fits_node(t, load, policy, req, i))
            return NULL;
        room[i] =
            (gint64)vn_policy_usable_memory_kib(policy, t, i, load->nodes[i].committed_memory_kib);
        order[n++] = i;
    }
    /* most room first (insertion sort: ties keep node order) */
    for (guint i = 1; i < n; i++)
        for (guint j = i; j > 0 && room[order[j - 1]] < room[order[j]]; j--) {
            guint tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (guint i = 0; i < MIN(n, ROOM_NODES); i++) {
        GArray *moves = plan_node(&r, load, order[i]);
        if (!moves)
            continue;
        if (!best || moves->len < best->len ||
            (moves->len == best->len && moves_memory(moves) < moves_memory(best))) {
            g_clear_pointer(&best, g_array_unref);
            best = moves;
            best_node = order[i];
        } else {
            g_array_unref(moves);
        }
    }
    if (best && ret_node)
        *ret_node = best_node;
    return best;
}
