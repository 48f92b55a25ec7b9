/* vn-baselines.c: the peers' placement rules, for the simulator.
 *
 * Each rule only chooses nodes and shares; room and cells are common.
 * Room mirrors vn-plan-capacity.c so that every policy is judged against
 * the same host.
 */
#include "vn-baselines.h"
#include "vn-names.h"

G_DEFINE_QUARK(vn-baseline-error-quark, vn_baseline_error);

static const gchar *const baseline_names[VN_BASELINE_MAX] = {
    [VN_BASELINE_FIRST_FIT] = "first-fit",
    [VN_BASELINE_MOST_FREE] = "most-free",
    [VN_BASELINE_ROUND_ROBIN] = "round-robin",
    [VN_BASELINE_NO_PINNING] = "no-pinning",
};

VN_DEFINE_ENUM_STRINGS(VnBaseline, vn_baseline, baseline_names, VN_BASELINE_MAX)

typedef struct {
    const VnTopology *t;
    const VnLoad *load;
    const VnPolicy *policy;
    const VnRequest *req;
    guint64 overhead_kib; /* whole VM */
    guint64 unit_kib;     /* memory split granularity */
} Ctx;

typedef struct {
    gboolean usable;
    guint n_cpus;    /* free host CPUs (not reserved, not dedicated) */
    guint vcpus;     /* shared vCPUs it can still take */
    guint64 mem_kib; /* memory it can still take, before overhead */
} Room;

static void
node_room(const Ctx *c, guint i, Room *r)
{
    const VnNode *node = &c->t->nodes[i];
    const VnNodeLoad *nl = &c->load->nodes[i];
    g_autoptr(VnBitmap) cpus = vn_policy_usable_cpus(c->policy, c->t, c->load, i);
    guint capacity;

    r->n_cpus = vn_bitmap_count(cpus);
    capacity = (guint)(r->n_cpus * c->policy->cpu_overcommit);
    r->vcpus = capacity > nl->committed_vcpus ? capacity - nl->committed_vcpus : 0;
    r->mem_kib = vn_policy_usable_memory_kib(c->policy, c->t, i, nl->committed_memory_kib);
    r->usable = !vn_bitmap_is_empty(node->cpus) && node->mem_total_kib > 0 && r->n_cpus > 0;
}

/* Can node i take `vcpus` and `mem_kib` plus an overhead share?  Never
 * more of one VM's vCPUs than the node has CPUs for them: Nova's
 * _numa_fit_instance_cell() refuses an instance cell whose shared vCPUs
 * outnumber the host cell's CPUs ("do not allow an instance to overcommit
 * against itself on any NUMA cell", nova/virt/hardware.py, Nova 26),
 * however much overcommitted room the cell has left. */
static gboolean
node_holds(const Room *r, guint vcpus, guint64 mem_kib, guint64 overhead_share)
{
    return r->usable && r->vcpus >= vcpus && vcpus <= r->n_cpus &&
           r->mem_kib >= mem_kib + overhead_share;
}

static void
add_cell(const Ctx *c, VnPlacement *p, guint node, guint vcpus, guint64 mem_kib)
{
    VnCell cell = {
        .id = p->cells->len,
        .node = node,
        .node_os_id = c->t->nodes[node].os_id,
        .n_vcpus = vcpus,
        .cpus = vn_bitmap_copy(c->t->nodes[node].cpus),
        .memory_kib = mem_kib,
    };

    if (p->cells->len) {
        const VnCell *prev = &g_array_index(p->cells, VnCell, p->cells->len - 1);
        cell.vcpu_first = prev->vcpu_first + prev->n_vcpus;
    }
    g_array_append_val(p->cells, cell);
}

/* Even shares of the VM over `k` nodes (in ascending node order). */
static VnPlacement *
even_placement(const Ctx *c, const guint *nodes, guint k)
{
    VnPlacement *p = vn_placement_new();
    guint64 units = c->req->memory_kib / c->unit_kib;
    g_autofree guint *sorted = g_memdup2(nodes, sizeof(guint) * k);

    for (guint i = 1; i < k; i++)
        for (guint j = i; j > 0 && sorted[j - 1] > sorted[j]; j--) {
            guint tmp = sorted[j];
            sorted[j] = sorted[j - 1];
            sorted[j - 1] = tmp;
        }
    for (guint i = 0; i < k; i++)
        add_cell(c, p, sorted[i], c->req->vcpus / k + (i < c->req->vcpus % k),
                 (units / k + (i < units % k)) * c->unit_kib);
    return p;
}

/* first-fit and round-robin: the fewest k; for each, nodes in order from
 * `start` that hold the largest even share. */
static VnPlacement *
place_in_order(const Ctx *c, const Room *room, guint start, guint *ret_first)
{
    guint n = c->t->n_nodes;
    g_autofree guint *picked = g_new(guint, MAX(n, 1));
    guint64 units = c->req->memory_kib / c->unit_kib;

    for (guint k = 1; k <= MIN(c->req->vcpus, n); k++) {
        guint vshare = (c->req->vcpus + k - 1) / k;
        guint64 mshare = (units + k - 1) / k * c->unit_kib;
        guint got = 0;

        for (guint s = 0; s < n && got < k; s++) {
            guint i = (start + s) % n;
            if (node_holds(&room[i], vshare, mshare, c->overhead_kib / k))
                picked[got++] = i;
        }
        if (got == k) {
            *ret_first = picked[0];
            return even_placement(c, picked, k);
        }
    }
    return NULL;
}

