/* vn-plan.c: the placement core's entry point.
 *
 * 1. validate the request;
 * 2. cell count: the fewest nodes that hold the VM (1 whenever one can),
 *    or the user's fixed guest cell count;
 * 3. node set: vn_plan_best_set() (nearest, then device-near, then least
 *    loaded, or memory packed: VnPolicy.balance);
 * 4. split, CPUs, emulator, IOThreads: vn-plan-split.c, vn-plan-cpus.c;
 * 5. reasons for all of it.
 */
#include "vn-plan-private.h"
#include "vn-load-release.h"

#include <string.h>

G_DEFINE_QUARK(vn-plan-error-quark, vn_plan_error);

#define VN_EXTRA_K_TRIES 3

/* Guest cells of their own sizes: as many as `cells`, summing to the
 * request, each in whole cores (SMT require) and whole hugepages. */
static gboolean
validate_cell_sizes(const VnTopology *t, const VnRequest *r, GError **error)
{
    const GArray *sizes = r->cell_sizes;
    guint vcpus = 0;
    guint64 kib = 0;

    if (sizes->len != r->cells || sizes->len > VN_PLAN_MAX_SIZED_CELLS) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "per-cell sizes are given for %u guest cells, the request has %u cells "
                    "(at most %u cells with their own sizes)",
                    sizes->len, r->cells, VN_PLAN_MAX_SIZED_CELLS);
        return FALSE;
    }
    for (guint i = 0; i < sizes->len; i++) {
        const VnCellSize *cs = &g_array_index(sizes, VnCellSize, i);
        const gchar *bad = NULL;
        if (cs->vcpus == 0 && cs->memory_kib == 0)
            bad = "has neither vCPUs nor memory";
        else if (cs->vcpus > VN_REQUEST_MAX_VCPUS)
            bad = "has more vCPUs than any VM may (" G_STRINGIFY(VN_REQUEST_MAX_VCPUS) ")";
        else if (r->dedicated && r->smt == VN_SMT_REQUIRE && cs->vcpus % t->smt_width)
            bad = "is not whole cores, as SMT policy require needs";
        else if (r->hugepage_kib && cs->memory_kib % r->hugepage_kib)
            bad = "has memory that is not a multiple of the hugepage size";
        if (bad) {
            g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                        "guest cell %u (%u vCPUs, %" G_GUINT64_FORMAT " KiB) %s", i, cs->vcpus,
                        cs->memory_kib, bad);
            return FALSE;
        }
        vcpus += cs->vcpus;
        kib += cs->memory_kib;
    }
    if (vcpus != r->vcpus || kib != r->memory_kib) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "the guest cells hold %u vCPUs and %" G_GUINT64_FORMAT " KiB in all, "
                    "the request %u vCPUs and %" G_GUINT64_FORMAT " KiB",
                    vcpus, kib, r->vcpus, r->memory_kib);
        return FALSE;
    }
    return TRUE;
}

/* The request schema's limits (vn-request.h), named as the request's
 * fields. */
static gboolean
validate_limits(const VnRequest *r, GError **error)
{
    const struct {
        const gchar *name;
        guint64 value, min, max;
    } limits[] = {
        { "vcpus", r->vcpus, 1, VN_REQUEST_MAX_VCPUS },
        { "cells", r->cells, 0, VN_REQUEST_MAX_CELLS },
        { "iothreads", r->iothreads, 0, VN_REQUEST_MAX_IOTHREADS },
        { "devices", r->devices ? r->devices->len : 0, 0, VN_REQUEST_MAX_DEVICES },
    };

    for (guint i = 0; i < G_N_ELEMENTS(limits); i++) {
        if (limits[i].value >= limits[i].min && limits[i].value <= limits[i].max)
            continue;
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "%s must be from %" G_GUINT64_FORMAT " to %" G_GUINT64_FORMAT
                    ", got %" G_GUINT64_FORMAT,
                    limits[i].name, limits[i].min, limits[i].max, limits[i].value);
        return FALSE;
    }
    if (r->memory_kib < VN_REQUEST_MIN_MEMORY_KIB ||
        r->memory_kib / 1024 > VN_REQUEST_MAX_MEMORY_MIB) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "memory must be from 1 MiB to %" G_GUINT64_FORMAT " MiB, got %" G_GUINT64_FORMAT
                    " KiB",
                    VN_REQUEST_MAX_MEMORY_MIB, r->memory_kib);
        return FALSE;
    }
    return TRUE;
}

