/* vn-plan-nodeset.c: choose the k host nodes for a VM.
 *
 * No enumeration of subsets or permutations.  For k = 1 every node is
 * scored (O(N)).  For k > 1 a set is grown from every seed node, adding at
 * each step the node nearest to the set (sum of distances to its members)
 * that can still lead to a feasible set; the best few sets are then
 * improved by single swaps.  Cost: O(N^2 k) for the growth, O(S k N) for
 * the swaps: a hard bound whatever the host.
 *
 * Order of preference between sets of the same size: smallest internal
 * distance (sum of pairwise distances), then nearest to the VM's devices,
 * then the policy's balance (VnBalance): least loaded after placement
 * (the busiest member counts, then the members' mean), or with memory
 * packing the least CPU use and free memory left (the busiest and the
 * emptiest member count), or with keep-hole the largest room left on any
 * node, then the load.  With split fill the balance also counts the
 * VM's remote share on the set (vn_plan_score_set()).
 */
#include "vn-plan-private.h"

#include <string.h>

#define SWAP_REFINE_SETS 4
#define MAX_CANDIDATES 16

VnNodeSet *
vn_node_set_new(guint k)
{
    /* One block: the set and its four arrays (a plan makes and drops
     * dozens of sets; one allocation each instead of five).  The 64-bit
     * array comes first after the struct, whose size is a multiple of 8. */
    VnNodeSet *s = g_malloc0(sizeof(VnNodeSet) + k * (sizeof(guint64) + 3 * sizeof(guint)));

    G_STATIC_ASSERT(sizeof(VnNodeSet) % sizeof(guint64) == 0);
    s->k = k;
    s->mem_kib = (guint64 *)(s + 1);
    s->nodes = (guint *)(s->mem_kib + k);
    s->vcpus = s->nodes + k;
    s->cells = s->vcpus + k;
    return s;
}

void
vn_node_set_free(VnNodeSet *s)
{
    if (!s)
        return;
    g_free(s->cell_member);
    g_free(s);
}

/* `d` becomes `s` (same k); n_cells: the request's sized cells, or 0. */
static void
node_set_assign(VnNodeSet *d, const VnNodeSet *s, guint n_cells)
{
    memcpy(d->nodes, s->nodes, s->k * sizeof(guint));
    memcpy(d->vcpus, s->vcpus, s->k * sizeof(guint));
    memcpy(d->mem_kib, s->mem_kib, s->k * sizeof(guint64));
    memcpy(d->cells, s->cells, s->k * sizeof(guint));
    if (s->cell_member) {
        if (!d->cell_member)
            d->cell_member = g_new(guint, n_cells);
        memcpy(d->cell_member, s->cell_member, n_cells * sizeof(guint));
    }
    d->internal_distance = s->internal_distance;
    d->device_distance = s->device_distance;
    d->load_after = s->load_after;
    d->score = s->score;
    d->even = s->even;
}

static VnNodeSet *
node_set_copy(const VnPlanCtx *c, const VnNodeSet *s)
{
    VnNodeSet *d = vn_node_set_new(s->k);

    node_set_assign(d, s, c->sizes ? c->fixed_cells : 0);
    return d;
}

/* Sorts node indices with a total order `cmp`: by insertion when they
 * are few (a set's members, a small host's nodes: no allocation, a few
 * compares), else with GLib's merge sort.  Either gives the one order. */
static void
sort_nodes(guint *a, guint n, GCompareDataFunc cmp, gpointer data)
{
    if (n > 24) {
        g_qsort_with_data(a, (gint)n, sizeof(guint), cmp, data);
        return;
    }
    for (guint i = 1; i < n; i++) {
        guint x = a[i], j = i;
        for (; j > 0 && cmp(&a[j - 1], &x, data) > 0; j--)
            a[j] = a[j - 1];
        a[j] = x;
    }
}

/* Cells follow the host's kernel node numbers, as people read them. */
static gint
os_id_cmp(gconstpointer a, gconstpointer b, gpointer topology)
{
    const VnTopology *t = topology;
    guint x = t->nodes[*(const guint *)a].os_id, y = t->nodes[*(const guint *)b].os_id;
    return (x > y) - (x < y);
}

/* The uniform remote share of the set's shares: 1 - sum over members of
 * the VM's vCPU share there x its memory share there. */
