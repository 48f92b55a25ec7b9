/* vn-plan-capacity.c: what each node can still take for this request.
 *
 * Memory available on a node = total - reserved - headroom - committed,
 * capped by the measured free memory less headroom when it is known (the
 * ledger may not yet reflect what running guests touched, and measured
 * free memory may not yet reflect a VM that is reserved but not started:
 * the minimum of the two is safe for both).
 */
#include "vn-plan-private.h"

static gboolean
cpu_is_free(const VnPlanCtx *c, guint cpu)
{
    return !vn_bitmap_test(c->policy->reserved_cpus, cpu) &&
           !vn_bitmap_test(c->load->dedicated_cpus, cpu);
}

/* The node's CPUs this VM may use (host-reserved and dedicated ones
 * excluded), built on first use: most nodes never need the bitmap. */
const VnBitmap *
vn_plan_free_cpus(const VnPlanCtx *c, guint node)
{
    VnNodeCap *cap = &c->cap[node];

    if (!cap->free_cpus)
        cap->free_cpus = vn_policy_usable_cpus(c->policy, c->t, c->load, node);
    return cap->free_cpus;
}

static guint
count_free_cores(const VnPlanCtx *c, guint node, gboolean require_all_threads, guint *ret_threads)
{
    const VnTopology *t = c->t;
    g_autoptr(GHashTable) total = g_hash_table_new(g_direct_hash, g_direct_equal);
    g_autoptr(GHashTable) freec = g_hash_table_new(g_direct_hash, g_direct_equal);
    GHashTableIter it;
    gpointer key, value;
    guint cores = 0, threads = 0;

    VN_BITMAP_FOREACH (t->nodes[node].cpus, cpu) {
        const VnCpu *vc = vn_topology_cpu(t, (guint)cpu);
        gpointer k = GUINT_TO_POINTER(vc->core + 1);
        g_hash_table_insert(total, k,
                            GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(total, k)) + 1));
        if (cpu_is_free(c, (guint)cpu))
            g_hash_table_insert(
                freec, k, GUINT_TO_POINTER(GPOINTER_TO_UINT(g_hash_table_lookup(freec, k)) + 1));
    }
    g_hash_table_iter_init(&it, freec);
    while (g_hash_table_iter_next(&it, &key, &value)) {
        guint all = GPOINTER_TO_UINT(g_hash_table_lookup(total, key));
        if (!require_all_threads || GPOINTER_TO_UINT(value) == all) {
            cores++;
            threads += GPOINTER_TO_UINT(value);
        }
    }
    if (ret_threads)
        *ret_threads = threads;
    return cores;
}

VN_POPCOUNT_CLONES static void
compute_cpu(VnPlanCtx *c, guint i)
{
    const VnTopology *t = c->t;
    const VnNodeLoad *nl = &c->load->nodes[i];
    VnNodeCap *cap = &c->cap[i];
    const VnBitmap *cpus = t->nodes[i].cpus;
    guint n_host = 0, n_free = 0;
    gdouble busy = MAX(nl->cpu_busy, 0.0);

    /* word by word: no bitmap is built for a node that is only counted */
    for (guint w = 0; w < cpus->n_words; w++) {
        guint64 host;
        if (!cpus->words[w])
            continue;
        host = cpus->words[w] & ~c->policy->reserved_cpus->words[w];
        n_host += (guint)__builtin_popcountll(host);
        n_free += (guint)__builtin_popcountll(host & ~c->load->dedicated_cpus->words[w]);
    }

    cap->shared_cpus = n_free;
    if (!c->req->dedicated) {
        gdouble capacity = n_free * c->policy->cpu_overcommit;
        guint whole = (guint)capacity;
        cap->vcpu_capacity = MAX(capacity, 1e-9);
        cap->vcpus = whole > nl->committed_vcpus ? whole - nl->committed_vcpus : 0;
        /* a VM never overcommits against itself: a node takes no more of
         * its vCPUs than it has CPUs (Nova's _numa_fit_instance_cell()
         * refuses an instance cell with more vCPUs than the host cell's
         * CPUs; ESXi splits such a "wide" VM into NUMA clients), or, when
         * no node set can give each a CPU, vcpus_per_cpu of them a CPU */
        if (c->vcpus_per_cpu)
            cap->vcpus = MIN(cap->vcpus, n_free * c->vcpus_per_cpu);
        cap->cpu_util = MAX(busy, nl->committed_vcpus / cap->vcpu_capacity);
    } else {
        cap->vcpu_capacity = MAX((gdouble)n_host, 1e-9);
        cap->cpu_util = MAX(busy, (n_host - n_free) / cap->vcpu_capacity);
        switch (c->req->smt) {
        case VN_SMT_PREFER:
            cap->vcpus = n_free;
            break;
        case VN_SMT_ISOLATE:
            cap->vcpus = count_free_cores(c, i, TRUE, NULL);
            break;
        default: /* require: whole free cores, counted in vcpu units */
            cap->vcpus = count_free_cores(c, i, TRUE, NULL);
            break;
        }
    }
    cap->high_share = nl->committed_high_vcpus / MAX(cap->vcpu_capacity, 1.0);
    if (cap->vcpus < 1) {
        cap->usable = FALSE;
        cap->why_not = n_free == 0 ? "no free CPU" : "no CPU capacity left";
    }
}

