/* test-simulate.c: the what-if simulator, its baselines and
 * vn_load_release(), on tiny hand-made hosts and traces whose answers can
 * be worked out by hand.  Scheduler only: links the core and GLib alone.
 *
 * The tests' host policy has no headroom and no QEMU overhead, so "a node
 * of 8 GiB" holds exactly 8 GiB of guests.
 */
#include "vn-baselines.h"
#include "vn-load-release.h"
#include "vn-plan.h"
#include "vn-simulate.h"
#include "vn-test-topologies.h"

#include <math.h>
#include <string.h>

#define GIB (G_GUINT64_CONSTANT(1024) * 1024)

/* `n` nodes of 4 CPUs and `mem_gib` GiB each; distance 10 local, 20 + 1
 * per step in node order (so nearer nodes are cheaper to pair). */
static VnTopology *
tiny_host(guint n, guint mem_gib)
{
    g_autoptr(VnTopology) t = vn_topology_new("test: tiny host");
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i < n; i++) {
        vn_topology_add_node(t, i, mem_gib * GIB);
        for (guint c = 0; c < 4; c++)
            vn_topology_add_cpu(t, i * 4 + c, (gint)i, i * 4 + c, 0);
    }
    for (guint a = 0; a < n; a++)
        for (guint b = 0; b < n; b++)
            vn_topology_set_distance(t, a, b, a == b ? 10 : 20 + (a > b ? a - b : b - a));
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return g_steal_pointer(&t);
}

static VnPolicy *
exact_policy(const VnTopology *t)
{
    VnPolicy *p = vn_policy_new_default(t);

    p->headroom_percent = 0;
    p->overhead_base_kib = 0;
    p->overhead_per_gib_kib = 0;
    return p;
}

static VnSimMetrics
simulate(const VnTopology *t, const VnTrace *trace, VnSimPolicy which)
{
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(GError) error = NULL;
    VnSimMetrics m;

    memset(&m, 0xff, sizeof(m));
    g_assert_true(vn_simulate(t, NULL, policy, trace, which, NULL, &m, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(m.admitted + m.rejected, ==, m.vms);
    return m;
}

/* Commit then release leaves every figure as it was: shared and
 * dedicated, split and whole, hugepages. */
static void
test_release_roundtrip(void)
{
    g_autoptr(VnTopology) t = vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 4, 2, 16);
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnLoad) before = NULL;
    /* vCPUs, GiB, kind: 0 shared, 1 dedicated, 2 hugepages, 3 dedicated
     * with SMT isolate (siblings held idle) */
    const guint sizes[][3] = { { 2, 4, 0 }, { 12, 40, 0 }, { 4, 8, 1 }, { 6, 20, 2 }, { 4, 8, 3 } };

    load->nodes[3].committed_memory_kib = 3 * GIB;
    load->nodes[3].committed_vcpus = 5;
    before = vn_load_copy(load);
    for (guint i = 0; i < G_N_ELEMENTS(sizes); i++) {
        g_autoptr(VnRequest) r = vn_request_new();
        g_autoptr(VnPlacement) p = NULL;
        g_autoptr(GError) error = NULL;

        r->vcpus = sizes[i][0];
        r->memory_kib = sizes[i][1] * GIB;
        r->dedicated = sizes[i][2] == 1 || sizes[i][2] == 3;
        r->smt = sizes[i][2] == 3 ? VN_SMT_ISOLATE : VN_SMT_PREFER;
        r->hugepage_kib = sizes[i][2] == 2 ? 2048 : 0;
        p = vn_plan(t, load, policy, r, NULL, &error);
        if (r->hugepage_kib) { /* the shape has no hugepages: no fit, nothing to release */
            g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
            continue;
        }
        g_assert_no_error(error);
        vn_load_commit(load, t, policy, r, p);
        g_assert_false(memcmp(load->nodes, before->nodes, sizeof(VnNodeLoad) * t->n_nodes) == 0);
        if (r->smt == VN_SMT_ISOLATE)
            g_assert_true(p->isolated_cpus && !vn_bitmap_is_empty(p->isolated_cpus));
        vn_load_release(load, t, policy, r, p);
        g_assert_cmpmem(load->nodes, sizeof(VnNodeLoad) * t->n_nodes, before->nodes,
                        sizeof(VnNodeLoad) * t->n_nodes);
        g_assert_true(vn_bitmap_equal(load->dedicated_cpus, before->dedicated_cpus));
    }
}