static gdouble
remote_share(const VnPlanCtx *c, const VnNodeSet *s)
{
    gdouble local = 0;

    for (guint i = 0; i < s->k; i++)
        local += (gdouble)s->vcpus[i] / (gdouble)c->req->vcpus * (gdouble)s->mem_kib[i] /
                 (gdouble)c->req->memory_kib;
    return CLAMP(1.0 - local, 0.0, 1.0);
}

/* The set's load after placement, balance and score from its shares;
 * its distances as they are (they depend on the members only). */
static void
score_shares(const VnPlanCtx *c, VnNodeSet *s)
{
    gboolean packing = c->balance == VN_BALANCE_MEMORY_PACKING;
    gdouble load = 0.0, ranked = 0.0, ranked_sum = 0.0, cpu = 0.0, free_share = 0.0, balance;

    for (guint i = 0; i < s->k; i++) {
        gdouble util = vn_plan_node_util_after(c, s->nodes[i], s->vcpus[i], s->mem_kib[i]);
        gdouble density = vn_plan_node_density_after(c, s->nodes[i], s->vcpus[i], s->mem_kib[i]);
        load = MAX(load, util);
        ranked = MAX(ranked, util + density);
        ranked_sum += util + density;
        if (packing) {
            cpu = MAX(cpu, vn_plan_node_cpu_after(c, s->nodes[i], s->vcpus[i]) + density);
            free_share = MAX(free_share, vn_plan_node_free_after(c, s->nodes[i], s->mem_kib[i]));
        }
    }
    s->load_after = load;
    if (packing)
        balance = cpu + VN_BALANCE_PACKING_FREE_WEIGHT * free_share;
    else if (c->balance == VN_BALANCE_KEEP_HOLE)
        balance = vn_plan_hole_lost(c, s) + VN_BALANCE_HOLE_LOAD_WEIGHT * ranked;
    else
        balance = ranked + VN_BALANCE_LOAD_MEAN_WEIGHT * ranked_sum / s->k;
    if (c->policy->split == VN_SPLIT_FILL && s->k > 1)
        balance += VN_SPLIT_FILL_REMOTE_WEIGHT * remote_share(c, s);
    /* Lexicographic: distance, then devices, then balance (< 10). */
    s->score = s->internal_distance * 1e6 + s->device_distance * 1e3 + MIN(balance, 9.99) * 100.0;
}

void
vn_plan_score_set(const VnPlanCtx *c, VnNodeSet *s)
{
    guint internal = 0, dev = 0;

    for (guint i = 0; i < s->k; i++)
        for (guint j = i + 1; j < s->k; j++)
            internal += vn_topology_distance(c->t, s->nodes[i], s->nodes[j]);
    for (guint d = 0; d < c->n_dev; d++) {
        guint best = G_MAXUINT;
        if (c->dev_node[d] < 0)
            continue;
        for (guint i = 0; i < s->k; i++)
            best = MIN(best, vn_topology_distance(c->t, (guint)c->dev_node[d], s->nodes[i]));
        dev += best - MIN(best, VN_DISTANCE_LOCAL);
    }
    s->internal_distance = internal;
    s->device_distance = dev;
    score_shares(c, s);
}

/* A filled set that crowds a member (vn_plan_split_crowds()): the even
 * split instead when it scores lower, else the fill as it was.  The fill's
 * shares wait in the plan's scratch words 9n..11n. */
static void
try_even(const VnPlanCtx *c, VnNodeSet *s)
{
    guint64 *mem = c->scratch + 9 * (gsize)c->n, *vcpus = mem + c->n;
    gdouble score = s->score, load_after = s->load_after;

    for (guint i = 0; i < s->k; i++) {
        mem[i] = s->mem_kib[i];
        vcpus[i] = s->vcpus[i];
    }
    if (vn_plan_split_even(c, s)) {
        score_shares(c, s);
        if (s->score < score) {
            s->even = TRUE;
            return;
        }
    }
    for (guint i = 0; i < s->k; i++) {
        s->mem_kib[i] = mem[i];
        s->vcpus[i] = (guint)vcpus[i];
        s->cells[i] = 1;
    }
    s->score = score;
    s->load_after = load_after;
}

/* Fills splits and score; FALSE when the set cannot hold the VM. */
static gboolean
evaluate(const VnPlanCtx *c, VnNodeSet *s)
{
    sort_nodes(s->nodes, s->k, os_id_cmp, (gpointer)c->t);
    s->even = FALSE;
    if (!vn_plan_split(c, s))
        return FALSE;
    vn_plan_score_set(c, s);
    if (vn_plan_split_crowds(c, s))
        try_even(c, s);
    return TRUE;
}

