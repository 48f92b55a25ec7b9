/* vn-rebalance-domains.c: the rebalancer inside a node (see
 * vn-rebalance-domains.h and the contract in vn-rebalance.h).
 *
 * Why first: a die moved between two L3 domains of one node is a re-pin
 * of its vCPUs, nothing else (the memory stays on the node), so it is
 * the cheapest cure for a crowded L3; a move between nodes migrates
 * pages.  The measure is the node rule's CPU part per domain (committed
 * vCPUs over usable CPUs x overcommit) against the mean of the node's
 * domains, with the same threshold. */
#include "vn-rebalance-domains.h"

void
vn_domain_room_init(VnDomainRoom *room, const VnTopology *t, const VnLoad *load,
                    const VnPolicy *policy)
{
    guint n = MAX(t->n_domains, 1);

    room->t = t;
    room->balance = vn_load_counts_domains(t, policy) && load->n_domains == t->n_domains;
    room->cap = g_new0(gdouble, n);
    room->vcpus = g_new0(gdouble, n);
    for (guint i = 0; i < t->n_nodes; i++) {
        const VnNode *node = &t->nodes[i];
        g_autoptr(VnBitmap) usable = NULL;
        if (node->n_domains == 0)
            continue;
        usable = vn_policy_usable_cpus(policy, t, load, i);
        for (guint d = node->first_domain; d < node->first_domain + node->n_domains; d++)
            room->cap[d] = vn_bitmap_count_and(usable, t->domains[d].cpus) * policy->cpu_overcommit;
    }
    for (guint d = 0; load->domain_vcpus && d < t->n_domains && d < load->n_domains; d++)
        room->vcpus[d] = load->domain_vcpus[d];
}

void
vn_domain_room_clear(VnDomainRoom *room)
{
    g_clear_pointer(&room->cap, g_free);
    g_clear_pointer(&room->vcpus, g_free);
}

static gdouble
use(const VnDomainRoom *room, guint d)
{
    return room->vcpus[d] / room->cap[d];
}

/* The most used domain of node `n` minus the mean of its domains (those
 * with usable CPUs); *ret_hot that domain.  0 with fewer than two. */
static gdouble
spread(const VnDomainRoom *room, guint n, guint *ret_hot)
{
    const VnNode *node = &room->t->nodes[n];
    gdouble sum = 0.0, max = -1.0;
    guint count = 0;

    for (guint d = node->first_domain; d < node->first_domain + node->n_domains; d++) {
        if (room->cap[d] <= 0)
            continue;
        sum += use(room, d);
        count++;
        if (use(room, d) > max) {
            max = use(room, d);
            *ret_hot = d;
        }
    }
    return count > 1 ? max - sum / count : 0.0;
}

static gboolean
holds(const GArray *domains, guint d)
{
    for (guint j = 0; j < domains->len; j++)
        if (g_array_index(domains, guint, j) == d)
            return TRUE;
    return FALSE;
}

typedef struct {
    const VnResident *vm;
    const VnResidentCell *cell;
    guint die;
    guint to;
    gdouble after;
    gdouble room_left; /* tie-break: the roomier target */
} Candidate;

/* Every domain of the hot domain's node that could take die `die` of
 * `c`, kept in `best` when it helps more. */
static void
consider(VnDomainRoom *room, const VnResident *r, const VnResidentCell *c, guint die, guint hot,
         gdouble before, Candidate *best)
{
    const VnNode *node = &room->t->nodes[c->node];
    gdouble n = (gdouble)(c->vcpus / c->domains->len);
    guint ignored;

    for (guint d = node->first_domain; d < node->first_domain + node->n_domains; d++) {
        gdouble after, left = room->cap[d] - room->vcpus[d] - n;
        if (d == hot || room->cap[d] <= 0 || left < 0 || holds(c->domains, d) ||
            (r->allowed_cpus && !vn_bitmap_intersects(room->t->domains[d].cpus, r->allowed_cpus)))
            continue;
        room->vcpus[hot] -= n;
        room->vcpus[d] += n;
        after = spread(room, c->node, &ignored);
        room->vcpus[hot] += n;
        room->vcpus[d] -= n;
        if (after >= before - 0.01)
            continue;
        if (!best->vm || after < best->after - 1e-12 ||
            (after < best->after + 1e-12 && left > best->room_left + 1e-12)) {
            *best = (Candidate){
                .vm = r, .cell = c, .die = die, .to = d, .after = after, .room_left = left
            };
        }
    }
}

/* The best die to move out of `hot` (node `n`): low and normal priority
 * first, high last. */
static gboolean
best_die(VnDomainRoom *room, GPtrArray *residents, guint n, guint hot, gdouble before,
         const VnRebalanceLimits *lim, GHashTable *moved, Candidate *best)
{
    for (gint pass = 0; pass < 2 && !best->vm; pass++) {
        for (guint i = 0; i < residents->len; i++) {
            const VnResident *r = g_ptr_array_index(residents, i);
            if ((r->priority == VN_PRIORITY_HIGH) != (pass == 1) ||
                !vn_rebalance_movable(r, lim, moved))
                continue;
            for (guint ci = 0; ci < r->cells->len; ci++) {
                const VnResidentCell *c = &g_array_index(r->cells, VnResidentCell, ci);
                if (c->node != n || !c->domains || c->domains->len == 0)
                    continue;
                for (guint j = 0; j < c->domains->len; j++)
                    if (g_array_index(c->domains, guint, j) == hot)
                        consider(room, r, c, j, hot, before, best);
            }
        }
    }
    return best->vm != NULL;
}