static gboolean
validate(const VnTopology *t, const VnRequest *r, GError **error)
{
    if (!validate_limits(r, error))
        return FALSE;
    if (r->hugepage_kib && r->memory_kib % r->hugepage_kib) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "memory (%" G_GUINT64_FORMAT
                    " KiB) is not a multiple of the hugepage size (%" G_GUINT64_FORMAT " KiB)",
                    r->memory_kib, r->hugepage_kib);
        return FALSE;
    }
    if (r->cell_sizes && !validate_cell_sizes(t, r, error))
        return FALSE;
    if (r->distinct_nodes && !r->cells) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "distinct nodes need a fixed guest cell count");
        return FALSE;
    }
    if (r->cells > r->vcpus && !r->cell_sizes) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "%u guest cells need at least %u vCPUs, got %u", r->cells, r->cells, r->vcpus);
        return FALSE;
    }
    if (r->dedicated && r->smt == VN_SMT_REQUIRE && r->vcpus % t->smt_width) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                    "SMT policy require needs vCPUs in whole cores of %u threads, got %u vCPUs",
                    t->smt_width, r->vcpus);
        return FALSE;
    }
    for (guint d = 0; r->devices && d < r->devices->len; d++) {
        const VnDevice *dev = &g_array_index(r->devices, VnDevice, d);
        if (vn_topology_node_by_os_id(t, dev->node_os_id) < 0) {
            g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST,
                        "%s is on node %u, which this host does not have",
                        dev->name ? dev->name : "a device", dev->node_os_id);
            return FALSE;
        }
    }
    return TRUE;
}

/* The allowed CPU set rides on the host-reserved CPUs: every step that
 * keeps guests off reserved CPUs (capacity, pins, emulator, IOThreads)
 * keeps this VM inside its set, with no second path through the core. */
static VnPolicy *
restrict_policy(const VnTopology *t, const VnPolicy *policy, const VnBitmap *allowed)
{
    VnPolicy *p = g_memdup2(policy, sizeof(*policy));

    p->reserved_cpus = vn_bitmap_new(t->n_cpu_ids);
    for (guint i = 0; i < t->n_nodes; i++)
        vn_bitmap_or(p->reserved_cpus, t->nodes[i].cpus);
    vn_bitmap_and_not(p->reserved_cpus, allowed);
    vn_bitmap_or(p->reserved_cpus, policy->reserved_cpus);
    return p;
}

static void
ctx_init(VnPlanCtx *c, const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
         const VnRequest *req)
{
    memset(c, 0, sizeof(*c));
    c->t = t;
    c->load = load;
    c->policy = policy;
    c->req = req;
    if (req->allowed_cpus) {
        c->restricted = restrict_policy(t, policy, req->allowed_cpus);
        c->policy = c->restricted;
    }
    c->n = t->n_nodes;
    /* a VM never overcommits against itself first (choose_set()); at an
     * overcommit of 1 or less the capacity says as much */
    c->vcpus_per_cpu = c->policy->cpu_overcommit > 1.0 ? 1 : 0;
    c->overhead_kib = vn_policy_overhead_kib(policy, req->memory_kib);
    if (req->hugepage_kib)
        c->mem_unit_kib = req->hugepage_kib;
    else
        c->mem_unit_kib = req->memory_kib % 1024 == 0 ? 1024 : 4;
    if (req->cell_sizes) {
        c->sizes = (const VnCellSize *)(gconstpointer)req->cell_sizes->data;
        for (guint i = 0; !req->hugepage_kib && i < req->cells; i++)
            if (c->sizes[i].memory_kib % c->mem_unit_kib)
                c->mem_unit_kib = 4;
    }
    c->vcpu_unit = req->dedicated && req->smt == VN_SMT_REQUIRE ? t->smt_width : 1;
    c->fixed_cells = req->cells;
    if (req->cells) {
        guint vunits = req->vcpus / c->vcpu_unit;
        guint64 munits = req->memory_kib / c->mem_unit_kib;
        c->vshare_fixed = (vunits + req->cells - 1) / req->cells;
        c->mshare_fixed = (munits + req->cells - 1) / req->cells;
    }
    /* 4 words per node for the split, a gboolean per node, 4 words per
     * node for the fill split (vn-plan-split.c), and 2 for the fill's
     * shares while the even split is tried (vn-plan-nodeset.c) */
    c->scratch = g_new(guint64, 11 * (gsize)MAX(c->n, 1));
    c->n_dev = req->devices ? req->devices->len : 0;
    c->dev_node = g_new0(gint, MAX(c->n_dev, 1));
    if (c->sizes)
        vn_plan_cells_init(c);
    for (guint d = 0; d < c->n_dev; d++)
        c->dev_node[d] =
            vn_topology_node_by_os_id(t, g_array_index(req->devices, VnDevice, d).node_os_id);
}