/* ---- capacity bounds used to prune the growth ---- */

typedef struct {
    guint64 *vcap, *mcap;   /* per node, in units; slots for fixed cells */
    guint64 *vtop, *mtop;   /* prefix sums of the largest capacities */
    guint *vorder, *morder; /* node indices, largest capacity first */
    guint *vpos, *mpos;     /* rank of each node in those orders */
    guint64 vneed, mneed;
    /* sized cells: the cells each node holds alone, and a matching of
     * the growing set's members (by step) to cells of their own */
    guint64 *fit, *member_fit;
    gint *match, *trial;
} Bounds;

/* Per growth step: the sum of the `left` (and `left`+1) largest capacities
 * among non-members, and the rank of the last of the `left`. */
typedef struct {
    guint64 sum_left, sum_left1;
    guint last_rank;
} Rest;

static gint
cap_desc(gconstpointer a, gconstpointer b, gpointer caps_ptr)
{
    const guint64 *caps = caps_ptr;
    guint x = *(const guint *)a, y = *(const guint *)b;
    guint64 cx = caps[x], cy = caps[y];
    return cx != cy ? (cx < cy) - (cx > cy) : (x > y) - (x < y);
}

static void
order_by(const VnPlanCtx *c, const guint64 *caps, guint *order, guint *pos, guint64 *top)
{
    for (guint i = 0; i < c->n; i++)
        order[i] = i;
    sort_nodes(order, c->n, cap_desc, (gpointer)caps);
    top[0] = 0;
    for (guint i = 0; i < c->n; i++) {
        pos[order[i]] = i;
        top[i + 1] = top[i] + caps[order[i]];
    }
}

/* Sized cells: a node takes no more than the cells it can hold on its own
 * add up to (a node that holds only a 1 GiB cell adds 1 GiB, whatever
 * its free memory). */
static void
sized_caps(const VnPlanCtx *c, Bounds *b, guint node)
{
    guint64 vsum = 0, msum = 0;

    b->fit[node] = vn_plan_cells_fit_mask(c, node);
    for (guint i = 0; i < c->fixed_cells; i++)
        if (b->fit[node] & (G_GUINT64_CONSTANT(1) << i)) {
            vsum += c->sizes[i].vcpus / c->vcpu_unit;
            msum += (c->sizes[i].memory_kib + c->mem_unit_kib - 1) / c->mem_unit_kib;
        }
    b->vcap[node] = MIN(b->vcap[node], vsum);
    b->mcap[node] = MIN(b->mcap[node], msum);
}

static void
bounds_init(const VnPlanCtx *c, Bounds *b)
{
    /* one block: four 64-bit arrays, then four of guint */
    b->vcap = g_malloc0((4 * (gsize)c->n + 2) * sizeof(guint64) + 4 * (gsize)c->n * sizeof(guint));
    b->mcap = b->vcap + c->n;
    b->vtop = b->mcap + c->n;
    b->mtop = b->vtop + c->n + 1;
    b->vorder = (guint *)(b->mtop + c->n + 1);
    b->morder = b->vorder + c->n;
    b->vpos = b->morder + c->n;
    b->mpos = b->vpos + c->n;
    for (guint i = 0; i < c->n; i++) {
        if (!c->cap[i].usable)
            continue;
        if (c->fixed_cells && !c->sizes) {
            b->vcap[i] = MIN(c->cap[i].vcpus / c->vshare_fixed,
                             c->cap[i].mem_kib / c->mem_unit_kib / c->mshare_fixed);
            b->mcap[i] = b->vcap[i];
        } else {
            b->vcap[i] = c->cap[i].vcpus;
            b->mcap[i] = c->cap[i].mem_kib / c->mem_unit_kib;
        }
    }
    b->fit = b->member_fit = NULL;
    b->match = b->trial = NULL;
    if (c->sizes) {
        b->fit = g_new0(guint64, c->n);
        b->member_fit = g_new0(guint64, c->n);
        b->match = g_new(gint, c->fixed_cells);
        b->trial = g_new(gint, c->fixed_cells);
        for (guint i = 0; i < c->n; i++)
            sized_caps(c, b, i);
    }
    order_by(c, b->vcap, b->vorder, b->vpos, b->vtop);
    order_by(c, b->mcap, b->morder, b->mpos, b->mtop);
    b->vneed = c->fixed_cells && !c->sizes ? c->fixed_cells : c->req->vcpus / c->vcpu_unit;
    b->mneed = c->fixed_cells && !c->sizes ? c->fixed_cells : c->req->memory_kib / c->mem_unit_kib;
}

