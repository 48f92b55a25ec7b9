/* vn-rebalance.c: see vn-rebalance.h. */
#include "vn-rebalance.h"
#include "vn-rebalance-domains.h"

#define GIB_KIB (1024.0 * 1024.0)

typedef struct {
    const VnTopology *t;
    const VnPolicy *policy;
    guint n;
    gdouble *vcpu_cap;  /* usable CPUs x overcommit; 0 = no CPUs */
    gdouble *busy;      /* measured, or < 0 */
    gdouble *mem_base;  /* total - reserved, KiB */
    gdouble *mem_limit; /* total - reserved - headroom, KiB */
    gdouble *vcpus;     /* committed, updated as moves are chosen */
    gdouble *mem;
    gdouble *high; /* committed high-priority vCPUs */
} State;

static void
resident_cell_clear(gpointer p)
{
    g_clear_pointer(&((VnResidentCell *)p)->domains, g_array_unref);
}

VnResident *
vn_resident_new(const gchar *name, VnPriority priority, gboolean dedicated, gint64 last_move)
{
    VnResident *r = g_new0(VnResident, 1);

    r->name = g_strdup(name);
    r->priority = priority;
    r->dedicated = dedicated;
    r->last_move = last_move;
    r->cells = g_array_new(FALSE, TRUE, sizeof(VnResidentCell));
    g_array_set_clear_func(r->cells, resident_cell_clear);
    return r;
}

void
vn_resident_add_cell(VnResident *r, guint id, guint node, guint vcpus, guint64 memory_kib)
{
    VnResidentCell c = {
        .id = id, .node = node, .vcpus = vcpus, .memory_kib = memory_kib, .charge_kib = memory_kib
    };
    g_array_append_val(r->cells, c);
}

void
vn_resident_set_cell_charge(VnResident *r, guint64 charge_kib)
{
    g_return_if_fail(r->cells->len > 0);
    g_array_index(r->cells, VnResidentCell, r->cells->len - 1).charge_kib = charge_kib;
}

void
vn_resident_set_cell_domains(VnResident *r, const guint *domains, guint n)
{
    VnResidentCell *c;

    g_return_if_fail(r->cells->len > 0);
    c = &g_array_index(r->cells, VnResidentCell, r->cells->len - 1);
    g_clear_pointer(&c->domains, g_array_unref);
    c->domains = g_array_sized_new(FALSE, FALSE, sizeof(guint), n);
    g_array_append_vals(c->domains, domains, n);
}

void
vn_resident_free(VnResident *r)
{
    if (!r)
        return;
    g_free(r->name);
    vn_bitmap_free(r->allowed_cpus);
    g_array_unref(r->cells);
    g_free(r);
}

void
vn_move_free(VnMove *m)
{
    if (!m)
        return;
    g_free(m->reason);
    if (m->domains)
        g_array_unref(m->domains);
    g_free(m);
}

void
vn_rebalance_limits_init(VnRebalanceLimits *l, gint64 now)
{
    l->threshold = 0.15;
    l->max_moves = 2;
    l->max_memory_kib = 16 * 1024 * 1024;
    l->now = now;
    l->cooldown_s = 300;
}

static void
state_init(State *s, const VnTopology *t, const VnLoad *load, const VnPolicy *policy)
{
    s->t = t;
    s->policy = policy;
    s->n = t->n_nodes;
    s->vcpu_cap = g_new0(gdouble, s->n);
    s->busy = g_new0(gdouble, s->n);
    s->mem_base = g_new0(gdouble, s->n);
    s->mem_limit = g_new0(gdouble, s->n);
    s->vcpus = g_new0(gdouble, s->n);
    s->mem = g_new0(gdouble, s->n);
    s->high = g_new0(gdouble, s->n);
    for (guint i = 0; i < s->n; i++) {
        const VnNode *node = &t->nodes[i];
        g_autoptr(VnBitmap) usable = vn_policy_usable_cpus(policy, t, load, i);
        gdouble base = node->mem_total_kib > policy->reserved_memory_kib
                           ? (gdouble)(node->mem_total_kib - policy->reserved_memory_kib)
                           : 0.0;

        s->vcpu_cap[i] = vn_bitmap_count(usable) * policy->cpu_overcommit;
        s->busy[i] = load->nodes[i].cpu_busy;
        s->mem_base[i] = base;
        s->mem_limit[i] = base - (gdouble)(node->mem_total_kib / 100 * policy->headroom_percent);
        s->vcpus[i] = load->nodes[i].committed_vcpus;
        s->mem[i] = (gdouble)load->nodes[i].committed_memory_kib;
        s->high[i] = load->nodes[i].committed_high_vcpus;
    }
}

