/* vn-simulate-model.c: the memory performance model (definitions and
 * sources: vn-simulate-model.h). */
#include "vn-simulate-model.h"

#include <string.h>

void
vn_sim_model_init(VnSimModel *m)
{
    m->distance_weight = VN_SIM_MODEL_DISTANCE_WEIGHT;
    m->guest_locality = VN_SIM_MODEL_GUEST_LOCALITY;
    m->contention_knee = VN_SIM_MODEL_CONTENTION_KNEE;
    m->contention_max = VN_SIM_MODEL_CONTENTION_MAX;
}

gdouble
vn_sim_model_latency(const VnSimModel *m, const VnTopology *t, guint a, guint b)
{
    guint local = vn_topology_distance(t, a, a);
    guint d = vn_topology_distance(t, a, b);

    if (a == b || local == 0 || d <= local)
        return 1.0;
    return 1.0 + m->distance_weight * ((gdouble)d / (gdouble)local - 1.0);
}

gdouble
vn_sim_model_contention(const VnSimModel *m, gdouble rho)
{
    gdouble x = (rho - m->contention_knee) / (1.0 - m->contention_knee);

    return 1.0 + (m->contention_max - 1.0) * CLAMP(x, 0.0, 1.0);
}

/* Adds the accesses of `weight` of the vCPUs, running on node `from`,
 * whose own memory (NULL: none) is on node `own`. */
static void
add_accesses(const VnSimModel *m, const VnTopology *t, const gdouble *mem_frac, gdouble weight,
             guint from, gdouble locality, gboolean has_own, guint own, gdouble *share,
             gdouble *latency)
{
    for (guint n = 0; n < t->n_nodes; n++) {
        gdouble p = (has_own ? 1.0 - locality : 1.0) * mem_frac[n];
        if (has_own && n == own)
            p += locality;
        share[from * t->n_nodes + n] += weight * p;
        latency[n] += weight * p * vn_sim_model_latency(m, t, from, n);
    }
}

void
vn_sim_model_profile(const VnSimModel *m, const VnTopology *t, const VnPlacement *p, guint vcpus,
                     guint64 memory_kib, const gdouble *cpu_frac, gdouble *ret_share,
                     gdouble *ret_latency)
{
    g_autofree gdouble *mem_frac = g_new0(gdouble, MAX(t->n_nodes, 1));
    gdouble locality = p->cells->len > 1 ? m->guest_locality : 0.0;

    memset(ret_share, 0, sizeof(gdouble) * t->n_nodes * t->n_nodes);
    memset(ret_latency, 0, sizeof(gdouble) * t->n_nodes);
    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        mem_frac[cell->node] += memory_kib ? (gdouble)cell->memory_kib / (gdouble)memory_kib : 0;
    }
    if (cpu_frac) {
        for (guint n = 0; n < t->n_nodes; n++)
            add_accesses(m, t, mem_frac, cpu_frac[n], n, 0.0, FALSE, 0, ret_share, ret_latency);
        return;
    }
    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        gdouble w = vcpus ? (gdouble)cell->n_vcpus / vcpus : 0;
        add_accesses(m, t, mem_frac, w, cell->node, locality, cell->memory_kib > 0, cell->node,
                     ret_share, ret_latency);
    }
}

/* The vCPUs committed on node `from`: its row of `demand` (n x n). */
static gdouble
committed_on(const gdouble *demand, guint n, guint from)
{
    gdouble committed = 0;

    for (guint to = 0; to < n; to++)
        committed += MAX(demand[from * n + to], 0.0);
    return committed;
}

void
vn_sim_model_demand(const VnTopology *t, const gdouble *demand, const gdouble *cpus,
                    gdouble *ret_rho)
{
    guint n = t->n_nodes;

    memset(ret_rho, 0, sizeof(gdouble) * n);
    for (guint from = 0; from < n; from++) {
        gdouble committed = committed_on(demand, n, from), running;
        if (committed <= 0)
            continue;
        /* a node's CPUs run at most as many vCPUs as they are */
        running = cpus[from] > 0 ? MIN(1.0, cpus[from] / committed) : 1.0;
        for (guint to = 0; to < n; to++)
            ret_rho[to] += MAX(demand[from * n + to], 0.0) * running;
    }
    for (guint to = 0; to < n; to++)
        ret_rho[to] = cpus[to] > 0 ? ret_rho[to] / cpus[to] : (ret_rho[to] > 0 ? 1.0 : 0.0);
}

void
vn_sim_model_cpu_wait(const VnTopology *t, const gdouble *demand, const gdouble *cpus,
                      gdouble *ret_wait)
{
    guint n = t->n_nodes;

    for (guint from = 0; from < n; from++)
        ret_wait[from] =
            cpus[from] > 0 ? MAX(1.0, committed_on(demand, n, from) / cpus[from]) : 1.0;
}
