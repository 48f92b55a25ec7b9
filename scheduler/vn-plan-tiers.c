/* vn-plan-tiers.c: memory beyond the CPU node's DRAM on a slow tier
 * ([placement] tiers = spill | guest, or the VM's own wish; VnTiers).
 *
 * Tried only when no single DRAM node holds the VM: every DRAM node that
 * holds all its vCPUs (and at least one page) is paired with the nearest
 * slow node (VN_MEMORY_TIER_SLOW, no CPUs) that holds the rest; the pair
 * keeping the most memory on DRAM wins, then the nearest slow node, then
 * the least loaded CPU node.  The pair shares the VM's QEMU overhead, as
 * any two-node placement does, and the load counts the slow part on the
 * slow node only: slow memory is never local capacity.  Special memory
 * (HBM, SPM) is never a spill target.  Without a pair the plan goes on as
 * with tiers off (split over DRAM nodes, or no fit) and says so.
 */
#include "vn-plan-private.h"

VnTiers
vn_plan_tiers_mode(const VnPlanCtx *c)
{
    const VnRequest *r = c->req;
    VnTiers asked = r->tiers_set ? r->tiers : c->policy->tiers;

    /* the operator's interleave wins: bandwidth over a slow tier */
    if (r->allow_memory_only || r->cell_sizes || r->cells > 1 ||
        r->interleave == VN_INTERLEAVE_WISH)
        return VN_TIERS_OFF;
    /* a guest that cannot see cells gains nothing from a CPU-less guest
     * cell: its slow memory is spilled instead (one guest node either way) */
    if (asked == VN_TIERS_GUEST && r->interleave == VN_INTERLEAVE_NO_CELLS)
        return VN_TIERS_SPILL;
    /* a running guest keeps its guest cells: guest tiers would add one */
    if (r->cells == 1 && asked == VN_TIERS_GUEST)
        return VN_TIERS_OFF;
    return asked;
}

gboolean
vn_plan_tiers_keeps_cells(const VnPlanCtx *c)
{
    const VnRequest *r = c->req;
    gboolean cpu_less = FALSE;

    if (!r->cell_sizes || r->allow_memory_only ||
        (r->tiers_set ? r->tiers : c->policy->tiers) != VN_TIERS_GUEST)
        return FALSE;
    for (guint i = 0; i < r->cell_sizes->len; i++)
        cpu_less |= g_array_index(r->cell_sizes, VnCellSize, i).vcpus == 0;
    return cpu_less && vn_plan_tiers_host_has_slow(c->t);
}

void
vn_plan_tiers_mark_kept(const VnPlanCtx *c, VnPlacement *p)
{
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        if (cell->n_vcpus == 0 && c->t->nodes[cell->node].tier == VN_MEMORY_TIER_SLOW) {
            p->tiers = VN_TIERS_GUEST;
            vn_placement_add_reason(p, "tiers guest: the guest's CPU-less cells stay on slow "
                                       "nodes, with the host's HMAT figures");
            return;
        }
    }
}

gboolean
vn_plan_tiers_host_has_slow(const VnTopology *t)
{
    for (guint i = 0; i < t->n_nodes; i++)
        if (t->nodes[i].tier == VN_MEMORY_TIER_SLOW && t->nodes[i].mem_total_kib > 0 &&
            vn_topology_node_ncpus(t, i) == 0)
            return TRUE;
    return FALSE;
}

/* Whether one DRAM node holds the whole VM (then tiers have nothing to
 * do): the capacity as the one-node plan computes it. */
static gboolean
one_node_holds(VnPlanCtx *c)
{
    c->slow_memory = FALSE;
    vn_plan_capacity_compute(c, c->overhead_kib);
    for (guint i = 0; i < c->n; i++) {
        const VnNodeCap *cap = &c->cap[i];
        if (cap->usable && !cap->memory_only && cap->vcpus >= c->req->vcpus / c->vcpu_unit &&
            cap->mem_kib >= c->req->memory_kib)
            return TRUE;
    }
    return FALSE;
}

/* The nearest slow node to `cpu_node` with room for `rest_kib`; -1: none. */
static gint
nearest_slow(const VnPlanCtx *c, guint cpu_node, guint64 rest_kib)
{
    gint best = -1;

    for (guint j = 0; j < c->n; j++) {
        const VnNodeCap *cap = &c->cap[j];
        if (!cap->usable || !cap->memory_only || c->t->nodes[j].tier != VN_MEMORY_TIER_SLOW ||
            cap->mem_kib < rest_kib)
            continue;
        if (best < 0 || vn_topology_distance(c->t, cpu_node, j) <
                            vn_topology_distance(c->t, cpu_node, (guint)best))
            best = (gint)j;
    }
    return best;
}

static void
add_candidate(GPtrArray *candidates, const VnNodeSet *s, gchar *note)
{
    VnCandidate *cand = g_new0(VnCandidate, 1);

    cand->nodes = g_array_sized_new(FALSE, FALSE, sizeof(guint), s->k);
    g_array_append_vals(cand->nodes, s->nodes, s->k);
    cand->feasible = TRUE;
    cand->internal_distance = s->internal_distance;
    cand->load_after = s->load_after;
    cand->score = s->score;
    cand->note = note;
    g_ptr_array_add(candidates, cand);
}

/* Better: more on DRAM, then a nearer slow node, then less loaded. */
static gboolean
better(const VnNodeSet *a, const VnNodeSet *b)
{
    if (!b)
        return TRUE;
    if (a->mem_kib[0] != b->mem_kib[0])
        return a->mem_kib[0] > b->mem_kib[0];
    if (a->internal_distance != b->internal_distance)
        return a->internal_distance < b->internal_distance;
    return a->load_after < b->load_after;
}

