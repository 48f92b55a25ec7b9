/* vn-plan-cells.c: guest cells of their own sizes on a node set.
 *
 * The user's guest cells are guest ABI: cell i keeps its vCPUs and memory,
 * and only its host node is chosen.  A node holds its cells when their
 * summed vCPUs and memory fit in what it can still take (vn-plan-capacity.c:
 * the same overhead share, headroom, overcommit and dedicated-CPU rules as
 * for an even split); every node of a set holds at least one cell (a set
 * with an empty member is a smaller set, tried before it).
 *
 * Assignment, for a set of k nodes and c >= k cells (c <= 64):
 *  1. one cell per node: a bipartite matching (Kuhn's augmenting paths),
 *     nodes with the most room first, each trying the largest cells first
 *     — the largest cell goes to the node with most room unless that
 *     leaves another node without a cell it can hold.  O(k c^2).
 *  2. the other cells, largest first, each to the node with the most room
 *     left that holds it (worst-fit decreasing: balanced load).  O(c k).
 *  3. only if that fails and nodes hold several cells: best fit decreasing
 *     from scratch (largest cell to the tightest node that holds it; the
 *     last cells to nodes still empty).  O(c k).
 * When c == k (one cell per node, the usual case) step 1 is exact: a set
 * is refused only when no assignment exists.  When nodes hold several
 * cells, steps 2-3 are heuristics (exact assignment is bin packing): they
 * may refuse a set that some other grouping would fit, never accept one
 * that does not fit.  "Room" is memory first, then vCPUs.
 */
#include "vn-plan-private.h"

#define BIT(i) (G_GUINT64_CONSTANT(1) << (i))

/* -1 when x is larger, 1 when smaller, 0 when equal: larger first. */
static gint
larger_first(guint64 x, guint64 y)
{
    return (x < y) - (x > y);
}

/* Larger first: memory, then vCPUs, then the lower cell index. */
static gint
cell_cmp(gconstpointer a, gconstpointer b, gpointer sizes_ptr)
{
    const VnCellSize *sizes = sizes_ptr;
    guint x = *(const guint *)a, y = *(const guint *)b;
    gint by_memory = larger_first(sizes[x].memory_kib, sizes[y].memory_kib);
    gint by_vcpus = larger_first(sizes[x].vcpus, sizes[y].vcpus);

    return by_memory ? by_memory : by_vcpus ? by_vcpus : (x > y) - (x < y);
}

/* Larger first: vCPUs, then as cell_cmp(). */
static gint
cell_cmp_vcpus(gconstpointer a, gconstpointer b, gpointer sizes_ptr)
{
    const VnCellSize *sizes = sizes_ptr;
    gint by_vcpus = larger_first(sizes[*(const guint *)a].vcpus, sizes[*(const guint *)b].vcpus);

    return by_vcpus ? by_vcpus : cell_cmp(a, b, sizes_ptr);
}

void
vn_plan_cells_init(VnPlanCtx *c)
{
    guint n_cells = c->fixed_cells;

    c->cell_order = g_new(guint, 2 * (gsize)MAX(n_cells, 1));
    c->cell_order_vcpus = c->cell_order + MAX(n_cells, 1);
    for (guint i = 0; i < n_cells; i++)
        c->cell_order[i] = c->cell_order_vcpus[i] = i;
    g_qsort_with_data(c->cell_order, (gint)n_cells, sizeof(guint), cell_cmp, (gpointer)c->sizes);
    g_qsort_with_data(c->cell_order_vcpus, (gint)n_cells, sizeof(guint), cell_cmp_vcpus,
                      (gpointer)c->sizes);
    /* split_sized(): masks, vCPU room, memory room, member order (k <= n
     * words each), then a gint per cell */
    c->cell_scratch = g_new(guint64, 4 * (gsize)MAX(c->n, 1) + n_cells);
}