static void
rest_compute(const VnPlanCtx *c, const guint *order, const guint64 *caps, const gboolean *in,
             guint left, Rest *r)
{
    guint taken = 0;

    r->sum_left = r->sum_left1 = 0;
    r->last_rank = 0;
    for (guint i = 0; i < c->n && taken <= left; i++) {
        guint node = order[i];
        if (in[node] || !c->cap[node].usable)
            continue;
        if (taken < left) {
            r->sum_left += caps[node];
            r->last_rank = i;
        }
        r->sum_left1 += caps[node];
        taken++;
    }
    if (left == 0)
        r->last_rank = 0;
}

/* The most the other `left` slots could add if `j` joins now. */
static guint64
rest_for(const Rest *r, const guint *pos, const guint64 *caps, guint j, guint left)
{
    if (left == 0)
        return 0;
    return pos[j] <= r->last_rank ? r->sum_left1 - caps[j] : r->sum_left;
}

static void
bounds_clear(Bounds *b)
{
    g_free(b->vcap); /* the block of the eight per-node arrays */
    g_free(b->fit);
    g_free(b->member_fit);
    g_free(b->match);
    g_free(b->trial);
}

/* Fewest nodes that could hold the VM if the largest ones were free for it. */
static guint
bounds_min_nodes(const VnPlanCtx *c, const Bounds *b)
{
    for (guint k = 1; k <= c->n; k++)
        if (b->vtop[k] >= b->vneed && b->mtop[k] >= b->mneed)
            return k;
    return 0;
}

/* ---- sized cells: each member needs a cell of its own ---- */

/* With as many cells as nodes, a member set can grow into a feasible set
 * exactly when its members can each be matched to a cell they hold alone
 * and all cells can be matched to some nodes (Mendelsohn-Dulmage: then one
 * matching does both).  The second half does not depend on the set. */
static gboolean
sized_all_cells_placeable(const VnPlanCtx *c, const Bounds *b)
{
    guint matched = 0;

    for (guint i = 0; i < c->fixed_cells; i++)
        b->match[i] = -1;
    for (guint node = 0; node < c->n; node++)
        if (b->fit[node] && vn_plan_cells_augment(c, b->fit, node, b->match))
            matched++;
    return matched == c->fixed_cells;
}

static gboolean
sized_start(const VnPlanCtx *c, const Bounds *b, guint seed)
{
    for (guint i = 0; i < c->fixed_cells; i++)
        b->match[i] = -1;
    b->member_fit[0] = b->fit[seed];
    return vn_plan_cells_augment(c, b->member_fit, 0, b->match);
}

/* Whether `node` joining as member `step` keeps a cell for every member;
 * `commit` keeps the new matching. */
static gboolean
sized_join(const VnPlanCtx *c, const Bounds *b, guint step, guint node, gboolean commit)
{
    gint *m = commit ? b->match : b->trial;

    if (!commit)
        memcpy(b->trial, b->match, c->fixed_cells * sizeof(gint));
    b->member_fit[step] = b->fit[node];
    return vn_plan_cells_augment(c, b->member_fit, step, m);
}

/* ---- growth from one seed ---- */

/* The growth's tie-break between equally near nodes stays least loaded
 * under either balance: it decides which sets are found, and memory
 * packing here (fullest node first) made the growth miss the nearest
 * set on the 16-node oracle host.  The balance ranks the sets found. */
static gdouble
node_util(const VnPlanCtx *c, guint node)
{
    return vn_plan_node_util_after(c, node, 0, 0);
}