static void
ctx_clear(VnPlanCtx *c)
{
    vn_plan_capacity_clear(c);
    vn_plan_cells_clear(c);
    g_clear_pointer(&c->restricted, vn_policy_free);
    g_free(c->dev_node);
    g_free(c->scratch);
}

/* Guest cells of their own sizes: each cell, and whether any node can
 * hold it on its own (when every cell has a node, the cells do not fit
 * together on the nodes that are near enough). */
static void
add_sized_cell_reasons(const VnPlanCtx *c, GPtrArray *r)
{
    guint64 any = 0;

    for (guint node = 0; node < c->n; node++)
        any |= vn_plan_cells_fit_mask(c, node);
    for (guint i = 0; i < c->fixed_cells; i++) {
        g_autofree gchar *mem = vn_plan_format_kib(c->sizes[i].memory_kib);
        g_ptr_array_add(r, g_strdup_printf("cell %u: %u vCPUs, %s: %s", i, c->sizes[i].vcpus, mem,
                                           any & ((guint64)1 << i) ? "some node holds it alone"
                                                                   : "no node holds it alone"));
    }
}

/* "allowed CPU set: 4 CPUs of this host, on node 1" (NULL without a
 * set): the nodes with CPUs in the set, the only ones that take cells. */
static gchar *
allowed_reason(const VnPlanCtx *c)
{
    g_autoptr(GString) nodes = g_string_new(NULL);
    guint cpus = 0, k = 0;

    if (!c->req->allowed_cpus)
        return NULL;
    for (guint i = 0; i < c->n; i++) {
        guint n = vn_bitmap_count_and(c->t->nodes[i].cpus, c->req->allowed_cpus);
        if (!n)
            continue;
        g_string_append_printf(nodes, "%s%u", k++ ? "," : "", c->t->nodes[i].os_id);
        cpus += n;
    }
    if (!k)
        return g_strdup("allowed CPU set: no CPU of this host is in it");
    return g_strdup_printf("allowed CPU set: %u CPUs of this host, on node%s %s; no cell "
                           "goes elsewhere",
                           cpus, k == 1 ? "" : "s", nodes->str);
}

static GPtrArray *
no_fit_reasons(const VnPlanCtx *c, const gchar *headline)
{
    GPtrArray *r = g_ptr_array_new_with_free_func(g_free);
    g_autofree gchar *mem = vn_plan_format_kib(c->req->memory_kib);
    guint shown = 0;

    g_ptr_array_add(r, g_strdup(headline));
    g_ptr_array_add(r, g_strdup_printf("request: %u %svCPUs, %s%s", c->req->vcpus,
                                       c->req->dedicated ? "dedicated " : "", mem,
                                       c->req->hugepage_kib ? " in hugepages" : ""));
    if (c->req->allowed_cpus)
        g_ptr_array_add(r, allowed_reason(c));
    /* in kernel node order, as people read them */
    for (guint os = 0; shown < MIN(c->n, 64) && os <= G_MAXUINT16; os++) {
        gint node = vn_topology_node_by_os_id(c->t, os);
        if (node < 0)
            continue;
        g_ptr_array_add(r, vn_plan_node_shortfall(c, (guint)node));
        shown++;
    }
    if (c->sizes)
        add_sized_cell_reasons(c, r);
    if (c->n > shown)
        g_ptr_array_add(r, g_strdup_printf("... and %u more nodes", c->n - shown));
    return r;
}

static gchar *
nodes_string(const VnTopology *t, const guint *nodes, guint k)
{
    GString *s = g_string_sized_new(4 * k);

    /* Every plan explains itself with these lists: one printf-family call
     * a node cost a tenth of an 8-cell plan on 16 nodes, so the digits are
     * written here. */
    for (guint i = 0; i < k; i++) {
        gchar digits[12], *d = digits + sizeof(digits);
        guint id = t->nodes[nodes[i]].os_id;
        do
            *--d = (gchar)('0' + id % 10);
        while ((id /= 10) > 0);
        if (i)
            g_string_append_c(s, ',');
        g_string_append_len(s, d, digits + sizeof(digits) - d);
    }
    return g_string_free(s, FALSE);
}