static void
add_note_once(GPtrArray *notes, gchar *note)
{
    if (g_ptr_array_find_with_equal_func(notes, note, g_str_equal, NULL))
        g_free(note);
    else
        g_ptr_array_add(notes, note);
}

static VnMove *
move_new(VnDomainRoom *room, const Candidate *c, guint hot, gdouble before)
{
    const VnTopology *t = room->t;
    VnMove *m = g_new0(VnMove, 1);
    guint n = c->cell->vcpus / c->cell->domains->len;

    m->vm = c->vm->name;
    m->cell = c->cell->id;
    m->from_node = m->to_node = c->cell->node;
    m->vcpus = n;
    m->imbalance_before = before;
    m->imbalance_after = c->after;
    m->from_domain = (gint)hot;
    m->to_domain = (gint)c->to;
    m->domains = g_array_copy(c->cell->domains);
    g_array_index(m->domains, guint, c->die) = c->to;
    g_autofree gchar *die =
        c->cell->domains->len > 1 ? g_strdup_printf(" guest die %u", c->die) : g_strdup("");
    m->reason = g_strdup_printf("%s cell %u%s: cache domain %u -> %u of node %u (%u vCPUs, no "
                                "memory moved): the domain above its node's mean by %.0f -> %.0f "
                                "points",
                                c->vm->name, c->cell->id, die, hot, c->to,
                                t->nodes[c->cell->node].os_id, n, before * 100, c->after * 100);
    room->vcpus[hot] = MAX(0.0, room->vcpus[hot] - n);
    room->vcpus[c->to] += n;
    return m;
}

VnMove *
vn_rebalance_domains_move(VnDomainRoom *room, GPtrArray *residents, const VnRebalanceLimits *lim,
                          GHashTable *moved, GPtrArray *notes)
{
    const VnTopology *t = room->t;
    gdouble before = 0.0;
    guint hot = 0, node = 0;
    Candidate best = { 0 };

    if (!room->balance)
        return NULL;
    for (guint n = 0; n < t->n_nodes; n++) {
        guint d = 0;
        gdouble s = t->nodes[n].n_domains > 1 ? spread(room, n, &d) : 0.0;
        if (s > before) {
            before = s;
            hot = d;
            node = n;
        }
    }
    if (before <= lim->threshold)
        return NULL;
    if (!best_die(room, residents, node, hot, before, lim, moved, &best)) {
        add_note_once(
            notes, g_strdup_printf("cache domain %u of node %u is %.0f points of utilisation above "
                                   "its node's mean, but no guest die in it fits another domain "
                                   "of the node and helps (vCPUs not pinned by domain, dedicated, "
                                   "cooling down, or no room)",
                                   hot, t->nodes[node].os_id, before * 100));
        return NULL;
    }
    g_hash_table_add(moved, (gpointer)best.vm);
    return move_new(room, &best, hot, before);
}

static gint
cmp_room(gconstpointer a, gconstpointer b, gpointer data)
{
    const VnDomainRoom *room = data;
    guint x = *(const guint *)a, y = *(const guint *)b;
    gdouble rx = room->cap[x] - room->vcpus[x], ry = room->cap[y] - room->vcpus[y];

    if (rx != ry)
        return rx > ry ? -1 : 1;
    return x < y ? -1 : x > y;
}

void
vn_rebalance_domains_place(VnDomainRoom *room, const VnResidentCell *c, const VnBitmap *allowed,
                           VnMove *m)
{
    const VnNode *node = &room->t->nodes[m->to_node];
    g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(guint));
    g_autoptr(GArray) chosen = g_array_new(FALSE, FALSE, sizeof(guint));
    g_autoptr(GString) list = g_string_new(NULL);
    guint k, n;
    gchar *reason;

    m->from_domain = m->to_domain = -1;
    if (!c->domains || c->domains->len == 0)
        return;
    k = c->domains->len;
    n = c->vcpus / k;
    for (guint d = node->first_domain; d < node->first_domain + node->n_domains; d++)
        if (room->cap[d] > 0 &&
            (!allowed || vn_bitmap_intersects(room->t->domains[d].cpus, allowed)))
            g_array_append_val(order, d);
    g_array_sort_with_data(order, cmp_room, room);
    for (guint i = 0; i < order->len && chosen->len < k; i++) {
        guint d = g_array_index(order, guint, i);
        if (room->cap[d] - room->vcpus[d] >= n)
            g_array_append_val(chosen, d);
    }
    if (chosen->len < k) {
        reason = g_strdup_printf("%s; its %u guest die%s float%s over node %u's CPUs (no %u cache "
                                 "domain%s there with room for %u vCPUs each)",
                                 m->reason, k, k > 1 ? "s" : "", k > 1 ? "" : "s", node->os_id, k,
                                 k > 1 ? "s" : "", n);
        g_free(m->reason);
        m->reason = reason;
        return;
    }
    for (guint j = 0; j < k; j++) {
        guint from = g_array_index(c->domains, guint, j), to = g_array_index(chosen, guint, j);
        room->vcpus[from] = MAX(0.0, room->vcpus[from] - n);
        room->vcpus[to] += n;
        g_string_append_printf(list, "%s%u", j ? ", " : "", to);
    }
    reason = g_strdup_printf("%s; its %u guest die%s in cache domain%s %s", m->reason, k,
                             k > 1 ? "s" : "", k > 1 ? "s" : "", list->str);
    g_free(m->reason);
    m->reason = reason;
    m->domains = g_steal_pointer(&chosen);
}
