/* vn-simulate.h: what-if replay of a trace of VMs against a host.
 *
 * vn_simulate() replays a trace (vn-trace.h) of arrivals and departures
 * on a topology with one placement policy: vnuma's own (vn_plan() +
 * vn_load_commit(), vn_load_release() on departure) or a baseline standing
 * for a peer (vn-baselines.h).  Pure: no I/O, no clock; the same inputs
 * give the same metrics.
 *
 * vnuma runs vn_plan() with balance adaptive and split fill (the
 * defaults), vnuma-load with balance load (the default before adaptive),
 * vnuma-packing with balance memory-packing, vnuma-hole with balance
 * keep-hole (VnBalance), vnuma-even with balance adaptive and split even
 * (VnSplit), vnuma-defrag as vnuma plus defragmentation at admission
 * (a VM that would be split fits one node after the live moves of
 * vn_rebalance_make_room(), within the rebalancer's round: 2 moves,
 * 16 GiB; `moves`, `moved_gib` and `defragmented` count them),
 * vnuma-mirror as vnuma with its search run from the last node to the
 * first (VnPolicy.search_from_last: exact ties go the other way, sets
 * grow from the other end; an equally good policy whose verdicts differ
 * from vnuma's only by chance), vnuma-rebalance as vnuma with vnumad's
 * automatic rebalancing ([rebalance] auto = true): after every arrival
 * and departure one round of vn_rebalance_propose() with its defaults
 * (threshold 0.15, 2 moves, 16 GiB, a VM left alone for 300 s after it
 * started or last moved), its moves between nodes applied (the daemon
 * samples every `interval` and applies a round once a node has stayed
 * hot for `hot_intervals` samples; the load changes only at events, so
 * one round an event stands for that, without the wait; a move is the
 * cell's vCPUs over the new node's usable CPUs, as `vnumactl rebalance`
 * writes it; `moves`, `moved_gib` count them), whatever the policy passed
 * in says: the name says what ran, and all can be compared in one run.
 * The oracles below are vn_plan() with balance load and split fill for
 * every policy (the split changes no feasibility, only the shares).
 *
 * Events: a VM arrives at time_s and, when admitted, leaves at
 * time_s + duration_s.  Events run in time order; at equal times
 * departures come first (they free room), then arrivals in trace order.
 * Arrivals need not be sorted in the trace.
 *
 * Metrics (each judged on the policy's own host state at that moment):
 *   admitted, rejected       VMs placed / turned away.
 *   served_gib_hours         sum over admitted VMs of memory (GiB) x
 *                            duration (h): the work actually served (a
 *                            plain admitted count rewards refusing big VMs).
 *   offered_gib_hours        the same over every VM of the trace.
 *   rejected_feasible        rejected although vn_plan() found a placement
 *                            on the same host state (the feasibility oracle).
 *   split                    admitted with memory on more than one node.
 *   split_unnecessary        split although one node could have held it
 *                            (vn_plan() with one fixed cell succeeds).
 *   domain_split             admitted with a guest cell whose vCPUs run
 *                            over CPUs of more than one cache domain (L3):
 *                            the split inside a node, next to `split`
 *                            (guest dies mirrored or vCPUs floating alike;
 *                            0 on hosts of one domain a node for policies
 *                            that pin to nodes).
 *   mean_split_distance      mean over split VMs of the internal distance
 *                            of the nodes holding memory (sum over pairs).
 *   min_split_distance       the mean of the same for vn_plan()'s choice
 *                            for the same VMs at the same moments (0 when
 *                            one node would do): the best achievable.
 *   imbalance                max / mean over usable nodes of committed
 *                            memory as a share of each node's memory,
 *                            averaged over time from the first to the last
 *                            arrival (moments with nothing committed skip).
 *   remote_share             the expected share of remote memory accesses,
 *                            weighted by memory x duration.  Model: every
 *                            vCPU touches every page of its VM equally
 *                            often, so a VM's share is the share of (vCPU
 *                            node, page node) pairs that differ:
 *                            1 - sum_n cpu_frac(n) * mem_frac(n).  Pinned
 *                            policies give cpu_frac from their cells;
 *                            no-pinning's vCPUs float, so cpu_frac(n) is
 *                            node n's share of the host's usable CPUs.  It
 *                            is an upper bound for a NUMA-aware guest (which
 *                            keeps most accesses in its own cell) and
 *                            the same model for every policy.
 *
 * Beside them, the performance model of vn-simulate-model.h (distance as
 * the latency ratio, guest locality in cells, per-node bandwidth
 * contention), integrated over every moment a VM runs:
 *   slowdown                 the expected memory slowdown: the mean over
 *                            running GiB-hours of each VM's mean access
 *                            cost (latency x contention) against a local,
 *                            uncontended access; 1 = all local, no
 *                            contention.
 *   distance_slowdown        the same with contention left out.
 *   cpu_wait                 the mean over running GiB-hours of how many
 *                            times slower a VM's vCPUs run for sharing
 *                            their node's CPUs (1 = never more runnable
 *                            vCPUs than CPUs).
 *   run_slowdown             slowdown with that waiting: each access costs
 *                            latency x contention x the CPU wait of the
 *                            node its vCPU runs on.
 *   effective_gib_hours      served_gib_hours / slowdown: the work served,
 *                            discounted by the slowdown.
 *   peak_committed           the highest committed memory (guests and
 *                            overhead) as a share of the usable nodes'
 *                            memory, at any moment: how loaded the trace
 *                            made this host.
 *   guest_locality           the model's parameter, as run.
 */
