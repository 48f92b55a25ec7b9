/* vn-simulate-model.h: the simulator's memory performance model, reported
 * beside the uniform remote share (vn-simulate.h), never instead of it.
 *
 * Anchors: ../shared/reference/performance-anchors.md (the section numbers
 * below are that file's).
 *
 * Latency of one access from a vCPU on node a to memory on node b, as a
 * ratio to a local uncontended access (~100 ns):
 *     latency(a, b) = 1 + distance_weight * (d(a, b) / d(a, a) - 1)
 * with d the host's SLIT.  The SLIT ratio overstates measured latency
 * (SLIT 21 against +44-50 % measured on a 4-socket Xeon E7-4800 with
 * Intel MLC, section 2.1; the caution in 2.3), so it is scaled:
 * distance_weight 0.4 reads SLIT 21 as +44 %, 20 as +40 % (2-socket:
 * +30-50 %), 32 (EPYC across sockets) as +88 %, 12 (EPYC within a socket)
 * as +8 %.  The +76 % of 2.1 (2-socket Broadwell, derived from an
 * interleave figure) is the top of the measured range.
 *
 * Guest locality: a guest with more than one cell sees them as its NUMA
 * nodes (vnuma and Nova both expose them) and keeps `guest_locality` of
 * each cell's accesses in its own cell's memory; the rest touch the VM's
 * memory uniformly (the uniform model's assumption).  A cell on a node
 * holding none of the VM's memory touches it uniformly.  The default 0.8
 * is an assumption: performance-anchors.md holds no measured share
 * (section 7 lists the gap); the kernel's NUMA balancing reaching 93-97 %
 * of pinned throughput on an 8-node host (section 1.4) says most, not all,
 * accesses of a topology-aware workload stay local.  0 gives the uniform
 * model.  A VM without pinning (no-pinning) has no cells: its vCPUs float
 * over the host and touch its memory uniformly.
 *
 * Contention: a node's memory bandwidth saturates.  Its demand is the
 * vCPUs running at once whose accesses land on its memory, as a ratio rho
 * to the node's usable CPUs: each node's CPUs run at most as many vCPUs
 * as they are (its committed vCPUs scaled down to its CPUs when
 * overcommitted), and each running vCPU counts by the share of its
 * accesses that go to that memory.  Every running vCPU is taken to stream
 * memory, a worst case.  Every access to that node's memory costs
 *     contention(rho) = 1 + (contention_max - 1) *
 *                       clamp((rho - contention_knee) / (1 - contention_knee), 0, 1)
 * times more: no cost below the knee (0.5: an assumption), contention_max
 * (4: remote latency rising from ~300 to ~1200 cycles under congestion in
 * Carrefour, ASPLOS 2013, section 1.1) once the node's CPUs are all
 * committed.
 *
 * A VM's expected slowdown is the mean over its accesses of latency x
 * contention (1 = every access local and uncontended).
 *
 * CPU waiting: the contention above counts only the vCPUs that run, so a
 * node whose committed vCPUs exceed its CPUs adds no bandwidth demand for
 * the rest, and a policy that crowds one node's CPUs while another's idle
 * would look cheap.  The runnable vCPUs of a node share its CPUs evenly
 * (CFS runs n runnable tasks of equal weight "each at 1/nr_running
 * speed": the kernel's Documentation/scheduler/sched-design-CFS.rst;
 * every vCPU busy, the model's worst case; pinned vCPUs run only on their
 * node's CPUs), so each runs
 *     wait(m) = max(1, committed vCPUs on m / usable CPUs of m)
 * times slower.  The run slowdown of an access from node m to memory on
 * node n is latency x contention x wait(m).  Pure arithmetic.
 */
#pragma once

#include <glib.h>
#include "vn-placement.h"
#include "vn-topology.h"

typedef struct {
    gdouble distance_weight; /* 0.4 */
    gdouble guest_locality;  /* 0..1; 0.8 */
    gdouble contention_knee; /* 0..1 (exclusive); 0.5 */
    gdouble contention_max;  /* >= 1; 4.0 */
} VnSimModel;

#define VN_SIM_MODEL_DISTANCE_WEIGHT 0.4
#define VN_SIM_MODEL_GUEST_LOCALITY 0.8
#define VN_SIM_MODEL_CONTENTION_KNEE 0.5
#define VN_SIM_MODEL_CONTENTION_MAX 4.0

void vn_sim_model_init(VnSimModel *m);
/* Latency ratio of an access from node a to memory on node b. */
gdouble vn_sim_model_latency(const VnSimModel *m, const VnTopology *t, guint a, guint b);
/* Cost multiplier of an access to a node whose demand is `rho`. */
gdouble vn_sim_model_contention(const VnSimModel *m, gdouble rho);
/* Per memory node, rho from `demand` (t->n_nodes^2: committed vCPUs on
 * node m times their access share to node n, summed over the VMs) and
 * the usable CPUs per node `cpus`.  ret_rho of t->n_nodes, overwritten. */
void vn_sim_model_demand(const VnTopology *t, const gdouble *demand, const gdouble *cpus,
                         gdouble *ret_rho);
/* Per node, the time-sharing factor wait(m) of its vCPUs from `demand`
 * (as vn_sim_model_demand()) and `cpus`.  ret_wait of t->n_nodes. */
void vn_sim_model_cpu_wait(const VnTopology *t, const gdouble *demand, const gdouble *cpus,
                           gdouble *ret_wait);
/* The access profile of placement `p` of a VM with `vcpus` and
 * `memory_kib`: ret_share[m * t->n_nodes + n] is the share of the VM's
 * accesses made from vCPUs on node m to memory on node n (the shares sum
 * to 1), ret_latency[n] the share landing on n weighted by the latency of
 * each access (so sum ret_latency is the uncontended slowdown).
 * `cpu_frac` NULL: the vCPUs run where the cells say; otherwise per node
 * the share of the vCPUs running there, and the guest has no cells (no
 * locality).  ret_share holds t->n_nodes^2, ret_latency t->n_nodes;
 * both overwritten. */
void vn_sim_model_profile(const VnSimModel *m, const VnTopology *t, const VnPlacement *p,
                          guint vcpus, guint64 memory_kib, const gdouble *cpu_frac,
                          gdouble *ret_share, gdouble *ret_latency);