/* ", N vCPUs on its M CPUs, crowded past half: A to B on X" when node
 * `node` would be crowded past the knee after `vcpus` more: its crowding
 * before and after (vn_plan_node_crowding()) and the memory there whose
 * accesses it slows, the node's committed memory and `mem_kib` of the VM
 * (what vn_plan_node_density_after() weighs); else "". */
static gchar *
crowded_note(const VnPlanCtx *c, guint node, guint vcpus, guint64 mem_kib)
{
    gdouble after = vn_plan_node_crowding(c, node, vcpus);
    g_autofree gchar *memory = NULL;

    if (after <= 0.0)
        return g_strdup("");
    memory = vn_plan_format_kib(c->load->nodes[node].committed_memory_kib + mem_kib);
    return g_strdup_printf(", %u vCPUs on its %u CPUs, crowded past half: %.2f to %.2f on %s",
                           c->load->nodes[node].committed_vcpus + vcpus, c->cap[node].shared_cpus,
                           vn_plan_node_crowding(c, node, 0), after, memory);
}

/* A shared VM split only for its vCPUs: more of them than any node has
 * CPUs for them, while some node has room for all of its memory. */
static gboolean
wider_than_nodes(const VnPlanCtx *c)
{
    gboolean memory_fits = FALSE;

    if (c->req->dedicated)
        return FALSE;
    for (guint i = 0; i < c->n; i++) {
        if (c->cap[i].usable && c->cap[i].shared_cpus >= c->req->vcpus)
            return FALSE;
        memory_fits |= c->cap[i].usable && c->cap[i].mem_kib >= c->req->memory_kib;
    }
    return memory_fits;
}

