/* vn-simulate-private.h: the replay's state, shared with its metrics.
 * Internal to vn-simulate*.c. */
#pragma once

#include "vn-placement.h"
#include "vn-request.h"
#include "vn-simulate-model.h"
#include "vn-simulate.h"

typedef struct {
    const VnTopology *t;
    const VnPolicy *policy;      /* balance load: baselines, commits, oracles */
    const VnPolicy *plan_policy; /* vn_plan() for the vnuma policies */
    const VnTrace *trace;
    VnSimPolicy which;
    VnLoad *load;           /* the policy's own host state (borrowed) */
    GPtrArray *requests;    /* of VnRequest*, one per trace VM (borrowed) */
    GPtrArray *placed;      /* of VnPlacement* or NULL, per VM (borrowed) */
    guint cursor;           /* round-robin position */
    gboolean *admitted;     /* per VM, or NULL: set when admitted (borrowed) */
    gdouble last_arrival;   /* the imbalance window ends here */
    gdouble *host_cpu_frac; /* per node: share of the usable CPUs */
    VnSimMetrics m;
    /* running sums */
    gdouble split_distance, min_distance;
    gdouble remote_weighted, remote_weight;
    gdouble imbalance_integral, imbalance_time, imbalance_last, now;
    /* the performance model (vn-simulate-model.h), over the VMs running
     * now: per memory node the sum of GiB x latency-weighted access
     * share; per (vCPU node, memory node) the sum of vCPUs x access
     * share; integrals in GiB-hours */
    VnSimModel model;
    gdouble *node_cpus; /* usable CPUs per node */
    gdouble *live_latency, *live_demand, *rho;
    /* per (vCPU node, memory node): GiB x access share x latency; per
     * vCPU node: GiB x access share; and the nodes' CPU wait */
    gdouble *live_cost, *live_gib_on, *wait;
    gdouble *scratch_share, *scratch_latency;
    gdouble live_gib, model_now;
    gdouble slow_integral, distance_integral, live_integral, peak_committed;
    gdouble wait_integral, run_integral;
    /* per VM: when it started or last moved (s), for the rebalancer's
     * cooldown (vnuma-rebalance) */
    gint64 *since;
} VnSim;

/* vn-simulate-metrics.c */
void vn_sim_init(VnSim *s, const VnTopology *t, const VnPolicy *policy, const VnTrace *trace,
                 VnSimPolicy which, const VnSimModel *model, VnLoad *load, GPtrArray *requests,
                 GPtrArray *placed);
void vn_sim_clear(VnSim *s);
/* Before an event at `time`: integrates the imbalance since the last one. */
void vn_sim_account_time(VnSim *s, gdouble time);
/* After an arrival at the last arrival time: the imbalance snapshot used
 * when the window has no length. */
void vn_sim_account_last_arrival(VnSim *s);
/* Before `p` is committed: counts, oracles, locality. */
void vn_sim_account_admitted(VnSim *s, const VnTraceVm *vm, const VnRequest *req,
                             const VnPlacement *p);
void vn_sim_account_rejected(VnSim *s, const VnRequest *req);
/* Before `p` is released: the VM stops loading the model's nodes. */
void vn_sim_account_departed(VnSim *s, const VnRequest *req, const VnPlacement *p);
/* A running VM moved from `from` to `to` (defragmentation, consolidation):
 * the model and the remote share from now to its departure follow it. */
void vn_sim_account_moved(VnSim *s, const VnTraceVm *vm, const VnRequest *req,
                          const VnPlacement *from, const VnPlacement *to);
void vn_sim_finish(VnSim *s, VnSimMetrics *ret);

/* vn-simulate.c: running VM `vm` moved live to `to` (taken) at the
 * current time: the figures follow it, the load and its placement change. */
void vn_sim_move_vm(VnSim *s, guint vm, VnPlacement *to);

/* vn-simulate-rebalance.c: vnuma-rebalance's round at time `now` (s). */
void vn_sim_rebalance_round(VnSim *s, gdouble now);
