/* test-simulate-model.c: the simulator's performance model
 * (vn-simulate-model.h) on hosts and placements worked out by hand.
 * Scheduler only: links the core and GLib alone.
 */
#include "vn-simulate-model.h"
#include "vn-simulate.h"
#include "vn-test-topologies.h"

#define GIB (G_GUINT64_CONSTANT(1024) * 1024)

/* Two nodes of 4 CPUs and 8 GiB each, `d` apart. */
static VnTopology *
pair_host(guint d)
{
    g_autoptr(VnTopology) t = vn_topology_new("test: node pair");
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i < 2; i++) {
        vn_topology_add_node(t, i, 8 * GIB);
        for (guint c = 0; c < 4; c++)
            vn_topology_add_cpu(t, i * 4 + c, (gint)i, i * 4 + c, 0);
    }
    for (guint a = 0; a < 2; a++)
        for (guint b = 0; b < 2; b++)
            vn_topology_set_distance(t, a, b, a == b ? 10 : d);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return g_steal_pointer(&t);
}

/* A 4-vCPU, 4 GiB VM as two cells of 2 vCPUs and 2 GiB, one per node. */
static VnPlacement *
two_cells(void)
{
    VnPlacement *p = vn_placement_new();

    for (guint i = 0; i < 2; i++) {
        VnCell cell = {
            .id = i, .node = i, .vcpu_first = 2 * i, .n_vcpus = 2, .memory_kib = 2 * GIB
        };
        g_array_append_val(p->cells, cell);
    }
    return p;
}

static gdouble
sum2(const gdouble *x)
{
    return x[0] + x[1];
}

/* latency = 1 + 0.4 (d/10 - 1): 12 -> 1.08, 21 -> 1.44, 32 -> 1.88. */
static void
test_latency(void)
{
    VnSimModel m;

    vn_sim_model_init(&m);
    for (guint i = 0; i < 3; i++) {
        const guint d[] = { 12, 21, 32 };
        const gdouble want[] = { 1.08, 1.44, 1.88 };
        g_autoptr(VnTopology) t = pair_host(d[i]);
        g_assert_cmpfloat_with_epsilon(vn_sim_model_latency(&m, t, 0, 1), want[i], 1e-12);
        g_assert_cmpfloat_with_epsilon(vn_sim_model_latency(&m, t, 1, 1), 1.0, 1e-12);
    }
}

/* Each cell keeps 0.8 of its accesses at home and spreads 0.2 evenly:
 * 0.9 local, 0.1 remote.  Slowdown 0.9 + 0.1 x latency: 1.008 at
 * distance 12, 1.088 at 32.  Without locality (the uniform model) half
 * is remote: 1.04 and 1.44. */
static void
test_two_cells_by_distance(void)
{
    const guint d[] = { 12, 32 };
    const gdouble aware[] = { 1.008, 1.088 }, uniform[] = { 1.04, 1.44 };

    for (guint i = 0; i < 2; i++) {
        g_autoptr(VnTopology) t = pair_host(d[i]);
        g_autoptr(VnPlacement) p = two_cells();
        gdouble share[4], latency[2];
        VnSimModel m;

        vn_sim_model_init(&m);
        vn_sim_model_profile(&m, t, p, 4, 4 * GIB, NULL, share, latency);
        /* from node 0: 0.5 x 0.9 to itself, 0.5 x 0.1 to node 1 */
        g_assert_cmpfloat_with_epsilon(share[0], 0.45, 1e-12);
        g_assert_cmpfloat_with_epsilon(share[1], 0.05, 1e-12);
        g_assert_cmpfloat_with_epsilon(share[2] + share[3], 0.5, 1e-12);
        g_assert_cmpfloat_with_epsilon(sum2(latency), aware[i], 1e-12);
        m.guest_locality = 0.0;
        vn_sim_model_profile(&m, t, p, 4, 4 * GIB, NULL, share, latency);
        g_assert_cmpfloat_with_epsilon(sum2(latency), uniform[i], 1e-12);
    }
}

/* vCPUs floating over both nodes (no pinning), memory all on node 0:
 * half the accesses come from node 1.  No cells, so no locality. */