static void
explain_choice(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p)
{
    g_autofree gchar *nodes = nodes_string(c->t, set->nodes, set->k);
    g_autofree gchar *allowed = allowed_reason(c);

    if (c->t->distances_assumed)
        vn_placement_add_reason(p, "host reports no NUMA distances: assumed 10 local, 20 remote");
    if (allowed)
        vn_placement_add_reason(p, "%s", allowed);
    if (c->sizes)
        vn_placement_add_reason(p,
                                "guest topology fixed at %u cells of their own sizes: "
                                "placed on %u node(s), each holding its cells whole",
                                c->fixed_cells, set->k);
    else if (c->fixed_cells)
        vn_placement_add_reason(p, "guest topology fixed at %u cells: placed on %u node(s)",
                                c->fixed_cells, set->k);
    else if (p->interleave)
        vn_placement_add_reason(
            p, "larger than any single node's free capacity: memory over %u nodes", set->k);
    else if (set->k == 1) {
        g_autofree gchar *crowded = crowded_note(c, set->nodes[0], set->vcpus[0], set->mem_kib[0]);
        vn_placement_add_reason(p, "fits on one node: node %s (load after placement %.0f%%%s)",
                                nodes, set->load_after * 100.0, crowded);
    } else if (wider_than_nodes(c) && !p->self_overcommitted)
        vn_placement_add_reason(p,
                                "%u vCPUs, more than any node's CPUs: %u cells on %u nodes, "
                                "so that no vCPU waits for a CPU behind another of its own",
                                c->req->vcpus, set->k, set->k);
    else
        vn_placement_add_reason(
            p, "larger than any single node's free capacity: %u cells on %u nodes", set->k, set->k);
    if (p->self_overcommitted)
        vn_placement_add_reason(p,
                                "no node set gives each of its %u vCPUs a CPU: some share CPUs "
                                "with each other",
                                c->req->vcpus);
    if (set->k > 1)
        vn_placement_add_reason(
            p, "nodes %s: internal distance %u, the smallest among feasible sets found", nodes,
            set->internal_distance);
    if (set->even)
        vn_placement_add_reason(p,
                                "split even, not fill: the fill crowds a member's CPUs past half, "
                                "where its memory bandwidth fills, and even shares "
                                "score lower");
    if (c->n_dev)
        vn_placement_add_reason(
            p, "device distance %u beyond local (0 = every device on a chosen node)",
            set->device_distance);
    if (c->policy->balance == VN_BALANCE_ADAPTIVE)
        vn_placement_add_reason(
            p, "balance adaptive: host memory %.0f%% committed, %s %.0f%%: %s",
            c->host_used * 100.0, c->balance == VN_BALANCE_MEMORY_PACKING ? "at least" : "under",
            VN_BALANCE_ADAPTIVE_PACK_AT * 100.0,
            c->balance == VN_BALANCE_MEMORY_PACKING ? "memory packing" : "least loaded");
    if (c->balance == VN_BALANCE_MEMORY_PACKING)
        vn_placement_add_reason(
            p,
            "balance memory-packing: of equally near choices, the one leaving the "
            "least CPU use and free memory (CPU use + %.1f x free memory share after "
            "placement), so whole nodes stay free for big VMs",
            VN_BALANCE_PACKING_FREE_WEIGHT);
    if (c->balance == VN_BALANCE_KEEP_HOLE)
        vn_placement_add_reason(
            p,
            "balance keep-hole: of equally near choices, the one keeping the most room on "
            "any node for the next big VM, then the least loaded (%.2f x load after placement)",
            VN_BALANCE_HOLE_LOAD_WEIGHT);
    /* The two best feasible alternatives to the chosen set: the
     * candidates list infeasible single nodes first, and the sets of every
     * size tried, so the chosen one is not always the first. */
    for (guint i = 0, shown = 0; i < p->candidates->len && shown < 2; i++) {
        const VnCandidate *cand = g_ptr_array_index(p->candidates, i);
        g_autofree gchar *alt = NULL, *crowded = NULL;
        if (!cand->feasible || cand->chosen)
            continue;
        shown++;
        alt = nodes_string(c->t, (const guint *)cand->nodes->data, cand->nodes->len);
        if (cand->nodes->len == 1)
            crowded = crowded_note(c, g_array_index(cand->nodes, guint, 0), c->req->vcpus,
                                   c->req->memory_kib);
        if (cand->nodes->len == 1 && !c->n_dev)
            vn_placement_add_reason(p, "not node %s: load after placement %.0f%%%s", alt,
                                    cand->load_after * 100.0, crowded);
        else if (cand->nodes->len == 1)
            vn_placement_add_reason(p, "not node %s: device distance %u, load after %.0f%%%s", alt,
                                    cand->device_distance, cand->load_after * 100.0, crowded);
        else
            vn_placement_add_reason(
                p, "not nodes %s: internal distance %u, device distance %u, load after %.0f%%", alt,
                cand->internal_distance, cand->device_distance, cand->load_after * 100.0);
    }
    for (guint i = 0; i < c->n; i++)
        if (!c->cap[i].usable && c->cap[i].why_not && vn_bitmap_is_empty(c->t->nodes[i].cpus))
            vn_placement_add_reason(p, "node %u: %s", c->t->nodes[i].os_id, c->cap[i].why_not);
    for (guint i = 0; i < set->k; i++)
        if (c->cap[set->nodes[i]].memory_only)
            vn_placement_add_reason(
                p, "node %u: memory-only%s%s, holds a CPU-less guest cell (requested)",
                c->t->nodes[set->nodes[i]].os_id, c->t->nodes[set->nodes[i]].subtype ? " " : "",
                c->t->nodes[set->nodes[i]].subtype ? c->t->nodes[set->nodes[i]].subtype : "");
}

/* The most nodes a set may have. */
static guint
choose_k_max(const VnPlanCtx *c)
{
    /* CPU-less cells need no vCPU: with memory-only nodes allowed, any size */
    return c->fixed_cells              ? MIN(c->fixed_cells, c->n)
           : c->req->allow_memory_only ? c->n
                                       : MIN(c->req->vcpus / c->vcpu_unit, c->n);
}

/* A lower bound on the node count, with the overhead spread as thin as it
 * can be (capacity computed for it); 0 when no node set can hold the VM. */
static guint
min_nodes_bound(VnPlanCtx *c)
{
    vn_plan_capacity_compute(c, c->overhead_kib / MAX(choose_k_max(c), 1));
    return vn_plan_min_nodes(c);
}