#pragma once

#include <glib.h>
#include "vn-baselines.h"
#include "vn-load.h"
#include "vn-simulate-model.h"
#include "vn-topology.h"
#include "vn-trace.h"

typedef enum {
    VN_SIM_POLICY_VNUMA,
    VN_SIM_POLICY_FIRST_FIT,
    VN_SIM_POLICY_MOST_FREE,
    VN_SIM_POLICY_ROUND_ROBIN,
    VN_SIM_POLICY_NO_PINNING,
    VN_SIM_POLICY_VNUMA_PACKING, /* after the baselines: VnBaseline b is policy b + 1 */
    VN_SIM_POLICY_VNUMA_HOLE,
    VN_SIM_POLICY_VNUMA_EVEN,
    VN_SIM_POLICY_VNUMA_DEFRAG,
    VN_SIM_POLICY_VNUMA_LOAD,
    VN_SIM_POLICY_VNUMA_NO_CONSOLIDATE,
    VN_SIM_POLICY_VNUMA_MIRROR,
    VN_SIM_POLICY_VNUMA_REBALANCE,
    VN_SIM_POLICY_MAX
} VnSimPolicy;

const gchar *vn_sim_policy_to_string(VnSimPolicy p);
gboolean vn_sim_policy_from_string(const gchar *s, VnSimPolicy *ret_p);

typedef struct {
    guint vms;
    guint admitted;
    guint rejected;
    guint rejected_feasible;
    guint split;
    guint split_unnecessary;
    guint64 domain_split; /* 64 bits: no padding before the doubles */
    guint moves;          /* VMs moved (vnuma-defrag), cells moved by rounds (vnuma-rebalance) */
    guint defragmented;   /* VMs placed whole after such moves */
    gdouble moved_gib;    /* their memory, GiB */
    guint consolidated;   /* split VMs put on fewer nodes after a departure */
    gdouble consolidated_gib; /* the memory that moved for them, GiB */
    gdouble served_gib_hours;
    gdouble offered_gib_hours;
    gdouble mean_split_distance; /* 0 when split == 0 */
    gdouble min_split_distance;  /* 0 when split == 0 */
    gdouble imbalance;           /* >= 1; 1 when nothing was ever committed */
    gdouble remote_share;        /* 0..1; 0 when nothing was admitted */
    /* the performance model (vn-simulate-model.h) */
    gdouble slowdown;            /* >= 1; 1 when nothing was admitted */
    gdouble distance_slowdown;   /* the same without contention */
    gdouble cpu_wait;            /* >= 1; 1 when nothing was admitted */
    gdouble run_slowdown;        /* slowdown x CPU wait, per access */
    gdouble effective_gib_hours; /* served_gib_hours / slowdown */
    gdouble peak_committed;      /* 0..1 */
    gdouble guest_locality;      /* the model's, as run */
} VnSimMetrics;

#define VN_SIMULATE_ERROR (vn_simulate_error_quark())
GQuark vn_simulate_error_quark(void);
typedef enum {
    VN_SIMULATE_ERROR_INVALID, /* a trace VM the policies cannot take as a request */
    VN_SIMULATE_ERROR_MAX
} VnSimulateError;

/* Replays `trace` on `t` with `policy` (the host's reservations, overhead,
 * headroom, overcommit) and placement rule `which`, starting from
 * `initial` (copied; NULL = an empty host), the performance model
 * `model` (NULL: vn_sim_model_init()'s defaults).  On success writes
 * *ret_metrics. */
gboolean vn_simulate(const VnTopology *t, const VnLoad *initial, const VnPolicy *policy,
                     const VnTrace *trace, VnSimPolicy which, const VnSimModel *model,
                     VnSimMetrics *ret_metrics, GError **error);
/* As vn_simulate(), and sets ret_admitted[i] (one per trace VM, written
 * whole) to whether the policy admitted VM i: with vn_trace_subset(),
 * other policies can be replayed on exactly the VMs this one admitted
 * (a comparison at equal admitted work). */
gboolean vn_simulate_admitted(const VnTopology *t, const VnLoad *initial, const VnPolicy *policy,
                              const VnTrace *trace, VnSimPolicy which, const VnSimModel *model,
                              VnSimMetrics *ret_metrics, gboolean *ret_admitted, GError **error);