static void
state_clear(State *s)
{
    g_free(s->vcpu_cap);
    g_free(s->busy);
    g_free(s->mem_base);
    g_free(s->mem_limit);
    g_free(s->vcpus);
    g_free(s->mem);
    g_free(s->high);
}

static gboolean
is_cpu_node(const State *s, guint i)
{
    return s->vcpu_cap[i] > 0 && s->mem_base[i] > 0;
}

static gdouble
util(const State *s, guint i)
{
    gdouble cpu = s->vcpus[i] / s->vcpu_cap[i];
    gdouble mem = s->mem[i] / s->mem_base[i];

    /* measured busy beyond what is committed here counts too (other work) */
    return MAX(MAX(cpu, s->busy[i]), mem);
}

/* Hottest CPU node minus the mean of the CPU nodes; *ret_hot its index. */
static gdouble
imbalance(const State *s, guint *ret_hot)
{
    gdouble sum = 0.0, max = -1.0;
    guint count = 0;

    for (guint i = 0; i < s->n; i++) {
        gdouble u;
        if (!is_cpu_node(s, i))
            continue;
        u = util(s, i);
        sum += u;
        count++;
        if (u > max) {
            max = u;
            if (ret_hot)
                *ret_hot = i;
        }
    }
    return count ? max - sum / count : 0.0;
}

/* Sum of distances between the VM's cell nodes if `cell` sat on `node`. */
static guint
vm_distance(const State *s, const VnResident *r, guint cell, guint node)
{
    guint d = 0;

    for (guint a = 0; a < r->cells->len; a++)
        for (guint b = a + 1; b < r->cells->len; b++) {
            guint na = a == cell ? node : g_array_index(r->cells, VnResidentCell, a).node;
            guint nb = b == cell ? node : g_array_index(r->cells, VnResidentCell, b).node;
            d += vn_topology_distance(s->t, na, nb);
        }
    return d;
}

typedef struct {
    const VnResident *vm;
    guint cell;
    guint to;
    gdouble after;
    gdouble score; /* imbalance reduction per GiB */
    guint dist_added;
} Candidate;

static void
shift(State *s, const VnResident *r, const VnResidentCell *c, guint from, guint to, gdouble sign)
{
    s->vcpus[from] -= sign * c->vcpus;
    s->mem[from] -= sign * (gdouble)c->charge_kib;
    s->vcpus[to] += sign * c->vcpus;
    s->mem[to] += sign * (gdouble)c->charge_kib;
    if (r->priority == VN_PRIORITY_HIGH) {
        s->high[from] -= sign * c->vcpus;
        s->high[to] += sign * c->vcpus;
    }
}

/* The least contended target a high-priority VM may go to. */
static gboolean
least_contended(const State *s, guint to)
{
    for (guint i = 0; i < s->n; i++)
        if (is_cpu_node(s, i) && s->high[i] / s->vcpu_cap[i] < s->high[to] / s->vcpu_cap[to] - 1e-9)
            return FALSE;
    return TRUE;
}

static void
consider(State *s, const VnResident *r, guint ci, guint hot, gdouble before, Candidate *best)
{
    const VnResidentCell *c = &g_array_index(r->cells, VnResidentCell, ci);
    guint dist_now = vm_distance(s, r, ci, hot);
    gdouble gib = MAX((gdouble)c->memory_kib / GIB_KIB, 1.0 / 1024.0);

    for (guint to = 0; to < s->n; to++) {
        gdouble after, score;
        guint dist;
        if (to == hot || !is_cpu_node(s, to) || s->vcpus[to] + c->vcpus > s->vcpu_cap[to] ||
            s->mem[to] + (gdouble)c->charge_kib > s->mem_limit[to])
            continue;
        if (r->allowed_cpus && !vn_bitmap_intersects(s->t->nodes[to].cpus, r->allowed_cpus))
            continue;
        if (r->priority == VN_PRIORITY_HIGH && !least_contended(s, to))
            continue;
        shift(s, r, c, hot, to, 1.0);
        after = imbalance(s, NULL);
        shift(s, r, c, hot, to, -1.0);
        if (after >= before - 0.01)
            continue;
        dist = vm_distance(s, r, ci, to);
        score = (before - after) / gib;
        /* a VM's own cells stay as near as they were, unless nothing else helps */
        if (dist > dist_now)
            score /= 1.0 + (dist - dist_now) / 10.0;
        if (!best->vm || score > best->score + 1e-12 ||
            (score > best->score - 1e-12 && dist - MIN(dist, dist_now) < best->dist_added)) {
            best->vm = r;
            best->cell = ci;
            best->to = to;
            best->after = after;
            best->score = score;
            best->dist_added = dist - MIN(dist, dist_now);
        }
    }
}