/* Tries k = k_min .. ; the capacity (overhead share) depends on k. */
static VnNodeSet *
choose_k(VnPlanCtx *c, GPtrArray *candidates)
{
    guint k_max = choose_k_max(c);
    /* each k below recomputes capacity with its own share */
    guint k_min = min_nodes_bound(c);

    if (k_min == 0)
        return NULL;
    if (c->req->distinct_nodes && c->fixed_cells) {
        if (c->fixed_cells > c->n)
            return NULL;
        k_min = MAX(k_min, c->fixed_cells);
    }
    for (guint k = k_min, tries = 0; k <= k_max; k++) {
        VnNodeSet *set;
        vn_plan_capacity_compute(c, c->overhead_kib / k);
        g_ptr_array_set_size(candidates, 0);
        set = vn_plan_best_set(c, k, candidates);
        if (set)
            return set;
        /* past a few sizes the growth gives way to the largest nodes */
        if (++tries > VN_EXTRA_K_TRIES && k < k_max)
            k = MAX(k, k_max - 1);
    }
    return NULL;
}

/* The next pass when none fits with c->vcpus_per_cpu of the VM's shared
 * vCPUs a CPU: twice as many, no limit once that reaches the overcommit;
 * FALSE when the last pass had none. */
static gboolean
next_sharing(VnPlanCtx *c)
{
    guint next = c->vcpus_per_cpu * 2;

    if (c->req->dedicated || c->vcpus_per_cpu == 0)
        return FALSE;
    c->vcpus_per_cpu = next < c->policy->cpu_overcommit ? next : 0;
    return TRUE;
}

/* The node set, each member holding no more of the VM's shared vCPUs
 * than it has CPUs; only when no set can, one where they share CPUs, as
 * few a CPU as any set allows (2, 4, ... up to the overcommit): 80 vCPUs
 * on two 32-CPU nodes are 40 + 40, not 80 on one node. */
static VnNodeSet *
choose_set(VnPlanCtx *c, GPtrArray *candidates)
{
    VnNodeSet *set = choose_k(c, candidates);
    guint next;

    if (set || !next_sharing(c))
        return set;
    /* Later passes only raise the vCPU room: when not even the last one
     * (no per-CPU limit) has the room for the VM, none of them fits. */
    next = c->vcpus_per_cpu;
    c->vcpus_per_cpu = 0;
    if (min_nodes_bound(c) == 0)
        return NULL;
    c->vcpus_per_cpu = next;
    while (!(set = choose_k(c, candidates)) && next_sharing(c))
        ;
    return set;
}

/* Whether some node of `set` runs more of the VM's shared vCPUs than it
 * has CPUs for them. */
static gboolean
set_self_overcommitted(const VnPlanCtx *c, const VnNodeSet *set)
{
    if (c->req->dedicated)
        return FALSE;
    for (guint i = 0; i < set->k; i++)
        if (set->vcpus[i] > c->cap[set->nodes[i]].shared_cpus)
            return TRUE;
    return FALSE;
}

/* Tiers or interleave, when the request asks for one and it applies
 * (tiers first); NULL to choose as usual.  *ret_fallback: why the tiers
 * asked for did not apply; *ret_interleave: the interleave choice was
 * made (its NULL is final: no set holds even shares). */
static VnNodeSet *
choose_special(VnPlanCtx *c, VnPlacement *p, gchar **ret_fallback, gboolean *ret_interleave)
{
    gboolean needed = FALSE;
    VnNodeSet *set = NULL;

    *ret_interleave = FALSE;
    if (vn_plan_tiers_keeps_cells(c)) {
        c->slow_memory = TRUE;
        return NULL;
    }
    /* a slow tier first: it keeps the VM one guest node on one CPU node,
     * which interleaving over DRAM nodes cannot */
    c->tiers = vn_plan_tiers_mode(c);
    if (c->tiers != VN_TIERS_OFF && !vn_plan_tiers_host_has_slow(c->t))
        *ret_fallback = vn_plan_tiers_fallback(c);
    else if (c->tiers != VN_TIERS_OFF && !(set = vn_plan_tiers_choose(c, p->candidates, &needed)) &&
             needed)
        *ret_fallback = vn_plan_tiers_fallback(c);
    if (set)
        return set;
    c->tiers = VN_TIERS_OFF;
    c->slow_memory = FALSE;
    g_ptr_array_set_size(p->candidates, 0);
    return vn_plan_interleave_choose(c, p->candidates, ret_interleave);
}