static gboolean
grow(const VnPlanCtx *c, const Bounds *b, guint seed, guint k, guint *dsum, gboolean *in,
     VnNodeSet *out)
{
    guint64 vhave = b->vcap[seed], mhave = b->mcap[seed];

    if (c->sizes && !sized_start(c, b, seed))
        return FALSE;
    memset(in, 0, c->n * sizeof(gboolean));
    for (guint j = 0; j < c->n; j++)
        dsum[j] = vn_topology_distance(c->t, seed, j);
    in[seed] = TRUE;
    out->nodes[0] = seed;
    for (guint step = 1; step < k; step++) {
        guint left = k - step - 1; /* slots still to fill after this one */
        gint best = -1;
        Rest rv, rm;

        rest_compute(c, b->vorder, b->vcap, in, left, &rv);
        rest_compute(c, b->morder, b->mcap, in, left, &rm);
        for (guint j = 0; j < c->n; j++) {
            if (in[j] || !c->cap[j].usable)
                continue;
            if (vhave + b->vcap[j] + rest_for(&rv, b->vpos, b->vcap, j, left) < b->vneed ||
                mhave + b->mcap[j] + rest_for(&rm, b->mpos, b->mcap, j, left) < b->mneed)
                continue;
            /* nearest to the set; among equals the least loaded now */
            if ((best < 0 || dsum[j] < dsum[best] ||
                 (dsum[j] == dsum[best] && node_util(c, j) < node_util(c, (guint)best) - 1e-12)) &&
                (!c->sizes || sized_join(c, b, step, j, FALSE)))
                best = (gint)j;
        }
        if (best < 0)
            return FALSE;
        if (c->sizes)
            sized_join(c, b, step, (guint)best, TRUE);
        in[best] = TRUE;
        out->nodes[step] = (guint)best;
        vhave += b->vcap[best];
        mhave += b->mcap[best];
        for (guint j = 0; j < c->n; j++)
            dsum[j] += vn_topology_distance(c->t, (guint)best, j);
    }
    return evaluate(c, out);
}

/* Single swaps (member out, non-member in) while one lowers the internal
 * distance.  The change is computed from the distance sums to the set
 * (O(k N) per pass); only an improving swap is split and scored. */
static void
refine(const VnPlanCtx *c, VnNodeSet *s, guint *dsum, gboolean *in)
{
    g_autoptr(VnNodeSet) trial = node_set_copy(c, s);

    memset(in, 0, c->n * sizeof(gboolean));
    memset(dsum, 0, c->n * sizeof(guint));
    for (guint i = 0; i < s->k; i++) {
        in[s->nodes[i]] = TRUE;
        for (guint j = 0; j < c->n; j++)
            dsum[j] += vn_topology_distance(c->t, s->nodes[i], j);
    }
    for (guint pass = 0; pass < s->k; pass++) {
        gboolean improved = FALSE;
        for (guint m = 0; m < s->k && !improved; m++) {
            guint out = s->nodes[m];
            guint out_sum = dsum[out] - vn_topology_distance(c->t, out, out);
            for (guint j = 0; j < c->n && !improved; j++) {
                guint in_sum;
                if (in[j] || !c->cap[j].usable)
                    continue;
                in_sum = dsum[j] - vn_topology_distance(c->t, j, out);
                if (in_sum >= out_sum)
                    continue;
                memcpy(trial->nodes, s->nodes, s->k * sizeof(guint));
                trial->nodes[m] = j;
                if (!evaluate(c, trial) || trial->score >= s->score)
                    continue;
                in[out] = FALSE;
                in[j] = TRUE;
                for (guint x = 0; x < c->n; x++)
                    dsum[x] +=
                        vn_topology_distance(c->t, j, x) - vn_topology_distance(c->t, out, x);
                node_set_assign(s, trial, c->sizes ? c->fixed_cells : 0);
                improved = TRUE;
            }
        }
        if (!improved)
            break;
    }
}

static gboolean
same_nodes(const VnNodeSet *a, const VnNodeSet *b)
{
    return a->k == b->k && memcmp(a->nodes, b->nodes, a->k * sizeof(guint)) == 0;
}

/* Keeps `sets` sorted by score, distinct, at most `max` long. */
static void
keep_best(GPtrArray *sets, VnNodeSet *s, guint max)
{
    guint pos = sets->len;

    for (guint i = 0; i < sets->len; i++)
        if (same_nodes(g_ptr_array_index(sets, i), s)) {
            vn_node_set_free(s);
            return;
        }
    while (pos > 0 && ((VnNodeSet *)g_ptr_array_index(sets, pos - 1))->score > s->score)
        pos--;
    if (pos >= max) {
        vn_node_set_free(s);
        return;
    }
    g_ptr_array_insert(sets, (gint)pos, s);
    if (sets->len > max)
        g_ptr_array_remove_index(sets, sets->len - 1);
}

static void
add_candidate(GPtrArray *candidates, const VnNodeSet *s, gboolean feasible, gchar *note)
{
    VnCandidate *cand = g_new0(VnCandidate, 1);

    cand->nodes = g_array_sized_new(FALSE, FALSE, sizeof(guint), s->k);
    g_array_append_vals(cand->nodes, s->nodes, s->k);
    cand->feasible = feasible;
    cand->internal_distance = s->internal_distance;
    cand->device_distance = s->device_distance;
    cand->load_after = s->load_after;
    cand->score = s->score;
    cand->note = note;
    g_ptr_array_add(candidates, cand);
}