static void
compute_memory(VnPlanCtx *c, guint i, guint64 overhead_share)
{
    const VnNode *node = &c->t->nodes[i];
    const VnNodeLoad *nl = &c->load->nodes[i];
    VnNodeCap *cap = &c->cap[i];
    guint64 base = vn_policy_memory_base_kib(c->policy, c->t, i);
    guint64 avail = vn_policy_usable_memory_kib(c->policy, c->t, i, nl->committed_memory_kib);

    cap->mem_base_kib = MAX(base, 1);
    cap->mem_util = 1.0 - (gdouble)avail / (gdouble)cap->mem_base_kib;

    if (c->req->hugepage_kib) {
        guint64 pages = 0;
        for (guint h = 0; h < node->hugepages->len; h++) {
            const VnHugepages *hp = &g_array_index(node->hugepages, VnHugepages, h);
            if (hp->size_kib == c->req->hugepage_kib) {
                guint64 used = vn_load_get_hugepages(c->load, i, hp->size_kib);
                pages = MIN(hp->free, hp->total > used ? hp->total - used : 0);
            }
        }
        cap->mem_kib = avail >= overhead_share ? pages * c->req->hugepage_kib : 0;
        if (cap->usable && cap->mem_kib < c->mem_unit_kib) {
            cap->usable = FALSE;
            cap->why_not = pages ? "no memory left for QEMU overhead"
                                 : "no free hugepages of the requested size";
        }
        return;
    }
    cap->mem_kib = avail > overhead_share ? avail - overhead_share : 0;
    if (cap->usable && cap->mem_kib < c->mem_unit_kib) {
        cap->usable = FALSE;
        cap->why_not = "no free memory";
    }
}

static gint
room_cmp(gconstpointer a, gconstpointer b, gpointer ctx)
{
    const VnPlanCtx *c = ctx;
    guint64 x = c->cap[*(const guint *)a].mem_kib, y = c->cap[*(const guint *)b].mem_kib;

    if (x != y)
        return x > y ? -1 : 1;
    return (*(const guint *)a > *(const guint *)b) - (*(const guint *)a < *(const guint *)b);
}

/* Balance keep-hole: the usable nodes, most room first. */
static void
rank_rooms(VnPlanCtx *c)
{
    c->by_room = g_new(guint, MAX(c->n, 1));
    c->n_by_room = 0;
    for (guint i = 0; i < c->n; i++)
        if (c->cap[i].usable)
            c->by_room[c->n_by_room++] = i;
    g_qsort_with_data(c->by_room, (gint)c->n_by_room, sizeof(guint), room_cmp, c);
}

gdouble
vn_plan_hole_lost(const VnPlanCtx *c, const VnNodeSet *s)
{
    guint64 hole = 0;

    if (!c->largest_base_kib)
        return 0.0;
    for (guint i = 0; i < s->k; i++) {
        guint64 room = c->cap[s->nodes[i]].mem_kib;
        hole = MAX(hole, room > s->mem_kib[i] ? room - s->mem_kib[i] : 0);
    }
    /* the roomiest node outside the set: at most k + 1 steps */
    for (guint r = 0; r < c->n_by_room; r++) {
        guint node = c->by_room[r];
        gboolean member = FALSE;
        for (guint i = 0; i < s->k && !member; i++)
            member = s->nodes[i] == node;
        if (!member) {
            hole = MAX(hole, c->cap[node].mem_kib);
            break;
        }
    }
    return CLAMP(1.0 - (gdouble)hole / (gdouble)c->largest_base_kib, 0.0, 1.0);
}

/* The balance this plan places with: the policy's, or adaptive's choice
 * at the host's committed share (vn_policy_balance_at()). */
static void
choose_balance(VnPlanCtx *c)
{
    c->host_used = vn_policy_committed_share(c->policy, c->t, c->load);
    c->balance = vn_policy_balance_at(c->policy, c->host_used);
}

/* The CPU stage of node i: whether it may hold a cell at all, and its
 * vCPU room; what the memory stage starts from. */
