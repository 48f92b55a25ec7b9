/* vn-plan-private.h: state shared by the steps of vn_plan().  Internal. */
#pragma once

#include "vn-plan.h"

/* What one node can still take for this request. */
typedef struct {
    gboolean usable;       /* may hold a guest cell at all */
    gboolean memory_only;  /* usable for a CPU-less guest cell only */
    const gchar *why_not;  /* static reason when !usable */
    guint vcpus;           /* vCPUs it can take (in vcpu units for SMT require) */
    guint64 mem_kib;       /* guest memory it can take (after overhead share) */
    gdouble cpu_util;      /* before placement, 0..1 */
    gdouble mem_util;      /* before placement, 0..1 */
    guint64 mem_base_kib;  /* total - reserved: denominator for mem_util */
    gdouble vcpu_capacity; /* denominator for cpu_util (overcommitted CPUs) */
    gdouble high_share;    /* committed high-priority vCPUs / capacity */
    guint shared_cpus;     /* CPUs shared vCPUs may use (not reserved, not dedicated) */
    VnBitmap *free_cpus;   /* lazily built: use vn_plan_free_cpus() */
    /* the CPU stage's verdict, kept while only the overhead share changes
     * (vn_plan_capacity_compute()): the memory stage starts from it */
    gboolean cpu_usable;
    gboolean cpu_has_memory; /* the memory stage applies */
    const gchar *cpu_why_not;
} VnNodeCap;

typedef struct {
    const VnTopology *t;
    const VnLoad *load;
    const VnPolicy *policy; /* the caller's, or `restricted` */
    VnPolicy *restricted;   /* with an allowed CPU set: the caller's policy
                              * with the CPUs outside the set reserved */
    const VnRequest *req;
    guint n;                 /* nodes */
    VnNodeCap *cap;          /* n entries */
    guint cap_cpu_key;       /* what cap's CPU stage was computed for
                              * (vcpus_per_cpu, slow_memory), 0 = none */
    guint64 overhead_kib;    /* whole VM */
    guint64 mem_unit_kib;    /* split granularity (page size) */
    guint vcpu_unit;         /* 1, or SMT width for dedicated + require */
    guint fixed_cells;       /* 0 = auto */
    guint64 vshare_fixed;    /* fixed cells: vCPUs per cell (max) */
    guint64 mshare_fixed;    /* fixed cells: KiB per cell (max) */
    const VnCellSize *sizes; /* fixed cells of their own sizes, or NULL */
    guint *cell_order;       /* sized cells: cell indices, largest first */
    guint *cell_order_vcpus; /* the same by vCPUs first (cell_order's block) */
    guint64 *cell_scratch;   /* sized cells: working space for the
                            * assignment (vn-plan-cells.c) */
    gint *dev_node;          /* device node indices (-1 unknown) */
    guint n_dev;
    guint64 *scratch; /* 9 * n words for the split: no allocation per
                            * evaluated set */
    /* balance keep-hole: usable nodes by guest memory they can take,
     * largest first */
    guint *by_room;
    guint n_by_room;
    /* the largest usable node's memory less reservation: keep-hole's
     * base, and the unit of memory the crowding term weighs */
    guint64 largest_base_kib;
    /* tiers: the mode this plan applies (vn-plan-tiers.c), and whether
     * CPU-less slow nodes take memory-only cells in the capacity */
    VnTiers tiers;
    gboolean slow_memory;
    /* at most this many of the VM's shared vCPUs a CPU of a node (0: as
     * many as the overcommit allows): 1, and more only when no node set
     * can hold the VM so (choose_set() in vn-plan.c) */
    guint vcpus_per_cpu;
    /* the balance this plan applies: the policy's, or for adaptive load
     * or memory packing by the host's committed memory share (host_used,
     * 0..1; vn_plan_capacity_compute()) */
    VnBalance balance;
    gdouble host_used;
} VnPlanCtx;

/* A chosen node set with its per-node share (vn_node_set_new(): the
 * per-node arrays live in the set's own allocation). */
typedef struct {
    guint k;
    guint *nodes;       /* node indices, ascending */
    guint *vcpus;       /* vCPUs per node */
    guint64 *mem_kib;   /* guest KiB per node */
    guint *cells;       /* guest cells per node (1 unless fixed cells) */
    guint *cell_member; /* sized cells: per guest cell, its index in
                            * nodes; NULL otherwise */
    guint internal_distance;
    guint device_distance;
    gdouble load_after; /* busiest member's utilisation after placement */
    gdouble score;      /* lower is better: distance, devices, then
                            * the policy's balance (vn_plan_score_set) */
    gboolean even;      /* split fill, shared evenly instead: the fill
                            * crowded a member (vn_plan_split_crowds()) */
} VnNodeSet;