/* The node tried at `step` of a search over every node: the first node
 * first, or the last with the policy's search_from_last (simulation). */
static guint
search_node(const VnPlanCtx *c, guint step)
{
    return c->policy->search_from_last ? c->n - 1 - step : step;
}

static VnNodeSet *
best_single(const VnPlanCtx *c, GPtrArray *candidates)
{
    g_autoptr(GPtrArray) sets = g_ptr_array_new_with_free_func((GDestroyNotify)vn_node_set_free);
    g_autoptr(VnNodeSet) s = vn_node_set_new(1);

    for (guint step = 0; step < c->n; step++) {
        guint i = search_node(c, step);
        s->nodes[0] = i;
        if (c->cap[i].usable && evaluate(c, s)) {
            if (sets->len < MAX_CANDIDATES ||
                s->score < ((VnNodeSet *)g_ptr_array_index(sets, sets->len - 1))->score)
                keep_best(sets, node_set_copy(c, s), MAX_CANDIDATES);
        } else if (candidates && candidates->len < MAX_CANDIDATES) {
            s->internal_distance = 0;
            s->load_after = 0;
            s->score = G_MAXDOUBLE;
            add_candidate(candidates, s, FALSE, vn_plan_node_shortfall(c, i));
        }
    }
    for (guint i = 0; candidates && i < sets->len && i < MAX_CANDIDATES; i++)
        add_candidate(candidates, g_ptr_array_index(sets, i), TRUE, NULL);
    return sets->len ? g_ptr_array_steal_index(sets, 0) : NULL;
}

VnNodeSet *
vn_plan_best_set(const VnPlanCtx *c, guint k, GPtrArray *candidates)
{
    g_autoptr(GPtrArray) sets = NULL;
    g_autofree guint *dsum = NULL; /* one block: dsum, in, covered */
    gboolean *in, *covered;
    Bounds b;

    if (k == 1)
        return best_single(c, candidates);
    bounds_init(c, &b);
    if (k > c->n || b.vtop[k] < b.vneed || b.mtop[k] < b.mneed ||
        (c->sizes && k == c->fixed_cells && !sized_all_cells_placeable(c, &b))) {
        bounds_clear(&b);
        return NULL;
    }
    sets = g_ptr_array_new_with_free_func((GDestroyNotify)vn_node_set_free);
    dsum = g_malloc0(c->n * (sizeof(guint) + 2 * sizeof(gboolean)));
    in = (gboolean *)(dsum + c->n);
    covered = in + c->n;
    for (guint step = 0; step < c->n; step++) {
        guint seed = search_node(c, step);
        VnNodeSet *s;
        /* A node already inside a grown set would mostly grow that set
         * again: skip it as a seed (the swaps below repair the rare miss). */
        if (!c->cap[seed].usable || covered[seed])
            continue;
        s = vn_node_set_new(k);
        if (grow(c, &b, seed, k, dsum, in, s)) {
            for (guint i = 0; i < k; i++)
                covered[s->nodes[i]] = TRUE;
            keep_best(sets, s, MAX_CANDIDATES);
        } else {
            vn_node_set_free(s);
        }
    }
    bounds_clear(&b);
    for (guint i = 0; i < sets->len && i < SWAP_REFINE_SETS; i++)
        refine(c, g_ptr_array_index(sets, i), dsum, in);
    /* re-sort after refinement, dropping duplicates (the sets move) */
    {
        g_autoptr(GPtrArray) sorted =
            g_ptr_array_new_with_free_func((GDestroyNotify)vn_node_set_free);
        gsize n_sets = 0;
        g_autofree VnNodeSet **all = (VnNodeSet **)g_ptr_array_steal(sets, &n_sets);
        for (gsize i = 0; i < n_sets; i++)
            keep_best(sorted, all[i], MAX_CANDIDATES);
        for (guint i = 0; candidates && i < sorted->len; i++)
            add_candidate(candidates, g_ptr_array_index(sorted, i), TRUE, NULL);
        return sorted->len ? g_ptr_array_steal_index(sorted, 0) : NULL;
    }
}

guint
vn_plan_min_nodes(const VnPlanCtx *c)
{
    Bounds b;
    guint k;

    bounds_init(c, &b);
    k = bounds_min_nodes(c, &b);
    bounds_clear(&b);
    return k;
}