static void
compute_node_cpu(VnPlanCtx *c, guint i)
{
    VnNodeCap *cap = &c->cap[i];
    const VnNode *node = &c->t->nodes[i];

    cap->usable = TRUE;
    cap->cpu_has_memory = TRUE;
    if (vn_bitmap_is_empty(node->cpus) && node->mem_total_kib > 0 &&
        ((c->req->allow_memory_only && !c->fixed_cells) ||
         (c->slow_memory && node->tier == VN_MEMORY_TIER_SLOW))) {
        /* memory for a CPU-less guest cell, on request only */
        cap->memory_only = TRUE;
        cap->vcpu_capacity = 1.0;
    } else if (vn_bitmap_is_empty(node->cpus)) {
        cap->usable = cap->cpu_has_memory = FALSE;
        cap->why_not = node->cpu_owner >= 0
                           ? "memory-only node sharing another node's CPUs (used only on request)"
                           : "memory-only node (used only on request)";
    } else if (node->mem_total_kib == 0) {
        cap->usable = cap->cpu_has_memory = FALSE;
        cap->why_not = "CPU-only node without local memory";
    } else if (c->req->allowed_cpus && !vn_bitmap_intersects(node->cpus, c->req->allowed_cpus)) {
        cap->usable = cap->cpu_has_memory = FALSE;
        cap->why_not = "none of its CPUs is in the VM's allowed CPU set";
    } else {
        compute_cpu(c, i);
    }
    cap->cpu_usable = cap->usable;
    cap->cpu_why_not = cap->why_not;
}

void
vn_plan_capacity_compute(VnPlanCtx *c, guint64 overhead_per_cell_kib)
{
    /* the CPU stage depends on the pass's vCPUs a CPU and on whether slow
     * nodes take memory-only cells, not on the overhead share: a plan
     * that tries several node counts computes it once a pass */
    guint key = (c->vcpus_per_cpu + 1) * 2 + (c->slow_memory ? 1 : 0);
    gboolean cpu_stage = !c->cap || c->cap_cpu_key != key;

    if (cpu_stage) {
        vn_plan_capacity_clear(c);
        c->cap = g_new0(VnNodeCap, c->n);
        c->cap_cpu_key = key;
    }
    g_clear_pointer(&c->by_room, g_free);
    c->n_by_room = 0;
    for (guint i = 0; i < c->n; i++) {
        VnNodeCap *cap = &c->cap[i];
        if (cpu_stage)
            compute_node_cpu(c, i);
        cap->usable = cap->cpu_usable;
        cap->why_not = cap->cpu_why_not;
        if (cap->cpu_has_memory)
            compute_memory(c, i, overhead_per_cell_kib);
    }
    c->largest_base_kib = 0;
    for (guint i = 0; i < c->n; i++)
        if (c->cap[i].usable)
            c->largest_base_kib = MAX(c->largest_base_kib, c->cap[i].mem_base_kib);
    choose_balance(c);
    if (c->balance == VN_BALANCE_KEEP_HOLE)
        rank_rooms(c);
}

void
vn_plan_capacity_clear(VnPlanCtx *c)
{
    if (!c->cap)
        return;
    for (guint i = 0; i < c->n; i++)
        vn_bitmap_free(c->cap[i].free_cpus);
    g_clear_pointer(&c->cap, g_free);
    g_clear_pointer(&c->by_room, g_free);
    c->n_by_room = 0;
    c->cap_cpu_key = 0;
}

/* The parts memory packing weighs (VN_BALANCE_MEMORY_PACKING): CPU use
 * after placement, contention included, and the share of the node's
 * memory still free after it (0..1). */
gdouble
vn_plan_node_cpu_after(const VnPlanCtx *c, guint node, guint vcpus)
{
    const VnNodeCap *cap = &c->cap[node];
    gdouble contention =
        c->req->priority == VN_PRIORITY_HIGH ? 0.5 * cap->high_share : 0.1 * cap->high_share;

    return cap->cpu_util + vcpus / cap->vcpu_capacity + contention;
}

gdouble
vn_plan_node_crowding(const VnPlanCtx *c, guint node, guint vcpus)
{
    gdouble rho;

    if (c->req->dedicated || c->cap[node].shared_cpus == 0)
        return 0.0;
    rho = vn_plan_node_rho(c, node, vcpus);
    return CLAMP((rho - VN_BALANCE_DENSITY_KNEE) / (1.0 - VN_BALANCE_DENSITY_KNEE), 0.0, 1.0) +
           VN_BALANCE_DENSITY_OVER_SLOPE * MAX(0.0, rho - 1.0) / (1.0 - VN_BALANCE_DENSITY_KNEE);
}