void
vn_plan_cells_clear(VnPlanCtx *c)
{
    g_clear_pointer(&c->cell_order, g_free);
    c->cell_order_vcpus = NULL;
    g_clear_pointer(&c->cell_scratch, g_free);
}

static gboolean
holds(const VnPlanCtx *c, guint cell, guint64 vcpu_room, guint64 mem_room)
{
    return c->sizes[cell].vcpus / c->vcpu_unit <= vcpu_room &&
           c->sizes[cell].memory_kib <= mem_room;
}

guint64
vn_plan_cells_fit_mask(const VnPlanCtx *c, guint node)
{
    const VnNodeCap *cap = &c->cap[node];
    guint64 mask = 0;

    if (!cap->usable)
        return 0;
    /* a memory-only node (tiers guest: a slow one) holds CPU-less cells */
    for (guint i = 0; i < c->fixed_cells; i++)
        if ((!cap->memory_only || c->sizes[i].vcpus == 0) && holds(c, i, cap->vcpus, cap->mem_kib))
            mask |= BIT(i);
    return mask;
}

/* Kuhn's augmenting path from `member`; writes the matching only along a
 * path that succeeds.  A free cell the member holds is taken before any
 * other member is moved (moves change the rooms the later steps see). */
static gboolean
augment(const VnPlanCtx *c, const guint64 *masks, guint member, gint *member_of_cell, guint64 *seen)
{
    for (guint x = 0; x < c->fixed_cells; x++) {
        guint cell = c->cell_order[x];
        if ((masks[member] & BIT(cell)) && member_of_cell[cell] < 0) {
            *seen |= BIT(cell);
            member_of_cell[cell] = (gint)member;
            return TRUE;
        }
    }
    for (guint x = 0; x < c->fixed_cells; x++) {
        guint cell = c->cell_order[x];
        if (!(masks[member] & BIT(cell)) || (*seen & BIT(cell)))
            continue;
        *seen |= BIT(cell);
        if (member_of_cell[cell] < 0 ||
            augment(c, masks, (guint)member_of_cell[cell], member_of_cell, seen)) {
            member_of_cell[cell] = (gint)member;
            return TRUE;
        }
    }
    return FALSE;
}

gboolean
vn_plan_cells_augment(const VnPlanCtx *c, const guint64 *masks, guint member, gint *member_of_cell)
{
    guint64 seen = 0;

    return augment(c, masks, member, member_of_cell, &seen);
}

static gboolean
more_room(const guint64 *vroom, const guint64 *mroom, guint a, guint b)
{
    if (mroom[a] != mroom[b])
        return mroom[a] > mroom[b];
    if (vroom[a] != vroom[b])
        return vroom[a] > vroom[b];
    return a < b;
}

static void
take(const VnPlanCtx *c, VnNodeSet *s, guint cell, guint member, guint64 *vroom, guint64 *mroom)
{
    guint units = c->sizes[cell].vcpus / c->vcpu_unit;

    s->cell_member[cell] = member;
    s->cells[member]++;
    s->vcpus[member] += units * c->vcpu_unit;
    s->mem_kib[member] += c->sizes[cell].memory_kib;
    vroom[member] -= units;
    mroom[member] -= c->sizes[cell].memory_kib;
}

/* Strategy 1: one cell per member by matching (members with the most room
 * first, each trying the largest cells first), then the other cells, largest
 * first, each to the member with the most room left that holds it. */