/* Hugepage commitments come back too. */
static void
test_release_hugepages(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnRequest) r = vn_request_new();
    g_autoptr(VnPlacement) p = vn_placement_new();
    VnCell cell = {
        .node = 1, .n_vcpus = 2, .memory_kib = 4 * GIB, .cpus = vn_bitmap_new(t->n_cpu_ids)
    };

    r->vcpus = 2;
    r->memory_kib = 4 * GIB;
    r->hugepage_kib = 2048;
    p->hugepage_kib = 2048;
    g_array_append_val(p->cells, cell);
    vn_load_commit(load, t, policy, r, p);
    g_assert_cmpuint(vn_load_get_hugepages(load, 1, 2048), ==, 2048);
    vn_load_release(load, t, policy, r, p);
    g_assert_cmpuint(vn_load_get_hugepages(load, 1, 2048), ==, 0);
    g_assert_cmpuint(load->nodes[1].committed_vcpus, ==, 0);
}

/* Three 8 GiB nodes.  A (6 GiB) lands on a node, leaving 2 + 8 + 8 GiB.
 * B (17 GiB) fits only unevenly over all three (2 + 7.5 + 7.5): vnuma's
 * water-fill takes it, Nova-like first fit wants even thirds (5.7 GiB on
 * the node with 2) and turns it away although it was feasible. */