gdouble
vn_plan_node_density_after(const VnPlanCtx *c, guint node, guint vcpus, guint64 mem_kib)
{
    gdouble after = vn_plan_node_crowding(c, node, vcpus), before, held, added;

    if (after <= 0.0 || c->largest_base_kib == 0)
        return 0.0;
    before = vn_plan_node_crowding(c, node, 0);
    held = (gdouble)c->load->nodes[node].committed_memory_kib / (gdouble)c->largest_base_kib;
    added = (gdouble)mem_kib / (gdouble)c->largest_base_kib;
    return VN_BALANCE_DENSITY_WEIGHT * (after * (held + added) - before * held);
}

guint
vn_plan_node_uncrowded_vcpus(const VnPlanCtx *c, guint node)
{
    guint knee = (guint)(c->cap[node].shared_cpus * VN_BALANCE_DENSITY_KNEE);
    guint committed = c->load->nodes[node].committed_vcpus;

    return knee > committed ? knee - committed : 0;
}

gdouble
vn_plan_node_free_after(const VnPlanCtx *c, guint node, guint64 mem_kib)
{
    const VnNodeCap *cap = &c->cap[node];
    gdouble used = cap->mem_util + (gdouble)mem_kib / (gdouble)cap->mem_base_kib;

    return CLAMP(1.0 - used, 0.0, 1.0);
}

gchar *
vn_plan_format_kib(guint64 kib)
{
    if (kib >= 1024 * 1024)
        return g_strdup_printf("%.1f GiB", kib / (1024.0 * 1024.0));
    if (kib >= 1024)
        return g_strdup_printf("%" G_GUINT64_FORMAT " MiB", kib / 1024);
    return g_strdup_printf("%" G_GUINT64_FORMAT " KiB", kib);
}

/* "cells 0, 2" / "cell 1" / "none of the cells" for a mask of sized cells */
static gchar *
cells_string(guint64 mask)
{
    GString *s = g_string_new(NULL);
    guint n = 0;

    for (guint i = 0; i < VN_PLAN_MAX_SIZED_CELLS; i++) {
        if (!(mask & ((guint64)1 << i)))
            continue;
        g_string_append_printf(s, "%s%u", n++ ? ", " : "", i);
    }
    if (n == 0)
        g_string_assign(s, "none of the cells");
    else
        g_string_prepend(s, n == 1 ? "cell " : "cells ");
    return g_string_free(s, FALSE);
}

/* Guest cells of their own sizes: what the node has and which cells it
 * could hold on its own. */
static gchar *
sized_shortfall(const VnPlanCtx *c, guint node, const gchar *have)
{
    g_autofree gchar *cells = cells_string(vn_plan_cells_fit_mask(c, node));

    return g_strdup_printf(
        "node %u: %s%s and room for %u %svCPUs free, holds %s alone", c->t->nodes[node].os_id, have,
        c->req->hugepage_kib ? " in hugepages" : "", c->cap[node].vcpus * c->vcpu_unit,
        c->req->dedicated ? "dedicated " : "", cells);
}

/* One line on what a node lacks for this VM (used when nothing fits). */
gchar *
vn_plan_node_shortfall(const VnPlanCtx *c, guint node)
{
    const VnNodeCap *cap = &c->cap[node];
    guint os_id = c->t->nodes[node].os_id;
    g_autofree gchar *have = vn_plan_format_kib(cap->mem_kib);
    g_autofree gchar *need = vn_plan_format_kib(c->req->memory_kib);
    guint vunits = c->req->vcpus / c->vcpu_unit;

    if (!cap->usable)
        return g_strdup_printf("node %u: %s", os_id, cap->why_not);
    if (cap->memory_only)
        return g_strdup_printf(
            "node %u: memory-only, %s free: can add memory to a VM, not hold its vCPUs", os_id,
            have);
    if (c->sizes)
        return sized_shortfall(c, node, have);
    if (cap->vcpus < vunits && cap->mem_kib < c->req->memory_kib)
        return g_strdup_printf("node %u: %s and room for %u vCPUs free, needs %s and %u vCPUs",
                               os_id, have, cap->vcpus * c->vcpu_unit, need, c->req->vcpus);
    if (cap->mem_kib < c->req->memory_kib)
        return g_strdup_printf("node %u: %s free%s, needs %s", os_id, have,
                               c->req->hugepage_kib ? " in hugepages" : "", need);
    if (cap->vcpus < vunits)
        return g_strdup_printf("node %u: room for %u %svCPUs, needs %u", os_id,
                               cap->vcpus * c->vcpu_unit, c->req->dedicated ? "dedicated " : "",
                               c->req->vcpus);
    return g_strdup_printf("node %u: fits alone", os_id);
}