/* most-free (numad): nodes by free memory, as many as their CPUs cover
 * the vCPUs one to one, and more while the even share does not fit. */
static VnPlacement *
place_most_free(const Ctx *c, const Room *room)
{
    guint n = c->t->n_nodes, n_usable = 0, cpus = 0;
    g_autofree guint *order = g_new(guint, MAX(n, 1));
    guint64 units = c->req->memory_kib / c->unit_kib;

    for (guint i = 0; i < n; i++)
        if (room[i].usable)
            order[n_usable++] = i;
    for (guint i = 1; i < n_usable; i++) /* stable: ties keep node order */
        for (guint j = i; j > 0 && room[order[j - 1]].mem_kib < room[order[j]].mem_kib; j--) {
            guint tmp = order[j];
            order[j] = order[j - 1];
            order[j - 1] = tmp;
        }
    for (guint k = 1; k <= MIN(c->req->vcpus, n_usable); k++) {
        guint vshare = (c->req->vcpus + k - 1) / k;
        guint64 mshare = (units + k - 1) / k * c->unit_kib;
        gboolean fits = TRUE;

        cpus += room[order[k - 1]].n_cpus;
        if (cpus < c->req->vcpus)
            continue;
        for (guint j = 0; j < k && fits; j++)
            fits = node_holds(&room[order[j]], vshare, mshare, c->overhead_kib / k);
        if (fits)
            return even_placement(c, order, k);
    }
    return NULL;
}

/* no-pinning: memory first-node-first, vCPUs to the node with the most
 * vCPU room at each step; a cell on every node that got either.  Any node
 * that gets a cell must have room for the whole overhead (its share is
 * overhead / cells, never more), so the commit never overfills a node. */
static VnPlacement *
place_unpinned(const Ctx *c, const Room *room)
{
    guint n = c->t->n_nodes;
    g_autofree guint *vcpus = g_new0(guint, MAX(n, 1));
    g_autofree guint64 *mem = g_new0(guint64, MAX(n, 1));
    guint64 left = c->req->memory_kib;
    g_autoptr(VnPlacement) p = vn_placement_new();

    for (guint i = 0; i < n && left; i++) {
        guint64 take;
        if (!room[i].usable || room[i].mem_kib < c->overhead_kib + c->unit_kib)
            continue;
        take = MIN(left, (room[i].mem_kib - c->overhead_kib) / c->unit_kib * c->unit_kib);
        mem[i] = take;
        left -= take;
    }
    if (left)
        return NULL;
    for (guint v = 0; v < c->req->vcpus; v++) {
        gint best = -1;
        for (guint i = 0; i < n; i++)
            if (room[i].usable && room[i].mem_kib >= c->overhead_kib && room[i].vcpus > vcpus[i] &&
                (best < 0 || room[i].vcpus - vcpus[i] > room[best].vcpus - vcpus[best]))
                best = (gint)i;
        if (best < 0)
            return NULL;
        vcpus[best]++;
    }
    for (guint i = 0; i < n; i++)
        if (vcpus[i] || mem[i])
            add_cell(c, p, i, vcpus[i], mem[i]);
    return g_steal_pointer(&p);
}

static gboolean
validate(const VnRequest *req, GError **error)
{
    if (req->vcpus == 0 || req->memory_kib < 1024 || req->dedicated || req->hugepage_kib ||
        req->cells) {
        g_set_error_literal(
            error, VN_BASELINE_ERROR, VN_BASELINE_ERROR_INVALID_REQUEST,
            "baselines place shared vCPUs on normal pages only, at least 1 vCPU and 1 MiB, "
            "without a fixed cell count");
        return FALSE;
    }
    return TRUE;
}

VnPlacement *
vn_baseline_place(VnBaseline b, const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                  const VnRequest *req, guint *cursor, GError **error)
{
    Ctx c = { t,
              load,
              policy,
              req,
              vn_policy_overhead_kib(policy, req->memory_kib),
              req->memory_kib % 1024 == 0 ? 1024 : 4 };
    g_autofree Room *room = NULL;
    VnPlacement *p = NULL;
    guint first = 0;

    g_return_val_if_fail(t && t->finished && load && policy && req && b < VN_BASELINE_MAX, NULL);
    g_return_val_if_fail(b != VN_BASELINE_ROUND_ROBIN || cursor, NULL);
    if (!validate(req, error))
        return NULL;
    room = g_new0(Room, MAX(t->n_nodes, 1));
    for (guint i = 0; i < t->n_nodes; i++)
        node_room(&c, i, &room[i]);
    switch (b) {
    case VN_BASELINE_FIRST_FIT:
        p = place_in_order(&c, room, 0, &first);
        break;
    case VN_BASELINE_ROUND_ROBIN:
        p = place_in_order(&c, room, t->n_nodes ? *cursor % t->n_nodes : 0, &first);
        if (p)
            *cursor = (first + 1) % t->n_nodes;
        break;
    case VN_BASELINE_MOST_FREE:
        p = place_most_free(&c, room);
        break;
    default:
        p = place_unpinned(&c, room);
        break;
    }
    if (!p)
        g_set_error(error, VN_BASELINE_ERROR, VN_BASELINE_ERROR_NO_FIT,
                    "%s: no room for %u vCPUs and %" G_GUINT64_FORMAT " MiB",
                    vn_baseline_to_string(b), req->vcpus, req->memory_kib / 1024);
    return p;
}