gboolean
vn_rebalance_movable(const VnResident *r, const VnRebalanceLimits *lim, GHashTable *moved)
{
    /* a whole VM's cells (interleave, spill) never move one by one */
    return !r->dedicated && !r->whole && !g_hash_table_contains(moved, r) &&
           !(r->last_move > 0 && lim->now - r->last_move < lim->cooldown_s);
}

/* The best move off `hot`: low and normal priority first, high last. */
static gboolean
best_move(State *s, GPtrArray *residents, guint hot, gdouble before, const VnRebalanceLimits *lim,
          guint64 budget_kib, GHashTable *moved, Candidate *best)
{
    for (gint pass = 0; pass < 2 && !best->vm; pass++) {
        for (guint i = 0; i < residents->len; i++) {
            const VnResident *r = g_ptr_array_index(residents, i);
            if ((r->priority == VN_PRIORITY_HIGH) != (pass == 1) ||
                !vn_rebalance_movable(r, lim, moved))
                continue;
            for (guint ci = 0; ci < r->cells->len; ci++) {
                const VnResidentCell *c = &g_array_index(r->cells, VnResidentCell, ci);
                if (c->node == hot && c->memory_kib <= budget_kib)
                    consider(s, r, ci, hot, before, best);
            }
        }
    }
    return best->vm != NULL;
}

/* What `r` holds on `node`. */
static guint64
memory_on(const VnResident *r, guint node)
{
    guint64 kib = 0;

    for (guint i = 0; i < r->cells->len; i++)
        if (g_array_index(r->cells, VnResidentCell, i).node == node)
            kib += g_array_index(r->cells, VnResidentCell, i).memory_kib;
    return kib;
}

/* Moves every cell of `r` not on `to` there (sign 1) or back (-1). */
static void
shift_all(State *s, const VnResident *r, guint to, gdouble sign)
{
    for (guint i = 0; i < r->cells->len; i++) {
        const VnResidentCell *c = &g_array_index(r->cells, VnResidentCell, i);
        if (c->node != to)
            shift(s, r, c, c->node, to, sign);
    }
}

/* Whether every cell of `r` may gather on its node `to`: within the
 * round's moves and memory, the node's vCPU capacity and memory headroom
 * (for what the cells commit), the VM's allowed CPUs, and no node ending
 * hot.  *ret_moved: the memory that would move. */
static gboolean
gather_fits(State *s, const VnResident *r, guint to, const VnRebalanceLimits *lim, guint moves_left,
            guint64 budget_kib, guint64 *ret_moved)
{
    guint64 kib = 0, charge = 0;
    gdouble vcpus = 0, after;
    guint cells = 0;

    for (guint i = 0; i < r->cells->len; i++) {
        const VnResidentCell *c = &g_array_index(r->cells, VnResidentCell, i);
        if (c->node == to)
            continue;
        kib += c->memory_kib;
        charge += c->charge_kib;
        vcpus += c->vcpus;
        cells++;
    }
    if (cells > moves_left || kib > budget_kib || !is_cpu_node(s, to) ||
        s->vcpus[to] + vcpus > s->vcpu_cap[to] || s->mem[to] + (gdouble)charge > s->mem_limit[to])
        return FALSE;
    if (r->allowed_cpus && !vn_bitmap_intersects(s->t->nodes[to].cpus, r->allowed_cpus))
        return FALSE;
    if (r->priority == VN_PRIORITY_HIGH && !least_contended(s, to))
        return FALSE;
    shift_all(s, r, to, 1.0);
    after = imbalance(s, NULL);
    shift_all(s, r, to, -1.0);
    *ret_moved = kib;
    return after <= lim->threshold;
}