/* vn-plan-capacity.c */
void vn_plan_capacity_compute(VnPlanCtx *c, guint64 overhead_per_cell_kib);
void vn_plan_capacity_clear(VnPlanCtx *c);
const VnBitmap *vn_plan_free_cpus(const VnPlanCtx *c, guint node);
/* A node's utilisation after `vcpus` and `mem_kib` more: the larger of
 * its CPU and memory use, plus the high-priority contention (inline, as
 * vn_plan_node_rho(): a plan asks hundreds of times). */
static inline gdouble
vn_plan_node_util_after(const VnPlanCtx *c, guint node, guint vcpus, guint64 mem_kib)
{
    const VnNodeCap *cap = &c->cap[node];
    gdouble cpu = cap->cpu_util + vcpus / cap->vcpu_capacity;
    gdouble mem = cap->mem_util + (gdouble)mem_kib / (gdouble)cap->mem_base_kib;
    gdouble contention =
        c->req->priority == VN_PRIORITY_HIGH ? 0.5 * cap->high_share : 0.1 * cap->high_share;

    return MAX(cpu, mem) + contention;
}
gdouble vn_plan_node_cpu_after(const VnPlanCtx *c, guint node, guint vcpus);
gdouble vn_plan_node_free_after(const VnPlanCtx *c, guint node, guint64 mem_kib);
/* rho: a node's committed shared vCPUs and `vcpus` more over its shared
 * CPUs (not the overcommitted capacity); its shared CPUs must not be 0. */
static inline gdouble
vn_plan_node_rho(const VnPlanCtx *c, guint node, guint vcpus)
{
    return (gdouble)(c->load->nodes[node].committed_vcpus + vcpus) / c->cap[node].shared_cpus;
}
/* The crowding of a node's CPUs after `vcpus` more shared vCPUs:
 * clamp((rho - knee) / (1 - knee), 0, 1) + over_slope x max(0, rho - 1) /
 * (1 - knee), rho its committed shared vCPUs over its shared CPUs (not the
 * overcommitted capacity), knee VN_BALANCE_DENSITY_KNEE, over_slope
 * VN_BALANCE_DENSITY_OVER_SLOPE; 0 for a dedicated request. */
gdouble vn_plan_node_crowding(const VnPlanCtx *c, guint node, guint vcpus);
/* Balance, every mode: the crowding this placement adds on a node,
 * weighed by the memory it slows (VN_BALANCE_DENSITY_WEIGHT x (after x
 * (held + added) - before x held), held the node's committed memory and
 * added the VM's `mem_kib` there, as shares of the largest node's memory:
 * the same GiB weigh the same on every node). */
gdouble vn_plan_node_density_after(const VnPlanCtx *c, guint node, guint vcpus, guint64 mem_kib);
/* Shared vCPUs a node takes before its crowding knee (0 past it). */
guint vn_plan_node_uncrowded_vcpus(const VnPlanCtx *c, guint node);
/* Balance keep-hole: 1 - the largest guest memory any node can take
 * after `s` is placed, as a share of the largest node (0..1). */
gdouble vn_plan_hole_lost(const VnPlanCtx *c, const VnNodeSet *s);
gchar *vn_plan_node_shortfall(const VnPlanCtx *c, guint node);

/* vn-plan-split.c: fills set->vcpus/mem_kib/cells; FALSE if the set cannot
 * hold the VM. */
/* Weight of a split's remote share in the balance under split fill: 10
 * points of remote share weigh as much as 10 points of load. */
#define VN_SPLIT_FILL_REMOTE_WEIGHT 1.0
/* Split fill: no guest cell smaller than 1 GiB or one vCPU's share of the
 * VM's memory, whichever is less (vn-plan-split.c). */
#define VN_SPLIT_FILL_MIN_CELL_KIB (1024 * 1024)
/* Balance load: the members' mean load after placement breaks a tie of
 * the busiest member's (a filled split's fullest member is full whatever
 * the set; without it the first set found would win). */