static void
test_first_fit_rejects_feasible(void)
{
    g_autoptr(VnTopology) t = tiny_host(3, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics v, f;

    vn_trace_add(trace, "a", 0, 1, 6 * GIB, 3600);
    vn_trace_add(trace, "b", 10, 4, 17 * GIB, 360);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    f = simulate(t, trace, VN_SIM_POLICY_FIRST_FIT);
    g_assert_cmpuint(v.admitted, ==, 2);
    g_assert_cmpuint(v.rejected_feasible, ==, 0);
    g_assert_cmpfloat_with_epsilon(v.served_gib_hours, 6.0 + 17.0 * 0.1, 1e-9);
    g_assert_cmpuint(v.split, ==, 1);
    g_assert_cmpuint(v.split_unnecessary, ==, 0);
    /* all three nodes: 21 + 22 + 21 */
    g_assert_cmpfloat(v.mean_split_distance, ==, 64.0);
    g_assert_cmpfloat(v.min_split_distance, ==, 64.0);
    g_assert_cmpuint(f.admitted, ==, 1);
    g_assert_cmpuint(f.rejected, ==, 1);
    g_assert_cmpuint(f.rejected_feasible, ==, 1);
    g_assert_cmpfloat_with_epsilon(f.served_gib_hours, 6.0, 1e-9);
    g_assert_cmpfloat(f.offered_gib_hours, ==, v.offered_gib_hours);
}

/* Equal admitted work: first-fit turns "b" away; replayed on exactly the
 * VMs it admitted, it gives the same figures with nothing turned away,
 * and vnuma replays the same VMs. */
static void
test_matched(void)
{
    g_autoptr(VnTopology) t = tiny_host(3, 8);
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(VnTrace) trace = vn_trace_new();
    g_autoptr(VnTrace) sub = NULL;
    g_autoptr(GError) error = NULL;
    gboolean admitted[3] = { FALSE, TRUE, FALSE }, all[3];
    VnSimMetrics f, f2, v2;

    vn_trace_add(trace, "a", 0, 1, 6 * GIB, 3600);
    vn_trace_add(trace, "b", 10, 4, 17 * GIB, 360);
    vn_trace_add(trace, "c", 20, 2, 1 * GIB, 720);
    g_assert_true(vn_simulate_admitted(t, NULL, policy, trace, VN_SIM_POLICY_FIRST_FIT, NULL, &f,
                                       admitted, &error));
    g_assert_no_error(error);
    g_assert_true(admitted[0] && !admitted[1] && admitted[2]);
    g_assert_true(
        vn_simulate_admitted(t, NULL, policy, trace, VN_SIM_POLICY_VNUMA, NULL, &v2, all, &error));
    g_assert_true(all[0] && all[1] && all[2]);
    sub = vn_trace_subset(trace, admitted);
    g_assert_cmpuint(sub->vms->len, ==, 2);
    g_assert_cmpstr(g_array_index(sub->vms, VnTraceVm, 0).name, ==, "a");
    g_assert_cmpstr(g_array_index(sub->vms, VnTraceVm, 1).name, ==, "c");
    g_assert_cmpfloat(g_array_index(sub->vms, VnTraceVm, 1).time_s, ==, 20);
    g_assert_cmpfloat(g_array_index(sub->vms, VnTraceVm, 1).duration_s, ==, 720);
    f2 = simulate(t, sub, VN_SIM_POLICY_FIRST_FIT);
    g_assert_cmpuint(f2.rejected, ==, 0);
    g_assert_cmpfloat(f2.served_gib_hours, ==, f.served_gib_hours);
    g_assert_cmpfloat(f2.remote_share, ==, f.remote_share);
    g_assert_cmpfloat(f2.slowdown, ==, f.slowdown);
    /* 6 GiB x 1 h + 1 GiB x 0.2 h, offered = served */
    g_assert_cmpfloat_with_epsilon(f2.offered_gib_hours, 6.2, 1e-9);
    v2 = simulate(t, sub, VN_SIM_POLICY_VNUMA);
    g_assert_cmpuint(v2.admitted, ==, 2);
    g_assert_cmpfloat_with_epsilon(v2.served_gib_hours, 6.2, 1e-9);
    g_assert_cmpuint(v2.split, ==, 0);
}

/* A VM wider than a node's CPUs: 6 vCPUs on 4-CPU nodes.  One node would
 * hold them only with its 4x overcommit, the VM's vCPUs then waiting on
 * each other; vnuma (as Nova, which refuses an instance cell with more
 * vCPUs than the host cell's CPUs) and numad (sized by CPUs one to one)
 * split it over two nodes, and neither split counts as unneeded. */
static void
test_wide_vm_split(void)
{
    g_autoptr(VnTopology) t = tiny_host(3, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics v, n;

    vn_trace_add(trace, "a", 0, 1, 1 * GIB, 100);
    vn_trace_add(trace, "wide", 0, 6, 2 * GIB, 100);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    n = simulate(t, trace, VN_SIM_POLICY_MOST_FREE);
    g_assert_cmpuint(v.admitted, ==, 2);
    g_assert_cmpuint(v.split, ==, 1);
    g_assert_cmpuint(v.split_unnecessary, ==, 0);
    g_assert_cmpuint(n.admitted, ==, 2);
    g_assert_cmpuint(n.split, ==, 1);
    g_assert_cmpuint(n.split_unnecessary, ==, 0);
    /* a took node 0; the nearest pair of the least loaded (vnuma) and the
     * most free (numad) are nodes 1 and 2: distance 21, the best */
    g_assert_cmpfloat(v.mean_split_distance, ==, 21.0);
    g_assert_cmpfloat(v.min_split_distance, ==, 21.0);
    g_assert_cmpfloat(n.mean_split_distance, ==, 21.0);
    /* wide: 3 vCPUs and 1 GiB per node: half the pairs are remote;
     * weights 1 GiB x 100 s (a) and 2 GiB x 100 s (wide) */
    g_assert_cmpfloat_with_epsilon(n.remote_share, 0.5 * 2.0 / 3.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(v.remote_share, 0.5 * 2.0 / 3.0, 1e-9);
}

/* numad tries only the node with the most free memory alone: when that one
 * has no vCPU room left, it splits a VM that another node holds whole.
 * Two 8 GiB nodes of 4 CPUs (16 vCPUs each at overcommit 4): big (5 GiB)
 * takes node 0, four fillers of 1 GiB (4, 4, 4, 3 vCPUs) node 1, which
 * still has the most free memory (4 GiB against 3) but room for 1 vCPU;
 * the probe (2 vCPUs, 2 GiB) goes over both although node 0 holds it. */
static void
test_most_free_splits_unnecessarily(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    const guint filler_vcpus[] = { 4, 4, 4, 3 };
    VnSimMetrics v, n;

    vn_trace_add(trace, "big", 0, 1, 5 * GIB, 1000);
    for (guint i = 0; i < G_N_ELEMENTS(filler_vcpus); i++) {
        g_autofree gchar *name = g_strdup_printf("filler%u", i);
        vn_trace_add(trace, name, 1 + i, filler_vcpus[i], 1 * GIB, 1000);
    }
    vn_trace_add(trace, "probe", 10, 2, 2 * GIB, 100);
    n = simulate(t, trace, VN_SIM_POLICY_MOST_FREE);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    g_assert_cmpuint(n.admitted, ==, 6);
    g_assert_cmpuint(n.split, ==, 1);
    g_assert_cmpuint(n.split_unnecessary, ==, 1);
    g_assert_cmpuint(v.admitted, ==, 6);
    g_assert_cmpuint(v.split, ==, 0);
    g_assert_cmpuint(v.split_unnecessary, ==, 0);
}

/* Two 8 GiB nodes: a (4 GiB) lands on node 0, b (2 GiB) comes, then c
 * (7 GiB), which only an untouched node holds alone.  vnuma (least
 * loaded) puts b on node 1 and must split c over both nodes;
 * vnuma-packing puts b next to a and keeps node 1 whole for c.  vnuma
 * stays least loaded even when the host policy says memory-packing. */
static void
test_packing_keeps_node_whole(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnPolicy) packing_conf = exact_policy(t);
    g_autoptr(VnTrace) trace = vn_trace_new();
    g_autoptr(GError) error = NULL;
    VnSimMetrics v, p, v_conf;

    vn_trace_add(trace, "a", 0, 1, 4 * GIB, 1000);
    vn_trace_add(trace, "b", 10, 1, 2 * GIB, 1000);
    vn_trace_add(trace, "c", 20, 2, 7 * GIB, 1000);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    p = simulate(t, trace, VN_SIM_POLICY_VNUMA_PACKING);
    g_assert_cmpuint(v.admitted, ==, 3);
    g_assert_cmpuint(v.split, ==, 1);
    g_assert_cmpfloat(v.remote_share, >, 0.0);
    g_assert_cmpuint(p.admitted, ==, 3);
    g_assert_cmpuint(p.split, ==, 0);
    g_assert_cmpuint(p.rejected_feasible, ==, 0);
    g_assert_cmpfloat(p.remote_share, ==, 0.0);
    g_assert_cmpfloat(p.served_gib_hours, ==, v.served_gib_hours);
    /* memory packed: node 0 holds 6 GiB while c alone is on node 1 */
    g_assert_cmpfloat(p.imbalance, >=, v.imbalance);

    packing_conf->balance = VN_BALANCE_MEMORY_PACKING;
    g_assert_true(
        vn_simulate(t, NULL, packing_conf, trace, VN_SIM_POLICY_VNUMA, NULL, &v_conf, &error));
    g_assert_no_error(error);
    g_assert_cmpmem(&v_conf, sizeof(v_conf), &v, sizeof(v));
}

/* Consolidation after a departure.  Two nodes of 8 GiB: a (4 GiB) on
 * node 0 and b (2 GiB) on node 1, both under half the host committed, so
 * c (7 GiB) is split over them at t=20.  b leaves at t=110: node 1 alone
 * holds c, which vnuma moves there (its guest cells kept, both on node
 * 1); vnuma-no-consolidate leaves it split.  The uniform remote share is
 * c's split share times its GiB-hours split over all GiB-hours, so
 * vnuma's is no-consolidate's times 90 s / 1000 s; what moved is what c
 * had on node 0.  The 90/1000 holds only if c's two guest cells on one
 * node count as local to each other (the remote share per host node). */
static void
test_consolidate_after_departure(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics v, n;

    vn_trace_add(trace, "a", 0, 1, 4 * GIB, 1000);
    vn_trace_add(trace, "b", 10, 1, 2 * GIB, 100);
    vn_trace_add(trace, "c", 20, 2, 7 * GIB, 1000);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    n = simulate(t, trace, VN_SIM_POLICY_VNUMA_NO_CONSOLIDATE);
    g_assert_cmpuint(v.admitted, ==, 3);
    g_assert_cmpuint(n.admitted, ==, 3);
    g_assert_cmpuint(v.split, ==, 1);
    g_assert_cmpuint(n.split, ==, 1);
    g_assert_cmpuint(v.consolidated, ==, 1);
    g_assert_cmpuint(n.consolidated, ==, 0);
    g_assert_cmpuint(v.moves, ==, 0);
    g_assert_cmpfloat(n.remote_share, >, 0.0);
    g_assert_cmpfloat_with_epsilon(v.remote_share, n.remote_share * 90.0 / 1000.0, 1e-12);
    g_assert_cmpfloat(v.consolidated_gib, >, 0.0);
    g_assert_cmpfloat(v.consolidated_gib, <, 7.0);
    g_assert_cmpfloat(v.served_gib_hours, ==, n.served_gib_hours);
    g_assert_cmpfloat(v.slowdown, <, n.slowdown);
}

/* vnuma-rebalance: two VMs on each of two nodes (balance load puts them
 * in turn); both of node 1's leave, so node 0 (half its memory, all its
 * CPUs) is hotter than the mean by more than 0.15 and the round after
 * the second departure moves one of its 2 GiB VMs live to node 1: its
 * CPUs stop being all taken (contention, vn-simulate-model.h), so the
 * slowdown falls.  Plain vnuma moves nothing.  With the departures
 * before the VMs are 300 s old, the rebalancer's cooldown holds them and
 * nothing moves either. */
static void
rebalance_trace(VnTrace *trace, guint leave_at)
{
    vn_trace_add(trace, "a", 0, 2, 2 * GIB, 10000);
    vn_trace_add(trace, "b", 10, 2, 2 * GIB, leave_at - 10);
    vn_trace_add(trace, "c", 20, 2, 2 * GIB, 10000);
    vn_trace_add(trace, "d", 30, 2, 2 * GIB, leave_at);
}

static void
test_rebalance_rounds(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    g_autoptr(VnTrace) early = vn_trace_new();
    VnSimMetrics v, r, held;

    rebalance_trace(trace, 400);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    r = simulate(t, trace, VN_SIM_POLICY_VNUMA_REBALANCE);
    g_assert_cmpuint(v.admitted, ==, 4);
    g_assert_cmpuint(r.admitted, ==, 4);
    g_assert_cmpuint(v.moves, ==, 0);
    g_assert_cmpuint(r.moves, ==, 1);
    g_assert_cmpfloat(r.moved_gib, ==, 2.0);
    g_assert_cmpuint(r.split, ==, 0);
    g_assert_cmpfloat(r.served_gib_hours, ==, v.served_gib_hours);
    g_assert_cmpfloat(r.remote_share, ==, 0.0);
    g_assert_cmpfloat(r.slowdown, <, v.slowdown);
    g_assert_cmpfloat(r.cpu_wait, <=, v.cpu_wait);

    rebalance_trace(early, 100);
    held = simulate(t, early, VN_SIM_POLICY_VNUMA_REBALANCE);
    g_assert_cmpuint(held.admitted, ==, 4);
    g_assert_cmpuint(held.moves, ==, 0);
}

/* vnuma-mirror is vnuma searching nodes from the last (which node it
 * takes: /plan/fit/search-from-last): on two equal nodes every choice is
 * the mirror image of vnuma's, so every figure is the same; elsewhere the
 * two differ only by which of equally good nodes each VM took. */
static void
test_mirror_symmetric(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics v, m;

    vn_trace_add(trace, "a", 0, 1, 4 * GIB, 1000);
    vn_trace_add(trace, "b", 10, 1, 2 * GIB, 100);
    vn_trace_add(trace, "c", 20, 2, 7 * GIB, 1000);
    vn_trace_add(trace, "d", 300, 2, 1 * GIB, 50);
    v = simulate(t, trace, VN_SIM_POLICY_VNUMA);
    m = simulate(t, trace, VN_SIM_POLICY_VNUMA_MIRROR);
    g_assert_cmpuint(v.admitted, ==, 4);
    g_assert_cmpuint(v.split, ==, 1);
    g_assert_cmpuint(v.consolidated, ==, 1);
    g_assert_cmpmem(&m, sizeof(m), &v, sizeof(v));
    g_assert_cmpstr(vn_sim_policy_to_string(VN_SIM_POLICY_VNUMA_MIRROR), ==, "vnuma-mirror");
}

/* An unpinned VM's vCPUs run anywhere: on two equal nodes half of its
 * accesses are remote. */
static void
test_no_pinning_remote_share(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics u;

    vn_trace_add(trace, "a", 0, 2, 1 * GIB, 100);
    u = simulate(t, trace, VN_SIM_POLICY_NO_PINNING);
    g_assert_cmpuint(u.admitted, ==, 1);
    g_assert_cmpuint(u.split, ==, 0);
    g_assert_cmpfloat_with_epsilon(u.remote_share, 0.5, 1e-9);
}

/* The imbalance window: A alone on one of two nodes for 100 s (max/mean
 * = 2), B arrives at the end of the window. */
static void
test_imbalance(void)
{
    g_autoptr(VnTopology) t = tiny_host(2, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();

    vn_trace_add(trace, "a", 0, 1, 4 * GIB, 1000);
    vn_trace_add(trace, "b", 100, 1, 4 * GIB, 1000);
    g_assert_cmpfloat(simulate(t, trace, VN_SIM_POLICY_VNUMA).imbalance, ==, 2.0);
    g_assert_cmpfloat(simulate(t, trace, VN_SIM_POLICY_FIRST_FIT).imbalance, ==, 2.0);
    /* one arrival only: the snapshot after it */
    g_array_set_size(trace->vms, 1);
    g_assert_cmpfloat(simulate(t, trace, VN_SIM_POLICY_VNUMA).imbalance, ==, 2.0);
}

/* Departures at an arrival's time come first: the node is free again. */
static void
test_departure_first(void)
{
    g_autoptr(VnTopology) t = tiny_host(1, 8);
    g_autoptr(VnTrace) trace = vn_trace_new();

    vn_trace_add(trace, "b", 10, 2, 8 * GIB, 10); /* unsorted on purpose */
    vn_trace_add(trace, "a", 0, 2, 8 * GIB, 10);
    vn_trace_add(trace, "c", 15, 1, 1 * GIB, 10);
    for (guint p = 0; p < VN_SIM_POLICY_MAX; p++) {
        VnSimMetrics m = simulate(t, trace, (VnSimPolicy)p);
        g_assert_cmpuint(m.admitted, ==, 2);
        g_assert_cmpuint(m.rejected, ==, 1); /* c: b holds the node */
        g_assert_cmpuint(m.rejected_feasible, ==, 0);
    }
}

/* First fit packs node 0; round-robin moves on; most-free picks the
 * emptiest node. */
static void
test_baseline_choices(void)
{
    g_autoptr(VnTopology) t = tiny_host(3, 8);
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnRequest) r = vn_request_new();
    guint cursor = 0;
    const struct {
        VnBaseline b;
        guint node[3];
    } cases[] = {
        { VN_BASELINE_FIRST_FIT, { 0, 0, 0 } },
        { VN_BASELINE_ROUND_ROBIN, { 0, 1, 2 } },
        { VN_BASELINE_MOST_FREE, { 0, 1, 2 } },
    };

    r->vcpus = 1;
    r->memory_kib = GIB;
    for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
        g_autoptr(GPtrArray) placed =
            g_ptr_array_new_with_free_func((GDestroyNotify)vn_placement_free);
        for (guint vm = 0; vm < 3; vm++) {
            g_autoptr(GError) error = NULL;
            VnPlacement *p = vn_baseline_place(cases[c].b, t, load, policy, r, &cursor, &error);
            g_assert_no_error(error);
            g_assert_cmpuint(p->cells->len, ==, 1);
            g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node, ==, cases[c].node[vm]);
            vn_load_commit(load, t, policy, r, p);
            g_ptr_array_add(placed, p);
        }
        for (guint vm = 0; vm < placed->len; vm++)
            vn_load_release(load, t, policy, r, g_ptr_array_index(placed, vm));
        g_assert_cmpuint(load->nodes[0].committed_memory_kib, ==, 0);
    }
}