static gint
fullest_first(gconstpointer pa, gconstpointer pb, gpointer data)
{
    const VnResident *r = data;
    guint a = *(const guint *)pa, b = *(const guint *)pb;
    guint64 ma = memory_on(r, a), mb = memory_on(r, b);

    if (ma != mb)
        return ma > mb ? -1 : 1;
    return (a > b) - (a < b);
}

/* The nodes holding cells of `r`, each once, the most of its memory
 * first (ties: lower index). */
static GArray *
own_nodes_fullest_first(const VnResident *r)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint i = 0; i < r->cells->len; i++) {
        guint node = g_array_index(r->cells, VnResidentCell, i).node;
        gboolean seen = FALSE;
        for (guint j = 0; j < nodes->len && !seen; j++)
            seen = g_array_index(nodes, guint, j) == node;
        if (!seen)
            g_array_append_val(nodes, node);
    }
    g_array_sort_with_data(nodes, fullest_first, (gpointer)r);
    return nodes;
}

/* Consolidation, once the host is balanced: of the VMs split over nodes,
 * the one with the most memory away from its fullest node has its other
 * cells moved to that node (or its next fullest) when they fit there
 * (gather_fits()).  One VM a round. */
static void
gather(State *s, VnDomainRoom *room, GPtrArray *residents, const VnRebalanceLimits *lim,
       guint64 *budget, GHashTable *moved, GPtrArray *moves)
{
    const VnResident *best = NULL;
    guint best_to = 0, best_nodes = 0;
    guint64 best_kib = 0;

    for (guint i = 0; i < residents->len; i++) {
        const VnResident *r = g_ptr_array_index(residents, i);
        g_autoptr(GArray) order = NULL;
        guint n;
        if (!vn_rebalance_movable(r, lim, moved))
            continue;
        order = own_nodes_fullest_first(r);
        if ((n = order->len) < 2)
            continue;
        /* its nodes, fullest first: the least memory moves */
        for (guint k = 0; k < order->len; k++) {
            guint to = g_array_index(order, guint, k);
            guint64 kib = 0;
            if (gather_fits(s, r, to, lim, lim->max_moves - moves->len, *budget, &kib)) {
                if (!best || kib > best_kib) {
                    best = r;
                    best_to = to;
                    best_kib = kib;
                    best_nodes = n;
                }
                break;
            }
        }
    }
    if (!best)
        return;
    for (guint ci = 0; ci < best->cells->len; ci++) {
        const VnResidentCell *c = &g_array_index(best->cells, VnResidentCell, ci);
        VnMove *m;
        if (c->node == best_to)
            continue;
        m = g_new0(VnMove, 1);
        m->vm = best->name;
        m->cell = c->id;
        m->from_node = c->node;
        m->to_node = best_to;
        m->vcpus = c->vcpus;
        m->memory_kib = c->memory_kib;
        m->from_domain = m->to_domain = -1;
        m->imbalance_before = imbalance(s, NULL);
        shift(s, best, c, c->node, best_to, 1.0);
        m->imbalance_after = imbalance(s, NULL);
        m->reason = g_strdup_printf(
            "%s cell %u: node %u -> %u (%u vCPUs, %.1f GiB): consolidates %s from %u nodes onto "
            "node %u, the host stays balanced",
            best->name, c->id, s->t->nodes[c->node].os_id, s->t->nodes[best_to].os_id, c->vcpus,
            c->memory_kib / GIB_KIB, best->name, best_nodes, s->t->nodes[best_to].os_id);
        vn_rebalance_domains_place(room, c, best->allowed_cpus, m);
        *budget -= c->memory_kib;
        g_ptr_array_add(moves, m);
    }
    g_hash_table_add(moved, (gpointer)best);
}