VnPlacement *
vn_plan(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const VnRequest *req,
        GPtrArray **ret_reasons, GError **error)
{
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnNodeSet) set = NULL;
    g_autofree gchar *fallback = NULL;
    gboolean interleave = FALSE;
    VnPlanCtx c;

    g_return_val_if_fail(t && t->finished && load && policy && req, NULL);
    g_return_val_if_fail(load->n_nodes == t->n_nodes, NULL);
    if (!validate(t, req, error))
        return NULL;

    ctx_init(&c, t, load, policy, req);
    p = vn_placement_new();
    set = choose_special(&c, p, &fallback, &interleave);
    /* interleaved too, vCPUs share CPUs only when no set gives each one */
    while (!set && interleave && next_sharing(&c))
        set = vn_plan_interleave_choose(&c, p->candidates, &interleave);
    if (!set && !interleave)
        set = choose_set(&c, p->candidates);
    if (!set) {
        g_autofree gchar *mem = vn_plan_format_kib(req->memory_kib);
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT,
                    "no placement for %u vCPUs and %s on this host now%s%s", req->vcpus, mem,
                    req->cell_sizes ? " with the guest cells' own sizes"
                    : req->cells    ? " with the fixed guest cell count"
                                    : "",
                    req->allowed_cpus ? " within the allowed CPU set" : "");
        if (ret_reasons) {
            if (!c.cap)
                vn_plan_capacity_compute(&c, c.overhead_kib);
            *ret_reasons = no_fit_reasons(&c, (*error)->message);
            if (fallback)
                g_ptr_array_add(*ret_reasons, g_steal_pointer(&fallback));
        }
        ctx_clear(&c);
        return NULL;
    }
    for (guint i = 0; i < p->candidates->len; i++) {
        VnCandidate *cand = g_ptr_array_index(p->candidates, i);
        cand->chosen = cand->feasible && cand->nodes->len == set->k &&
                       memcmp(cand->nodes->data, set->nodes, set->k * sizeof(guint)) == 0;
    }
    p->dedicated = req->dedicated;
    p->hugepage_kib = req->hugepage_kib;
    p->self_overcommitted = set_self_overcommitted(&c, set);
    if (!vn_plan_assign_cpus(&c, set, p, error)) {
        ctx_clear(&c);
        return NULL;
    }
    p->threads_per_core = 1;
    if (req->dedicated && req->smt != VN_SMT_ISOLATE && t->smt_width > 1) {
        gboolean whole = TRUE;
        for (guint i = 0; i < p->cells->len; i++)
            whole &= g_array_index(p->cells, VnCell, i).n_vcpus % t->smt_width == 0;
        if (whole)
            p->threads_per_core = t->smt_width;
    }
    vn_plan_domain_guest_dies(&c, p);
    if (interleave)
        vn_plan_interleave_finish(&c, set, p);
    p->tiers = c.tiers;
    if (c.tiers != VN_TIERS_OFF)
        vn_plan_tiers_explain(&c, set, p);
    else
        explain_choice(&c, set, p);
    if (c.slow_memory && c.tiers == VN_TIERS_OFF)
        vn_plan_tiers_mark_kept(&c, p);
    if (fallback && req->tiers_set)
        vn_placement_add_warning(p, "%s", fallback);
    else if (fallback)
        vn_placement_add_reason(p, "%s", fallback);
    ctx_clear(&c);
    return g_steal_pointer(&p);
}

void
vn_load_commit(VnLoad *load, const VnTopology *t, const VnPolicy *policy, const VnRequest *req,
               const VnPlacement *p)
{
    guint64 overhead = vn_policy_overhead_kib(policy, req->memory_kib);
    guint n_cells = MAX(p->cells->len, 1);

    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        VnNodeLoad *nl = &load->nodes[cell->node];

        nl->committed_memory_kib += overhead / n_cells + (p->hugepage_kib ? 0 : cell->memory_kib);
        if (p->hugepage_kib)
            vn_load_add_hugepages(load, cell->node, p->hugepage_kib,
                                  cell->memory_kib / p->hugepage_kib);
        if (p->dedicated)
            vn_bitmap_or(load->dedicated_cpus, cell->cpus);
        else
            nl->committed_vcpus += cell->n_vcpus;
        if (req->priority == VN_PRIORITY_HIGH)
            nl->committed_high_vcpus += cell->n_vcpus;
    }
    if (p->isolated_cpus)
        vn_bitmap_or(load->dedicated_cpus, p->isolated_cpus);
    vn_load_domains_add(load, t, policy, p, 1.0);
}