static gboolean
assign_matched_worst_fit(const VnPlanCtx *c, VnNodeSet *s, const guint64 *masks, guint64 *vroom,
                         guint64 *mroom, guint64 *order, gint *member_of_cell)
{
    guint k = s->k, n_cells = c->fixed_cells;

    for (guint i = 0; i < k; i++) {
        /* insertion sort, most room first: k is small */
        guint j = i;
        for (; j > 0 && more_room(vroom, mroom, i, (guint)order[j - 1]); j--)
            order[j] = order[j - 1];
        order[j] = i;
    }
    for (guint i = 0; i < n_cells; i++)
        member_of_cell[i] = -1;
    for (guint i = 0; i < k; i++)
        if (!vn_plan_cells_augment(c, masks, (guint)order[i], member_of_cell))
            return FALSE;
    for (guint i = 0; i < n_cells; i++)
        if (member_of_cell[i] >= 0)
            take(c, s, i, (guint)member_of_cell[i], vroom, mroom);
    for (guint x = 0; x < n_cells; x++) {
        guint cell = c->cell_order[x];
        gint best = -1;
        if (member_of_cell[cell] >= 0)
            continue;
        for (guint m = 0; m < k; m++)
            if (holds(c, cell, vroom[m], mroom[m]) &&
                (best < 0 || more_room(vroom, mroom, m, (guint)best)))
                best = (gint)m;
        if (best < 0)
            return FALSE;
        take(c, s, cell, (guint)best, vroom, mroom);
    }
    return TRUE;
}

/* Strategy 2 (nodes holding several cells, when strategy 1 fails): best
 * fit decreasing — each cell, largest first (`order`: by memory, then,
 * when that fails, by vCPUs: a node takes no more of a VM's vCPUs than it
 * has CPUs, so either can be the tight one), to the member with the least
 * room that holds it, packing tightly; once only as many cells are left as
 * members without one, those members take them. */
static gboolean
assign_best_fit(const VnPlanCtx *c, VnNodeSet *s, const guint *order, guint64 *vroom,
                guint64 *mroom)
{
    guint k = s->k, n_cells = c->fixed_cells, empty = k;

    for (guint x = 0; x < n_cells; x++) {
        guint cell = order[x];
        gboolean forced = n_cells - x <= empty;
        gint best = -1;
        for (guint m = 0; m < k; m++)
            if ((!forced || s->cells[m] == 0) && holds(c, cell, vroom[m], mroom[m]) &&
                (best < 0 || more_room(vroom, mroom, (guint)best, m)))
                best = (gint)m;
        if (best < 0)
            return FALSE;
        if (s->cells[best] == 0)
            empty--;
        take(c, s, cell, (guint)best, vroom, mroom);
    }
    return TRUE;
}

/* Each member's room from its capacity, nothing taken yet. */
static void
reset(const VnPlanCtx *c, VnNodeSet *s, guint64 *vroom, guint64 *mroom)
{
    for (guint i = 0; i < s->k; i++) {
        vroom[i] = c->cap[s->nodes[i]].vcpus;
        mroom[i] = c->cap[s->nodes[i]].mem_kib;
        s->cells[i] = 0;
        s->vcpus[i] = 0;
        s->mem_kib[i] = 0;
    }
}

gboolean
vn_plan_split_sized(const VnPlanCtx *c, VnNodeSet *s)
{
    guint k = s->k, n_cells = c->fixed_cells;
    guint64 *masks = c->cell_scratch, *vroom = masks + k, *mroom = vroom + k, *order = mroom + k;
    gint *member_of_cell = (gint *)(order + k);

    if (k > n_cells)
        return FALSE;
    for (guint i = 0; i < k; i++) {
        const VnNodeCap *cap = &c->cap[s->nodes[i]];
        if (!cap->usable)
            return FALSE;
        masks[i] = vn_plan_cells_fit_mask(c, s->nodes[i]);
    }
    if (!s->cell_member)
        s->cell_member = g_new0(guint, n_cells);
    reset(c, s, vroom, mroom);
    if (assign_matched_worst_fit(c, s, masks, vroom, mroom, order, member_of_cell))
        return TRUE;
    if (k == n_cells)
        return FALSE; /* the matching is exact */
    reset(c, s, vroom, mroom);
    if (assign_best_fit(c, s, c->cell_order, vroom, mroom))
        return TRUE;
    reset(c, s, vroom, mroom);
    return assign_best_fit(c, s, c->cell_order_vcpus, vroom, mroom);
}