static void
test_names(void)
{
    for (guint p = 0; p < VN_SIM_POLICY_MAX; p++) {
        VnSimPolicy back;
        g_assert_true(vn_sim_policy_from_string(vn_sim_policy_to_string((VnSimPolicy)p), &back));
        g_assert_cmpint(back, ==, p);
    }
    for (guint b = 0; b < VN_BASELINE_MAX; b++) {
        VnBaseline back;
        g_assert_true(vn_baseline_from_string(vn_baseline_to_string((VnBaseline)b), &back));
        g_assert_cmpint(back, ==, b);
        g_assert_cmpstr(vn_baseline_to_string((VnBaseline)b), ==,
                        vn_sim_policy_to_string((VnSimPolicy)(b + 1)));
    }
    g_assert_cmpstr(vn_sim_policy_to_string(VN_SIM_POLICY_VNUMA_PACKING), ==, "vnuma-packing");
    g_assert_false(vn_sim_policy_from_string("numad", &(VnSimPolicy){ 0 }));
}

/* A VM no policy can take as a request is an error naming it. */
static void
test_invalid_vm(void)
{
    g_autoptr(VnTopology) t = tiny_host(1, 8);
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(VnTrace) trace = vn_trace_new();

    vn_trace_add(trace, "zero", 0, 0, GIB, 10);
    for (guint p = 0; p < VN_SIM_POLICY_MAX; p++) {
        g_autoptr(GError) error = NULL;
        VnSimMetrics m = { 0 };
        g_assert_false(vn_simulate(t, NULL, policy, trace, (VnSimPolicy)p, NULL, &m, &error));
        g_assert_error(error, VN_SIMULATE_ERROR, VN_SIMULATE_ERROR_INVALID);
        g_assert_nonnull(strstr(error->message, "VM zero"));
    }
}