static void
test_floating_vcpus(void)
{
    g_autoptr(VnTopology) t = pair_host(32);
    g_autoptr(VnPlacement) p = vn_placement_new();
    VnCell cell = { .node = 0, .n_vcpus = 4, .memory_kib = 4 * GIB };
    const gdouble frac[] = { 0.5, 0.5 };
    gdouble share[4], latency[2];
    VnSimModel m;

    g_array_append_val(p->cells, cell);
    vn_sim_model_init(&m);
    vn_sim_model_profile(&m, t, p, 4, 4 * GIB, frac, share, latency);
    g_assert_cmpfloat_with_epsilon(share[0] + share[2], 1.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(share[2], 0.5, 1e-12);
    g_assert_cmpfloat_with_epsilon(sum2(latency), 0.5 + 0.5 * 1.88, 1e-12);
}

/* 1 up to half the CPUs, then linear to 4 at all of them, 4 beyond. */
static void
test_contention_curve(void)
{
    VnSimModel m;

    vn_sim_model_init(&m);
    g_assert_cmpfloat_with_epsilon(vn_sim_model_contention(&m, 0.0), 1.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(vn_sim_model_contention(&m, 0.5), 1.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(vn_sim_model_contention(&m, 0.75), 2.5, 1e-12);
    g_assert_cmpfloat_with_epsilon(vn_sim_model_contention(&m, 1.0), 4.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(vn_sim_model_contention(&m, 3.0), 4.0, 1e-12);
}

/* Node 0 has 12 vCPUs committed on its 4 CPUs, all touching its own
 * memory: only 4 run at once, rho 1.  Node 1 runs 2 vCPUs, half of whose
 * accesses go to node 0: rho 1.25 on node 0, 0.25 on node 1. */
static void
test_demand_capped_by_cpus(void)
{
    g_autoptr(VnTopology) t = pair_host(21);
    const gdouble cpus[] = { 4, 4 };
    const gdouble alone[] = { 12, 0, 0, 0 }, both[] = { 12, 0, 1, 1 };
    gdouble rho[2];

    vn_sim_model_demand(t, alone, cpus, rho);
    g_assert_cmpfloat_with_epsilon(rho[0], 1.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(rho[1], 0.0, 1e-12);
    vn_sim_model_demand(t, both, cpus, rho);
    g_assert_cmpfloat_with_epsilon(rho[0], 1.25, 1e-12);
    g_assert_cmpfloat_with_epsilon(rho[1], 0.25, 1e-12);
}

/* CPU waiting: 12 vCPUs on node 0's 4 CPUs run 3 times slower; node 1's
 * 2 vCPUs (one of them touching node 0) have CPUs to spare. */
static void
test_cpu_wait(void)
{
    g_autoptr(VnTopology) t = pair_host(21);
    const gdouble cpus[] = { 4, 4 };
    const gdouble both[] = { 12, 0, 1, 1 }, none[] = { 0, 0, 0, 0 };
    gdouble wait[2];

    vn_sim_model_cpu_wait(t, both, cpus, wait);
    g_assert_cmpfloat_with_epsilon(wait[0], 3.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(wait[1], 1.0, 1e-12);
    vn_sim_model_cpu_wait(t, none, cpus, wait);
    g_assert_cmpfloat_with_epsilon(wait[0], 1.0, 1e-12);
}

static VnSimMetrics
replay(const VnTopology *t, const VnTrace *trace, VnSimPolicy which)
{
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(GError) error = NULL;
    VnSimMetrics m;

    policy->headroom_percent = 0;
    policy->overhead_base_kib = 0;
    policy->overhead_per_gib_kib = 0;
    g_assert_true(vn_simulate(t, NULL, policy, trace, which, NULL, &m, &error));
    g_assert_no_error(error);
    return m;
}

/* One VM at a time on one node.  4 vCPUs on a 4-CPU node saturate it
 * for its hour: slowdown 4, 2 GiB-h served count as 0.5.  3 vCPUs
 * (rho 0.75) for the next hour: 2.5.  Time-weighted by GiB-hours: 3.25. */
static void
test_saturated_node(void)
{
    g_autoptr(VnTopology) t = pair_host(21);
    g_autoptr(VnTrace) one = vn_trace_new();
    g_autoptr(VnTrace) two = vn_trace_new();
    VnSimMetrics m;

    vn_trace_add(one, "full", 0, 4, 2 * GIB, 3600);
    m = replay(t, one, VN_SIM_POLICY_FIRST_FIT);
    g_assert_cmpfloat_with_epsilon(m.distance_slowdown, 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(m.slowdown, 4.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(m.served_gib_hours, 2.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(m.effective_gib_hours, 0.5, 1e-9);
    g_assert_cmpfloat_with_epsilon(m.peak_committed, 2.0 / 16.0, 1e-9);

    vn_trace_add(two, "full", 0, 4, 2 * GIB, 3600);
    vn_trace_add(two, "three", 3600, 3, 2 * GIB, 3600);
    m = replay(t, two, VN_SIM_POLICY_FIRST_FIT);
    g_assert_cmpfloat_with_epsilon(m.slowdown, 3.25, 1e-9);
    /* never more vCPUs than CPUs: no waiting */
    g_assert_cmpfloat_with_epsilon(m.cpu_wait, 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(m.run_slowdown, m.slowdown, 1e-9);
}

/* Two 4-vCPU, 2 GiB VMs for an hour.  first-fit puts both on node 0: 8
 * vCPUs on 4 CPUs, so 4 run at once (rho 1, contention 4) and each waits
 * half the time (wait 2): slowdown 4, run slowdown 8.  vnuma spreads them
 * (a quarter of the host committed), one a node: rho 1 on each, no
 * waiting: slowdown 4 as well, run slowdown 4.  The memory slowdown
 * alone cannot tell the two apart. */
static void
test_crowded_cpus(void)
{
    g_autoptr(VnTopology) t = pair_host(21);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics f, v;

    vn_trace_add(trace, "a", 0, 4, 2 * GIB, 3600);
    vn_trace_add(trace, "b", 0, 4, 2 * GIB, 3600);
    f = replay(t, trace, VN_SIM_POLICY_FIRST_FIT);
    v = replay(t, trace, VN_SIM_POLICY_VNUMA);
    g_assert_cmpfloat_with_epsilon(f.slowdown, 4.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(f.cpu_wait, 2.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(f.run_slowdown, 8.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(v.slowdown, 4.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(v.cpu_wait, 1.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(v.run_slowdown, 4.0, 1e-9);
}

/* The same 12 GiB VM, which no 8 GiB node holds, on a distance-12 and a
 * distance-32 pair: first-fit gives two even cells (2 vCPUs, 6 GiB);
 * each node sees 2 vCPUs of demand (rho 0.5, no contention), so the
 * slowdown is the profile's, 1.008 and 1.088, while the uniform remote
 * share is 50 % on both. */
static void
test_split_vm_replay(void)
{
    const guint d[] = { 12, 32 };
    const gdouble want[] = { 1.008, 1.088 };

    for (guint i = 0; i < 2; i++) {
        g_autoptr(VnTopology) t = pair_host(d[i]);
        g_autoptr(VnTrace) trace = vn_trace_new();
        VnSimMetrics m;

        vn_trace_add(trace, "wide", 0, 4, 12 * GIB, 7200);
        m = replay(t, trace, VN_SIM_POLICY_FIRST_FIT);
        g_assert_cmpuint(m.split, ==, 1);
        g_assert_cmpfloat_with_epsilon(m.remote_share, 0.5, 1e-9);
        g_assert_cmpfloat_with_epsilon(m.slowdown, want[i], 1e-9);
        g_assert_cmpfloat_with_epsilon(m.effective_gib_hours, 24.0 / want[i], 1e-9);
        g_assert_cmpfloat_with_epsilon(m.guest_locality, 0.8, 1e-12);
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim-model/latency", test_latency);
    g_test_add_func("/sim-model/two-cells-by-distance", test_two_cells_by_distance);
    g_test_add_func("/sim-model/floating-vcpus", test_floating_vcpus);
    g_test_add_func("/sim-model/contention-curve", test_contention_curve);
    g_test_add_func("/sim-model/demand-capped-by-cpus", test_demand_capped_by_cpus);
    g_test_add_func("/sim-model/saturated-node", test_saturated_node);
    g_test_add_func("/sim-model/cpu-wait", test_cpu_wait);
    g_test_add_func("/sim-model/crowded-cpus", test_crowded_cpus);
    g_test_add_func("/sim-model/split-vm-replay", test_split_vm_replay);
    return g_test_run();
}