#define VN_BALANCE_LOAD_MEAN_WEIGHT 1e-3
/* Balance, every mode: placing vCPUs on a node whose shared vCPUs pass
 * half its CPUs (the knee) slows the memory accesses that land there:
 * its memory bandwidth and run queues fill (vn-simulate-model.h: the same
 * knee), while the load and packing figures count CPU use against the
 * overcommitted capacity (4x by default), where a node whose every CPU
 * already runs a vCPU looks a quarter used.  The term is the rise of the
 * crowding curve times the memory it slows, the node's and the VM's share
 * there, as shares of the largest node's memory (a point of load for that
 * much memory going from the knee to one vCPU a CPU): a VM with much memory
 * goes where CPUs are free, a small one may take CPUs on a node whose
 * memory is little used.  Not in the growth of candidate sets, which
 * stays least loaded (the nearest set first).  Measured with
 * tools/sim-compare.py over 360 host x trace cases (README). */
#define VN_BALANCE_DENSITY_WEIGHT 1.0
#define VN_BALANCE_DENSITY_KNEE 0.5
/* Past one vCPU a CPU the memory bandwidth is full but the run queues
 * keep growing (CFS runs n runnable vCPUs each at 1/n speed): the
 * crowding keeps rising at a quarter of its slope below, so a node
 * already full is not free to crowd further.  Measured (README): 0.25
 * against a crowding that stops at one vCPU a CPU, every test of the
 * placement quality issue met in 169 of 360 against 167, the four without
 * the slowdown 305 against 301, the lowest run slowdown 140 against 126;
 * at the full slope (1.0, an experiment build) 146, 297 and 143. */
#define VN_BALANCE_DENSITY_OVER_SLOPE 0.25
gboolean vn_plan_split(const VnPlanCtx *c, VnNodeSet *set);
/* Split fill puts the VM's memory where its vCPUs are; when those vCPUs
 * crowd a member's CPUs past the knee (vn_plan_node_crowding() > 0: its
 * memory bandwidth fills), the share of every other cell's accesses that
 * lands on that member's memory is slowed too, and the even split, which
 * holds less memory there, may be the better placement.  TRUE when `set`
 * was just filled (split fill, more than one member, cells of the plan's
 * choosing) and crowds a member so: evaluate() then scores the even split
 * (vn_plan_split_even()) too and keeps the lower score.  Below the knee
 * the even split buys nothing the memory system rewards (the lower
 * busiest-member load it scores is not a slowdown) and gives up locality,
 * so it is not tried: measured with tools/sim-compare.py (README). */
gboolean vn_plan_split_crowds(const VnPlanCtx *c, const VnNodeSet *set);
/* Shares the VM evenly over `set` (VN_SPLIT_EVEN's split) whatever the
 * policy; for cells of the plan's choosing only. */
gboolean vn_plan_split_even(const VnPlanCtx *c, VnNodeSet *set);

/* vn-plan-cells.c: guest cells of their own sizes (VnRequest.cell_sizes).
 *
 * A node "holds" a cell when the cell's vCPUs and memory fit in what the
 * node can still take; a node holding several cells holds their sums.
 * Cells fit to at most VN_PLAN_MAX_SIZED_CELLS per request (bit masks). */
#define VN_PLAN_MAX_SIZED_CELLS VN_REQUEST_MAX_CELL_SIZES
void vn_plan_cells_init(VnPlanCtx *c);
void vn_plan_cells_clear(VnPlanCtx *c);
/* The cells `node` can hold on its own (bit i = cell i). */
guint64 vn_plan_cells_fit_mask(const VnPlanCtx *c, guint node);
/* Matches `member` (bit mask of the cells it can hold: masks[member]) to
 * a cell of its own, moving earlier members to other cells when needed
 * (one augmenting path).  member_of_cell: per cell, the member or -1.
 * FALSE, with the matching unchanged, when it cannot. */
gboolean vn_plan_cells_augment(const VnPlanCtx *c, const guint64 *masks, guint member,
                               gint *member_of_cell);
/* Fills set->cell_member, vcpus, mem_kib and cells; FALSE when the set
 * cannot hold the cells with every node holding at least one. */
gboolean vn_plan_split_sized(const VnPlanCtx *c, VnNodeSet *set);

/* vn-plan-nodeset.c: best set of exactly k nodes, or NULL. */
VnNodeSet *vn_plan_best_set(const VnPlanCtx *c, guint k, GPtrArray *candidates);
VnNodeSet *vn_node_set_new(guint k);
void vn_node_set_free(VnNodeSet *s);
/* Scores `s` from its shares.  With split fill (VnSplit) the balance
 * also counts the set's uniform remote share (VN_SPLIT_FILL_REMOTE_WEIGHT):
 * of equally near sets, the one holding more of the VM on one node. */