VnNodeSet *
vn_plan_tiers_choose(VnPlanCtx *c, GPtrArray *candidates, gboolean *ret_needed)
{
    guint vunits = c->req->vcpus / c->vcpu_unit;
    guint64 unit = c->mem_unit_kib, total = c->req->memory_kib;
    g_autoptr(VnNodeSet) best = NULL;

    *ret_needed = FALSE;
    if (c->tiers == VN_TIERS_OFF || !vn_plan_tiers_host_has_slow(c->t) || one_node_holds(c))
        return NULL;
    *ret_needed = TRUE;
    c->slow_memory = TRUE;
    vn_plan_capacity_compute(c, c->overhead_kib / 2);
    for (guint i = 0; i < c->n; i++) {
        const VnNodeCap *cap = &c->cap[i];
        g_autoptr(VnNodeSet) s = NULL;
        guint64 fast;
        gint slow;

        if (!cap->usable || cap->memory_only || c->t->nodes[i].tier != VN_MEMORY_TIER_DRAM ||
            cap->vcpus < vunits || cap->mem_kib < unit || total < 2 * unit)
            continue;
        fast = MIN(cap->mem_kib / unit * unit, total - unit);
        if ((slow = nearest_slow(c, i, total - fast)) < 0)
            continue;
        s = vn_node_set_new(2);
        s->nodes[0] = i;
        s->nodes[1] = (guint)slow;
        s->vcpus[0] = c->req->vcpus;
        s->mem_kib[0] = fast;
        s->mem_kib[1] = total - fast;
        s->cells[0] = s->cells[1] = 1;
        s->internal_distance = vn_topology_distance(c->t, i, (guint)slow);
        s->load_after = vn_plan_node_util_after(c, i, c->req->vcpus, fast);
        s->score = s->load_after;
        if (candidates)
            add_candidate(candidates, s, NULL);
        if (better(s, best)) {
            g_clear_pointer(&best, vn_node_set_free);
            best = g_steal_pointer(&s);
        }
    }
    return g_steal_pointer(&best);
}

/* The expected share on each tier, and why. */
void
vn_plan_tiers_explain(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p)
{
    const VnNode *fast = &c->t->nodes[set->nodes[0]], *slow = &c->t->nodes[set->nodes[1]];
    g_autofree gchar *total = vn_plan_format_kib(c->req->memory_kib);
    g_autofree gchar *on_fast = vn_plan_format_kib(set->mem_kib[0]);
    g_autofree gchar *on_slow = vn_plan_format_kib(set->mem_kib[1]);

    if (c->t->distances_assumed)
        vn_placement_add_reason(p, "host reports no NUMA distances: assumed 10 local, 20 remote");
    if (c->tiers == VN_TIERS_SPILL && c->req->interleave == VN_INTERLEAVE_NO_CELLS &&
        (c->req->tiers_set ? c->req->tiers : c->policy->tiers) == VN_TIERS_GUEST)
        vn_placement_add_reason(p, "tiers guest asked, but the guest cannot see NUMA cells (x86 "
                                   "without <features><acpi/>): spilled instead");
    vn_placement_add_reason(p,
                            "tiers %s: no DRAM node holds %s; node %u holds the %u vCPUs and "
                            "%s of DRAM, the other %s goes to the slow tier on node %u (%s), "
                            "distance %u",
                            vn_tiers_to_string(c->tiers), total, fast->os_id, c->req->vcpus,
                            on_fast, on_slow, slow->os_id, slow->tier_reason,
                            set->internal_distance);
    vn_placement_add_reason(p,
                            "expected on each tier: dram %" G_GUINT64_FORMAT
                            " MiB on node %u, slow %" G_GUINT64_FORMAT " MiB on node %u",
                            set->mem_kib[0] / 1024, fast->os_id, set->mem_kib[1] / 1024,
                            slow->os_id);
    if (c->tiers == VN_TIERS_SPILL)
        vn_placement_add_reason(
            p,
            "tiers spill: the guest sees one node; its memory may use nodes %u and %u "
            "(restrictive, never strict: the kernel demotes cold pages to node %u and, "
            "with numa_balancing tiering, promotes hot ones back, which it never does "
            "for pages bound with strict)",
            fast->os_id, slow->os_id, slow->os_id);
    else
        vn_placement_add_reason(p,
                                "tiers guest: the slow memory is CPU-less guest cell 1 on node "
                                "%u, with the host's HMAT latency and bandwidth written into the "
                                "guest (<interconnects>), so the guest sees it as slower memory",
                                slow->os_id);
}

/* Why tiers did not apply when they were asked for, or NULL. */
gchar *
vn_plan_tiers_fallback(const VnPlanCtx *c)
{
    const gchar *mode = vn_tiers_to_string(c->tiers);
    const gchar *whose = c->req->tiers_set ? "the VM's wish" : "[placement] tiers";

    if (c->tiers == VN_TIERS_OFF)
        return NULL;
    if (!vn_plan_tiers_host_has_slow(c->t))
        return g_strdup_printf("tiers=%s (%s): this host has no slow memory tier (no CPU-less "
                               "node classed slow), placed as with tiers=off",
                               mode, whose);
    return g_strdup_printf("tiers=%s (%s): no DRAM node holds the %u vCPUs with a slow node "
                           "near it holding the rest, placed as with tiers=off",
                           mode, whose, c->req->vcpus);
}