/* Times the replay's clock cannot count (a trace built in code; the CSV
 * reader refuses them first) are an error naming the VM, for every policy. */
static void
test_time_out_of_range(void)
{
    g_autoptr(VnTopology) t = tiny_host(1, 8);
    g_autoptr(VnPolicy) policy = exact_policy(t);
    const gdouble bad[][2] = { { 3.4e41, 10 }, { 0, 2e12 }, { -1, 10 }, { NAN, 10 } };

    for (guint b = 0; b < G_N_ELEMENTS(bad); b++) {
        g_autoptr(VnTrace) trace = vn_trace_new();
        vn_trace_add(trace, "ok", 0, 1, GIB, 10);
        vn_trace_add(trace, "far", bad[b][0], 1, GIB, bad[b][1]);
        for (guint p = 0; p < VN_SIM_POLICY_MAX; p++) {
            g_autoptr(GError) error = NULL;
            VnSimMetrics m = { 0 };
            g_assert_false(vn_simulate(t, NULL, policy, trace, (VnSimPolicy)p, NULL, &m, &error));
            g_assert_error(error, VN_SIMULATE_ERROR, VN_SIMULATE_ERROR_INVALID);
            g_assert_nonnull(strstr(error->message, "VM far: time "));
            g_assert_nonnull(strstr(error->message, "out of range (0 to 1e+12)"));
        }
    }
}