void vn_plan_score_set(const VnPlanCtx *c, VnNodeSet *s);

/* vn-plan-domains.c: the CPUs of `node` a shared VM's `vcpus` there may
 * run on: the node's usable CPUs, or with cache domains on those of the
 * chosen domains (a reason added to `p`).  When they are several and the
 * vCPUs split evenly over them (each holding its share), *ret_parts gets
 * each domain's CPUs, one bitmap each (else NULL).  NULL +
 * VN_PLAN_ERROR_NO_FIT when require finds no one domain that holds them. */
VnBitmap *vn_plan_domain_cpus(const VnPlanCtx *c, guint node, guint vcpus, VnPlacement *p,
                              GPtrArray **ret_parts, GError **error);
/* The guest dies a socket (p->dies) for the cells and pins of `p`: the
 * number of cache domains each cell's vCPUs are split over, in equal runs
 * of vCPUs each inside one domain, when all cells agree (with a reason);
 * otherwise 1, and shared vCPUs pinned by domain float over their cell's
 * CPUs again. */
void vn_plan_domain_guest_dies(const VnPlanCtx *c, VnPlacement *p);

/* Dedicated vCPUs with cache domains on: the fewest domains of `node`
 * with `want` free CPUs (less `taken`), most free first, each as the
 * bitmap of those CPUs; NULL when off or the node has one domain. */
GPtrArray *vn_plan_domain_dedicated_cpus(const VnPlanCtx *c, guint node, guint want,
                                         const VnBitmap *taken);
/* The reason naming the domains the dedicated `cpus` of `node` are in. */
void vn_plan_domain_reason_dedicated(const VnPlanCtx *c, guint node, const GArray *cpus,
                                     VnPlacement *p);

/* vn-plan-tiers.c: memory on a slow tier (VnTiers).
 * The mode the request and the policy ask for, OFF where it cannot apply
 * (memory-only nodes asked for, guest cells of the VM's own, the
 * operator's interleave); guest becomes spill for a guest that cannot see
 * cells (VN_INTERLEAVE_NO_CELLS). */
VnTiers vn_plan_tiers_mode(const VnPlanCtx *c);
/* Tiers guest and guest cells of their own sizes with a CPU-less one (a
 * domain placed with tiers guest before, or written so): slow nodes may
 * hold its CPU-less cells (c->slow_memory), and the placement is marked
 * GUEST when one does (vn_plan_tiers_mark_kept). */
gboolean vn_plan_tiers_keeps_cells(const VnPlanCtx *c);
void vn_plan_tiers_mark_kept(const VnPlanCtx *c, VnPlacement *p);
/* Whether `t` has a CPU-less node of the slow tier with memory. */
gboolean vn_plan_tiers_host_has_slow(const VnTopology *t);
/* With c->tiers set and no DRAM node holding the VM alone (*ret_needed):
 * the best pair of a DRAM node holding every vCPU and what it can of the
 * memory (cells 0) and the nearest slow node holding the rest (1); NULL
 * when there is none or none is needed.  Leaves the pair's capacity in
 * c->cap (c->slow_memory set). */
VnNodeSet *vn_plan_tiers_choose(VnPlanCtx *c, GPtrArray *candidates, gboolean *ret_needed);
void vn_plan_tiers_explain(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p);
/* One line on why the asked tiers mode did not apply, or NULL (off). */
gchar *vn_plan_tiers_fallback(const VnPlanCtx *c);

/* vn-plan-interleave.c: memory interleaved over the fewest, nearest
 * nodes holding an even share each (VnRequest.interleave).  NULL when
 * the request does not ask for it (then choose as usual) or when no set
 * holds it (*ret_tried). */
VnNodeSet *vn_plan_interleave_choose(VnPlanCtx *c, GPtrArray *candidates, gboolean *ret_tried);
/* Marks `p` interleaved (more than one node), floats every shared vCPU
 * over all its nodes' CPUs, and says why. */
void vn_plan_interleave_finish(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p);

/* vn-plan-cpus.c: cells, pins, emulator, IOThreads. */
gboolean vn_plan_assign_cpus(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p,
                             GError **error);

gchar *vn_plan_format_kib(guint64 kib);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnNodeSet, vn_node_set_free)
guint vn_plan_min_nodes(const VnPlanCtx *c); /* 0: cannot fit even on all nodes */