/* Why a hot node stays as it is on a host the placement packs. */
static gchar *
packed_note(const VnTopology *t, const VnPolicy *policy, gdouble share, guint hot, gdouble before)
{
    g_autofree gchar *why =
        policy->balance == VN_BALANCE_ADAPTIVE
            ? g_strdup_printf("host memory %.0f%% committed, at least %.0f%%: balance adaptive "
                              "packs memory",
                              share * 100, VN_BALANCE_ADAPTIVE_PACK_AT * 100)
            : g_strdup("balance memory-packing");

    return g_strdup_printf("packed (%s): node %u is %.0f points of utilisation above the mean, "
                           "left so, whole nodes stay free for big VMs; cells move between "
                           "nodes only to put a split VM back on one node",
                           why, t->nodes[hot].os_id, before * 100);
}

GPtrArray *
vn_rebalance_propose(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                     GPtrArray *residents, const VnRebalanceLimits *lim, GPtrArray **ret_notes)
{
    GPtrArray *moves = g_ptr_array_new_with_free_func((GDestroyNotify)vn_move_free);
    g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GHashTable) moved = g_hash_table_new(g_direct_hash, g_direct_equal);
    guint64 budget = lim->max_memory_kib;
    gdouble share;
    gboolean packing;
    State s;
    VnDomainRoom room;

    g_return_val_if_fail(load->n_nodes == t->n_nodes, moves);
    share = vn_policy_committed_share(policy, t, load);
    packing = vn_policy_balance_at(policy, share) == VN_BALANCE_MEMORY_PACKING;
    state_init(&s, t, load, policy);
    vn_domain_room_init(&room, t, load, policy);
    while (moves->len < lim->max_moves) {
        guint hot = 0;
        gdouble before = imbalance(&s, &hot);
        Candidate best = { 0 };
        VnMove *m;
        const VnResidentCell *c;

        /* inside a node first: no page migration */
        if ((m = vn_rebalance_domains_move(&room, residents, lim, moved, notes))) {
            g_ptr_array_add(moves, m);
            continue;
        }

        /* a packed host's nodes are uneven on purpose: only consolidation */
        if (before <= lim->threshold || packing) {
            guint had = moves->len;
            gather(&s, &room, residents, lim, &budget, moved, moves);
            if (moves->len > had)
                continue;
            if (before <= lim->threshold)
                g_ptr_array_add(notes,
                                g_strdup_printf("balanced: the hottest node, %u, is %.0f points of "
                                                "utilisation above the mean, within the threshold "
                                                "of %.0f",
                                                t->nodes[hot].os_id, before * 100,
                                                lim->threshold * 100));
            else
                g_ptr_array_add(notes, packed_note(t, policy, share, hot, before));
            break;
        }
        if (!best_move(&s, residents, hot, before, lim, budget, moved, &best)) {
            g_ptr_array_add(
                notes,
                g_strdup_printf("node %u is %.0f points of utilisation above the mean, but no "
                                "movable cell on it "
                                "fits elsewhere and helps (dedicated, cooling down, or too large)",
                                t->nodes[hot].os_id, before * 100));
            break;
        }
        c = &g_array_index(best.vm->cells, VnResidentCell, best.cell);
        m = g_new0(VnMove, 1);
        m->vm = best.vm->name;
        m->cell = c->id;
        m->from_node = hot;
        m->to_node = best.to;
        m->vcpus = c->vcpus;
        m->memory_kib = c->memory_kib;
        m->imbalance_before = before;
        m->imbalance_after = best.after;
        m->reason =
            g_strdup_printf("%s cell %u: node %u -> %u (%u vCPUs, %.1f GiB): hottest node above "
                            "the mean by %.0f -> %.0f points%s",
                            best.vm->name, c->id, t->nodes[hot].os_id, t->nodes[best.to].os_id,
                            c->vcpus, c->memory_kib / GIB_KIB, before * 100, best.after * 100,
                            best.dist_added ? ", the VM's cells end farther apart" : "");
        vn_rebalance_domains_place(&room, c, best.vm->allowed_cpus, m);
        shift(&s, best.vm, c, hot, best.to, 1.0);
        budget -= c->memory_kib;
        g_hash_table_add(moved, (gpointer)best.vm);
        g_ptr_array_add(moves, m);
    }
    if (moves->len == lim->max_moves)
        g_ptr_array_add(notes, g_strdup_printf("stopped at the budget of %u move%s per round",
                                               lim->max_moves, lim->max_moves == 1 ? "" : "s"));
    state_clear(&s);
    vn_domain_room_clear(&room);
    if (ret_notes)
        *ret_notes = g_steal_pointer(&notes);
    return moves;
}