/* The same inputs give the same answer; an initial load is copied, not
 * changed. */
static void
test_deterministic(void)
{
    g_autoptr(VnTopology) t = vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 4, 2, 16);
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(VnLoad) initial = vn_load_new(t);
    g_autoptr(VnTrace) trace = vn_trace_new();
    g_autoptr(GRand) r = g_rand_new_with_seed(7);

    initial->nodes[2].committed_memory_kib = 10 * GIB;
    for (guint i = 0; i < 300; i++) {
        g_autofree gchar *name = g_strdup_printf("vm%u", i);
        vn_trace_add(trace, name, i * 60.0, 1u << g_rand_int_range(r, 0, 5),
                     (guint64)g_rand_int_range(r, 1, 40) * GIB, g_rand_int_range(r, 60, 40000));
    }
    for (guint p = 0; p < VN_SIM_POLICY_MAX; p++) {
        VnSimMetrics a, b;
        g_assert_true(vn_simulate(t, initial, policy, trace, (VnSimPolicy)p, NULL, &a, NULL));
        g_assert_true(vn_simulate(t, initial, policy, trace, (VnSimPolicy)p, NULL, &b, NULL));
        g_assert_cmpmem(&a, sizeof(a), &b, sizeof(b));
        g_assert_cmpuint(a.rejected_feasible, <=, a.rejected);
        g_assert_cmpuint(a.split_unnecessary, <=, a.split);
        g_assert_cmpfloat(a.imbalance, >=, 1.0);
        g_assert_cmpfloat(a.remote_share, >=, 0.0);
        g_assert_cmpfloat(a.remote_share, <=, 1.0);
        if (p == VN_SIM_POLICY_VNUMA || p == VN_SIM_POLICY_VNUMA_PACKING) {
            g_assert_cmpuint(a.rejected_feasible, ==, 0);
            g_assert_cmpuint(a.split_unnecessary, ==, 0);
        }
    }
    g_assert_cmpuint(initial->nodes[2].committed_memory_kib, ==, 10 * GIB);
}

/* Two nodes of 8 CPUs and 8 GiB, each two L3 domains of 4 CPUs. */
static VnTopology *
l3_host(void)
{
    g_autoptr(VnTopology) t = vn_topology_new("test: two L3 a node");
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i < 2; i++) {
        vn_topology_add_node(t, i, 8 * GIB);
        for (guint c = 0; c < 8; c++)
            vn_topology_add_cpu(t, i * 8 + c, (gint)i, i * 8 + c, i);
    }
    for (guint d = 0; d < 4; d++) {
        g_autoptr(VnBitmap) cpus = vn_bitmap_new(16);
        for (guint c = 0; c < 4; c++)
            vn_bitmap_set(cpus, d * 4 + c);
        vn_topology_add_l3(t, cpus, 8192);
    }
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(t->n_domains, ==, 4);
    return g_steal_pointer(&t);
}

static VnSimMetrics
simulate_domains(const VnTopology *t, const VnTrace *trace, VnSimPolicy which, VnCacheDomains mode)
{
    g_autoptr(VnPolicy) policy = exact_policy(t);
    g_autoptr(GError) error = NULL;
    VnSimMetrics m;

    policy->cache_domains = mode;
    g_assert_true(vn_simulate(t, NULL, policy, trace, which, NULL, &m, &error));
    g_assert_no_error(error);
    return m;
}

/* Cache-domain splits beside node splits: three 4-vCPU VMs and one of
 * 12 GiB (two nodes) on a host of two L3 domains a node.  With cache
 * domains preferred each small VM's vCPUs sit in one domain and the big
 * one's in one domain of each node: none splits a domain, one splits
 * nodes.  With them off every VM floats over its node's two domains;
 * no-pinning floats over the host. */
static void
test_domain_split(void)
{
    g_autoptr(VnTopology) t = l3_host();
    g_autoptr(VnTrace) trace = vn_trace_new();
    VnSimMetrics prefer, off, floating;

    for (guint i = 0; i < 3; i++) {
        g_autofree gchar *name = g_strdup_printf("small-%u", i);
        vn_trace_add(trace, name, i, 4, 1 * GIB, 3600);
    }
    vn_trace_add(trace, "big", 10, 4, 12 * GIB, 3600);
    prefer = simulate_domains(t, trace, VN_SIM_POLICY_VNUMA, VN_CACHE_DOMAINS_PREFER);
    off = simulate_domains(t, trace, VN_SIM_POLICY_VNUMA, VN_CACHE_DOMAINS_OFF);
    floating = simulate_domains(t, trace, VN_SIM_POLICY_NO_PINNING, VN_CACHE_DOMAINS_PREFER);
    g_assert_cmpuint(prefer.admitted, ==, 4);
    g_assert_cmpuint(prefer.split, ==, 1);
    g_assert_cmpuint(prefer.domain_split, ==, 0);
    g_assert_cmpuint(off.admitted, ==, 4);
    g_assert_cmpuint(off.split, ==, 1);
    g_assert_cmpuint(off.domain_split, ==, 4);
    g_assert_cmpuint(floating.domain_split, ==, floating.admitted);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/sim/load/release-roundtrip", test_release_roundtrip);
    g_test_add_func("/sim/load/release-hugepages", test_release_hugepages);
    g_test_add_func("/sim/first-fit/rejects-feasible", test_first_fit_rejects_feasible);
    g_test_add_func("/sim/matched", test_matched);
    g_test_add_func("/sim/wide-vm-split", test_wide_vm_split);
    g_test_add_func("/sim/most-free/splits-unnecessarily", test_most_free_splits_unnecessarily);
    g_test_add_func("/sim/no-pinning/remote-share", test_no_pinning_remote_share);
    g_test_add_func("/sim/vnuma-mirror/symmetric", test_mirror_symmetric);
    g_test_add_func("/sim/vnuma/consolidate-after-departure", test_consolidate_after_departure);
    g_test_add_func("/sim/vnuma-rebalance/rounds", test_rebalance_rounds);
    g_test_add_func("/sim/vnuma-packing/keeps-node-whole", test_packing_keeps_node_whole);
    g_test_add_func("/sim/imbalance", test_imbalance);
    g_test_add_func("/sim/departure-first", test_departure_first);
    g_test_add_func("/sim/baselines/choices", test_baseline_choices);
    g_test_add_func("/sim/names", test_names);
    g_test_add_func("/sim/invalid-vm", test_invalid_vm);
    g_test_add_func("/sim/time-out-of-range", test_time_out_of_range);
    g_test_add_func("/sim/deterministic", test_deterministic);
    g_test_add_func("/sim/domain-split", test_domain_split);
    return g_test_run();
}
