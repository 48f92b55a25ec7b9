/* test-plan.c: the placement core on hosts with real distance matrices.
 *
 * Decisions are checked against an independent brute-force oracle on hosts
 * of up to 16 nodes: the fewest nodes, and among feasible sets of that
 * size, the smallest internal distance.  The oracle does not rank load:
 * the balance ([placement] balance) only breaks ties between sets it
 * finds equal, so both balances must meet it (/plan/oracle/memory-packing/).
 */
#include "vn-test-plan.h"
#include "vn-test-topologies.h"

#include <string.h>

static void
test_one_node(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(4, 8);
    g_autoptr(VnPlacement) p = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_cmpuint(vn_test_nodes_used(p), ==, 1);
    vn_test_host_clear(&h);
}

static void
test_least_loaded(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(4, 8);

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 8, 2, 32));
    for (guint i = 0; i < h.t->n_nodes; i++)
        h.load->nodes[i].committed_memory_kib = (i == 5 ? 2 : 10) * GIB;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 5);
    }
    /* measured CPU busy counts too */
    h.load->nodes[5].cpu_busy = 0.9;
    h.load->nodes[2].committed_memory_kib = 2 * GIB;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 2);
    }
    vn_test_host_clear(&h);
}

/* Crowded CPUs rank a node worse (VN_BALANCE_DENSITY_WEIGHT): two nodes
 * of 4 CPUs and 64 GiB, a VM of 2 vCPUs and 8 GiB.  Node 0 holds 8 GiB,
 * node 1 20 GiB.  With no vCPUs on node 0 its load after placement is
 * max(2 / 16, (3.2 + 16) / 64) = 0.30 (3.2: the 5 % headroom) against node
 * 1's max(2 / 16, (3.2 + 28) / 64) = 0.49, and it takes the VM (2 / 4 =
 * 0.5 CPUs busy: at the knee, no crowding).  With 3 shared vCPUs on node 0 its CPU use counted against the
 * 4x overcommitted capacity is still only (3 + 2) / 16 = 0.31, but its
 * crowding rises from (3 / 4 - 0.5) / 0.5 = 0.5 to 1 + 0.25 x (5 / 4 - 1)
 * / 0.5 = 1.125 (5 vCPUs for 4 CPUs: full, and a quarter of the slope past
 * one a CPU), slowing its 8 GiB and the VM's 8: 1.125 x 16 - 0.5 x 8 =
 * 14 GiB, 14 / 64 = 0.22 of load: 0.53 against node 1's 0.49, and node 1
 * takes it; its reasons say so.
 * The same crowding weighs little where little memory is: node 0 with 3
 * vCPUs and 4 GiB, node 1 with 1 vCPU and 40 GiB, a VM of 1 vCPU and
 * 2 GiB.  Node 0: max(4 / 16, (3.2 + 4 + 2) / 64) = 0.25, its
 * crowding 0.5 to 1 over 4 + 2 GiB, 1 x 6 - 0.5 x 4 = 4 GiB,
 * 4 / 64 = 0.06: 0.31.  Node 1: max(2 / 16, (3.2 + 40 + 2) / 64) = 0.71,
 * at the knee.  Node 0 takes it (a point of load for any crowding would
 * have given 1.25 and node 1). */
static gboolean has_reason(GPtrArray *reasons, const gchar *text);

/* `r` goes whole to node `node`, and one of the plan's reasons is `why`. */
static void
assert_on_node_saying(VnTestHost *h, const VnRequest *r, guint node, const gchar *why)
{
    g_autoptr(VnPlacement) p = vn_test_plan_ok(h, r);

    vn_test_assert_invariants(h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, node);
    if (!has_reason(p->reasons, why))
        for (guint i = 0; i < p->reasons->len; i++)
            g_printerr("reason: %s\n", (const gchar *)g_ptr_array_index(p->reasons, i));
    g_assert_true(has_reason(p->reasons, why));
}

static void
test_crowded_cpus(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(2, 8);
    g_autoptr(VnRequest) small = vn_test_request(1, 2);

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 1, 64));
    h.load->nodes[0].committed_memory_kib = 8 * GIB;
    h.load->nodes[1].committed_memory_kib = 20 * GIB;
    assert_on_node_saying(&h, r, 0, "fits on one node: node 0 (load after placement 30%)");
    h.load->nodes[0].committed_vcpus = 3;
    /* and the explanation says why the less loaded node lost */
    assert_on_node_saying(&h, r, 1,
                          "not node 0: load after placement 31%, 5 vCPUs on its 4 CPUs, crowded "
                          "past half: 0.50 to 1.12 on 16.0 GiB");
    h.load->nodes[0].committed_memory_kib = 4 * GIB;
    h.load->nodes[1].committed_memory_kib = 40 * GIB;
    h.load->nodes[1].committed_vcpus = 1;
    assert_on_node_saying(&h, small, 0,
                          "fits on one node: node 0 (load after placement 25%, 4 vCPUs on its 4 "
                          "CPUs, crowded past half: 0.50 to 1.00 on 6.0 GiB)");
    vn_test_host_clear(&h);
}

/* Page cache is not load: a node whose free memory is low only because
 * the kernel keeps file pages there (a dpkg run, a backup) still holds a
 * VM, and is not ranked busier than a node with less room in all. */
static void
test_page_cache_is_room(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(2, 12);

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 32));
    h.t->nodes[0].mem_free_kib = 4 * GIB;
    h.t->nodes[0].mem_reclaimable_kib = 26 * GIB;
    h.t->nodes[1].mem_free_kib = 20 * GIB;
    g_assert_cmpuint(vn_topology_node_available_kib(h.t, 0), ==, 30 * GIB);
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(p->cells->len, ==, 1);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 0);
    }
    /* Without the page cache node 0 is too small, and node 1 is chosen. */
    h.t->nodes[0].mem_reclaimable_kib = 0;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 1);
    }
    /* Reclaimable memory never counts beyond the node's total. */
    h.t->nodes[0].mem_reclaimable_kib = 64 * GIB;
    g_assert_cmpuint(vn_topology_node_available_kib(h.t, 0), ==, h.t->nodes[0].mem_total_kib);
    vn_test_host_clear(&h);
}

/* The simulator's vnuma-mirror (VnPolicy.search_from_last): on an empty
 * hierarchical host of equal nodes, a VM one node holds goes to the last
 * node instead of the first (an exact tie), and one that needs two goes
 * to the last pair, as near as the first: the same placement but for
 * which of equal nodes. */
static void
test_search_from_last(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) one = vn_test_request(2, 4);
    g_autoptr(VnRequest) two = vn_test_request(4, 24);
    g_autoptr(VnPlacement) first = NULL, last = NULL, pair = NULL, last_pair = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    first = vn_test_plan_ok(&h, one);
    pair = vn_test_plan_ok(&h, two);
    h.policy->search_from_last = TRUE;
    last = vn_test_plan_ok(&h, one);
    last_pair = vn_test_plan_ok(&h, two);
    vn_test_assert_invariants(&h, one, last);
    vn_test_assert_invariants(&h, two, last_pair);
    g_assert_cmpuint(g_array_index(first->cells, VnCell, 0).node_os_id, ==, 0);
    g_assert_cmpuint(g_array_index(last->cells, VnCell, 0).node_os_id, ==, 3);
    g_assert_cmpuint(vn_test_nodes_used(pair), ==, 2);
    g_assert_cmpuint(vn_test_nodes_used(last_pair), ==, 2);
    g_assert_cmpuint(g_array_index(pair->cells, VnCell, 0).node_os_id, ==, 0);
    g_assert_cmpuint(g_array_index(pair->cells, VnCell, 1).node_os_id, ==, 1);
    g_assert_cmpuint(g_array_index(last_pair->cells, VnCell, 0).node_os_id, ==, 2);
    g_assert_cmpuint(g_array_index(last_pair->cells, VnCell, 1).node_os_id, ==, 3);
    g_assert_cmpuint(vn_test_placement_distance(&h, last_pair), ==,
                     vn_test_placement_distance(&h, pair));
    vn_test_host_clear(&h);
}

/* Successive VMs that each fit a node spread over the nodes. */
static void
test_spread(void)
{
    VnTestHost h;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    for (guint vm = 0; vm < 4; vm++) {
        g_autoptr(VnRequest) r = vn_test_request(2, 4);
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_load_commit(h.load, h.t, h.policy, r, p);
    }
    for (guint i = 0; i < 4; i++) {
        g_assert_cmpuint(h.load->nodes[i].committed_vcpus, ==, 2);
        g_assert_cmpuint(h.load->nodes[i].committed_memory_kib, >, 4 * GIB);
    }
    vn_test_host_clear(&h);
}

/* 48 GiB on 32 GiB nodes of 16 CPUs: the nearest pair (distance 12).
 * With 4 vCPUs, split fill (the default) puts on the first node all it
 * can take, the node less the headroom and its half of the overhead, in
 * whole MiB, the rest to the second; vCPUs in proportion (4 x 30921 /
 * 49152 = 2.52, and 1.48), the vCPU rounding leaves over going to the
 * larger cell.  With 16 vCPUs the same fill would put 11 on the first
 * node, past half its 16 CPUs, where its memory bandwidth fills: each
 * member keeps to its 8 uncrowded CPUs while the pair has them, and the
 * memory follows, 24 GiB each.  Split even gives identical cells. */
static void
test_larger_than_node_epyc(void)
{
    VnTestHost h;
    const VnSplit splits[] = { VN_SPLIT_FILL, VN_SPLIT_EVEN };
    const guint vcpus[] = { 4, 16 };

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 8, 2, 32));
    for (guint v = 0; v < G_N_ELEMENTS(vcpus); v++)
        for (guint i = 0; i < G_N_ELEMENTS(splits); i++) {
            g_autoptr(VnRequest) r = vn_test_request(vcpus[v], 48);
            g_autoptr(VnPlacement) p = NULL;
            guint64 node_kib = 32 * GIB, overhead_kib = (32 + 8 * 48) * 1024;
            guint64 room_mib = (node_kib - node_kib / 100 * 5 - overhead_kib / 2) / 1024;
            const VnCell *a, *b;

            h.policy->split = splits[i];
            p = vn_test_plan_ok(&h, r);
            vn_test_assert_invariants(&h, r, p);
            g_assert_cmpuint(p->cells->len, ==, 2);
            a = &g_array_index(p->cells, VnCell, 0);
            b = &g_array_index(p->cells, VnCell, 1);
            g_assert_cmpuint(vn_topology_distance(h.t, a->node, b->node), ==, 12);
            if (splits[i] == VN_SPLIT_EVEN || vcpus[v] == 16) {
                g_assert_cmpuint(a->n_vcpus, ==, vcpus[v] / 2);
                g_assert_cmpuint(b->n_vcpus, ==, vcpus[v] / 2);
                g_assert_cmpuint(a->memory_kib, ==, 24 * GIB);
                g_assert_cmpfloat(vn_test_remote_share(r, p), ==, 0.5);
                if (splits[i] == VN_SPLIT_FILL)
                    vn_test_assert_filled(&h, r, p);
                continue;
            }
            g_assert_cmpuint(room_mib, ==, 30921);
            g_assert_cmpuint(a->memory_kib, ==, room_mib * 1024);
            g_assert_cmpuint(b->memory_kib, ==, 48 * GIB - room_mib * 1024);
            g_assert_cmpuint(a->n_vcpus, ==, 3);
            g_assert_cmpuint(b->n_vcpus, ==, 1);
            vn_test_assert_filled(&h, r, p);
            /* 1 - (3/4 x 30921/49152 + 1/4 x 18231/49152) */
            g_assert_cmpfloat(ABS(vn_test_remote_share(r, p) - 0.435455), <, 1e-6);
        }
    vn_test_host_clear(&h);
}

/* A node too full for a cell carrying the whole QEMU overhead may still
 * hold one with half of it: each node count tried recomputes the memory
 * room with its own share, starting again from the CPU stage's verdict.
 * Four 32 GiB nodes, 2 and 3 full, node 0 with 200 MiB left: a 31000 MiB
 * VM (280 MiB overhead) fits on no single node (node 1 has 30849.6 MiB
 * with the whole overhead) while the bound, with a quarter of it, says 1
 * node might do; with 2 nodes, 140 MiB of it each, node 0 has room for
 * 60 MiB, less than the 1 GiB least cell, so it takes all 60 and node 1
 * the other 30940 MiB. */
static void
test_overhead_share_per_count(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(4, 0);
    g_autoptr(VnPlacement) p = NULL;
    guint64 avail, overhead;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_HIER, 4, 8, 2, 32));
    avail = vn_policy_usable_memory_kib(h.policy, h.t, 1, 0);
    r->memory_kib = 31000 * 1024ull;
    overhead = vn_policy_overhead_kib(h.policy, r->memory_kib);
    g_assert_cmpuint(overhead, ==, 280 * 1024ull);
    /* the case: no one node with the whole overhead, maybe one with a quarter */
    g_assert_cmpuint(avail - overhead, <, r->memory_kib);
    g_assert_cmpuint(avail - overhead / 4, >=, r->memory_kib);
    h.load->nodes[0].committed_memory_kib = avail - 200 * 1024ull;
    h.load->nodes[2].committed_memory_kib = h.t->nodes[2].mem_total_kib;
    h.load->nodes[3].committed_memory_kib = h.t->nodes[3].mem_total_kib;
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node, ==, 0);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).node, ==, 1);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).memory_kib, ==, 60 * 1024ull);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).memory_kib, ==, 30940 * 1024ull);
    vn_test_host_clear(&h);
}

/* Split fill when the pair's CPUs under half do not cover the VM: the
 * vCPUs level the crowding.  Two 16-CPU nodes (8 cores x 2 threads, 128
 * GiB) running 6 and 2 vCPUs have 2 and 6 CPUs under half, 8 < 16; so
 * node 0 takes 6 and node 1 10, both at 12 of 16 CPUs (0.75); the fill
 * before this put 13 on node 0 (19 vCPUs on its 16 CPUs) and 3 on node 1.  The
 * memory follows the vCPUs: 160 GiB x 6/16 = 60 GiB and 100 GiB.  With
 * node 0 past half already (11 vCPUs) the level is higher: node 0 takes
 * 4 and node 1 12, 15 and 14 of 16 CPUs (at 14 each the last vCPU is a
 * tie, which goes to the first node).  Both members are past the knee, so
 * the even split is scored too (vn_plan_split_crowds()): with no memory
 * committed, 8 vCPUs and 80 GiB on each node (0.875 and 0.625 of the
 * CPUs) load the busier member less (80 / 128 GiB against the fill's 100)
 * and score lower: the even split is kept.  With 40 GiB on node 0, 80 GiB
 * more there would load it to (40 + 80) / 128 = 94 % against the fill's
 * 78 % on each node; the fill scores lower and stays (checked in both
 * cases below). */
static void
test_split_levels_crowding(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(16, 160);
    const VnCell *a, *b;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 128));
    h.load->nodes[0].committed_vcpus = 6;
    h.load->nodes[1].committed_vcpus = 2;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 2);
        for (guint i = 0; i < 2; i++) {
            g_assert_cmpuint(g_array_index(p->cells, VnCell, i).n_vcpus, ==, 8);
            g_assert_cmpuint(g_array_index(p->cells, VnCell, i).memory_kib, ==, 80 * GIB);
        }
        g_assert_true(vn_test_has_reason(p, "split even, not fill"));
        vn_test_assert_filled(&h, r, p);
    }
    h.load->nodes[0].committed_memory_kib = 40 * GIB;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 2);
        a = &g_array_index(p->cells, VnCell, 0);
        b = &g_array_index(p->cells, VnCell, 1);
        g_assert_cmpuint(a->node_os_id, ==, 0);
        g_assert_cmpuint(a->n_vcpus, ==, 6);
        g_assert_cmpuint(b->n_vcpus, ==, 10);
        g_assert_cmpuint(a->memory_kib, ==, 60 * GIB);
        g_assert_cmpuint(b->memory_kib, ==, 100 * GIB);
        vn_test_assert_filled(&h, r, p);
    }
    h.load->nodes[0].committed_vcpus = 11;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        a = &g_array_index(p->cells, VnCell, 0);
        b = &g_array_index(p->cells, VnCell, 1);
        g_assert_cmpuint(a->n_vcpus, ==, 4);
        g_assert_cmpuint(b->n_vcpus, ==, 12);
        vn_test_assert_filled(&h, r, p);
    }
    vn_test_host_clear(&h);
}

/* A VM never overcommits against itself.  Two idle 32-CPU nodes (16 cores
 * x 2 threads), 64 GiB each: 32 vCPUs are one node; 48 are 24 + 24 (one
 * node would hold them only at 1.5 vCPUs a CPU, its own vCPUs waiting on
 * each other beside an idle node); 80, more than the host's 64 CPUs, are
 * 40 + 40 at 2 a CPU, said in the reasons, not 80 on one node; the same
 * interleaved (memory='interleave': vCPUs float over both nodes). */
static void
test_wide_vm(void)
{
    VnTestHost h;
    const guint vcpus[] = { 32, 48, 80 }, cells[] = { 1, 2, 2 };

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 16, 2, 64));
    for (guint i = 0; i < G_N_ELEMENTS(vcpus); i++) {
        g_autoptr(VnRequest) r = vn_test_request(vcpus[i], 8);
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, cells[i]);
        for (guint c = 0; c < p->cells->len; c++)
            g_assert_cmpuint(g_array_index(p->cells, VnCell, c).n_vcpus, ==, vcpus[i] / cells[i]);
        g_assert_cmpint(p->self_overcommitted, ==, vcpus[i] > 64);
        g_assert_cmpint(has_reason(p->reasons, "no node set gives each of its 80 vCPUs a CPU"), ==,
                        vcpus[i] == 80);
        g_assert_cmpint(has_reason(p->reasons, "48 vCPUs, more than any node's CPUs: 2 cells on 2 "
                                               "nodes"),
                        ==, vcpus[i] == 48);
    }
    {
        g_autoptr(VnRequest) r = vn_test_request(80, 8);
        g_autoptr(VnPlacement) p = NULL;
        r->interleave = VN_INTERLEAVE_WISH;
        p = vn_test_plan_ok(&h, r);
        g_assert_true(p->interleave);
        g_assert_true(p->self_overcommitted);
        g_assert_cmpuint(p->cells->len, ==, 2);
    }
    vn_test_host_clear(&h);
}

/* The shared vCPUs of one cell hold one bitmap, the cell's CPUs: 24
 * vCPUs on two 8-CPU nodes are 12 + 12, 12 pins of one bitmap each;
 * replacing one pin (as interleave and the cache domains do) leaves its
 * siblings whole (ASan and valgrind check the frees in CI). */
static void
test_shared_pins(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(24, 8);
    g_autoptr(VnPlacement) p = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 2, 64));
    p = vn_test_plan_ok(&h, r);
    g_assert_cmpuint(p->cells->len, ==, 2);
    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        const VnBitmap *first = g_ptr_array_index(p->vcpu_pins, cell->vcpu_first);
        g_assert_cmpuint(first->ref, ==, cell->n_vcpus);
        for (guint v = cell->vcpu_first; v < cell->vcpu_first + cell->n_vcpus; v++) {
            g_assert_true(g_ptr_array_index(p->vcpu_pins, v) == first);
            g_assert_true(vn_bitmap_equal(first, cell->cpus));
        }
    }
    vn_bitmap_free(p->vcpu_pins->pdata[0]);
    p->vcpu_pins->pdata[0] = vn_bitmap_new(h.t->n_cpu_ids);
    g_assert_true(vn_bitmap_equal(p->vcpu_pins->pdata[1], g_array_index(p->cells, VnCell, 0).cpus));
    g_assert_cmpuint(((VnBitmap *)p->vcpu_pins->pdata[1])->ref, ==, 11);
    vn_test_host_clear(&h);
}

/* Split fill against the oracle of vn_test_assert_filled() on loaded
 * hosts: every split VM holds as much as one node can, vCPUs follow
 * memory; the node count and distance stay the oracle's. */
static void
check_fill_against_oracle(VnShape shape, guint nodes, guint32 seed)
{
    g_autoptr(GRand) rand = g_rand_new_with_seed(seed);
    guint split = 0;

    for (guint round = 0; round < 80; round++) {
        VnTestHost h;
        g_autoptr(VnRequest) r = NULL;
        g_autoptr(VnPlacement) p = NULL;
        guint k = 0, dist = 0;

        vn_test_host_init(&h, vn_test_topology(shape, nodes, 4, 2, 16));
        g_assert_cmpint(h.policy->split, ==, VN_SPLIT_FILL);
        for (guint i = 0; i < h.t->n_nodes; i++) {
            h.load->nodes[i].committed_memory_kib = (guint64)g_rand_int_range(rand, 0, 12) * GIB;
            h.load->nodes[i].committed_vcpus = (guint)g_rand_int_range(rand, 0, 30);
        }
        r = vn_test_request((guint)g_rand_int_range(rand, 2, 40),
                            (guint64)g_rand_int_range(rand, 6, 30));
        if (vn_test_oracle(&h, r, &k, &dist)) {
            p = vn_test_plan_ok(&h, r);
            vn_test_assert_invariants(&h, r, p);
            g_assert_cmpuint(vn_test_nodes_used(p), ==, k);
            g_assert_cmpuint(vn_test_placement_distance(&h, p), ==, dist);
            if (k > 1) {
                vn_test_assert_filled(&h, r, p);
                split++;
            }
        }
        vn_test_host_clear(&h);
    }
    g_test_message("%u of 80 requests split", split);
    g_assert_cmpuint(split, >=, 20);
}

static void
test_fill_oracle_2s(void)
{
    check_fill_against_oracle(VN_SHAPE_INTEL_2S, 0, 41);
}

static void
test_fill_oracle_epyc(void)
{
    check_fill_against_oracle(VN_SHAPE_EPYC_2S_NPS4, 0, 42);
}

static void
test_fill_oracle_16(void)
{
    check_fill_against_oracle(VN_SHAPE_HIER, 16, 43);
}

static void
check_against_oracle_with(VnShape shape, guint nodes, guint32 seed, VnBalance balance)
{
    g_autoptr(GRand) rand = g_rand_new_with_seed(seed);

    for (guint round = 0; round < 60; round++) {
        VnTestHost h;
        g_autoptr(VnRequest) r = NULL;
        g_autoptr(VnPlacement) p = NULL;
        g_autoptr(GError) error = NULL;
        guint k = 0, dist = 0;
        gboolean fits;

        vn_test_host_init(&h, vn_test_topology(shape, nodes, 4, 2, 16));
        h.policy->balance = balance;
        for (guint i = 0; i < h.t->n_nodes; i++) {
            h.load->nodes[i].committed_memory_kib = (guint64)g_rand_int_range(rand, 0, 15) * GIB;
            h.load->nodes[i].committed_vcpus = (guint)g_rand_int_range(rand, 0, 30);
        }
        r = vn_test_request((guint)g_rand_int_range(rand, 1, 40),
                            (guint64)g_rand_int_range(rand, 1, 60));
        fits = vn_test_oracle(&h, r, &k, &dist);
        p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
        if (!fits) {
            g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
            g_assert_null(p);
        } else {
            g_assert_no_error(error);
            vn_test_assert_invariants(&h, r, p);
            g_assert_cmpuint(vn_test_nodes_used(p), ==, k);
            g_assert_cmpuint(vn_test_placement_distance(&h, p), ==, dist);
        }
        vn_test_host_clear(&h);
    }
}

static void
check_against_oracle(VnShape shape, guint nodes, guint32 seed)
{
    check_against_oracle_with(shape, nodes, seed, VN_BALANCE_LOAD);
}

/* Memory packing changes only the tie-break: the same fewest nodes and
 * smallest distance, on the same hosts and requests. */
static void
check_packing_against_oracle(VnShape shape, guint nodes, guint32 seed)
{
    check_against_oracle_with(shape, nodes, seed, VN_BALANCE_MEMORY_PACKING);
}

/* So does keep-hole. */
static void
check_hole_against_oracle(VnShape shape, guint nodes, guint32 seed)
{
    check_against_oracle_with(shape, nodes, seed, VN_BALANCE_KEEP_HOLE);
}

/* Guest cells of their own, uneven sizes, against the oracle (see
 * vn_test_check_sized_plan()). */
static void
check_sized_against_oracle(VnShape shape, guint nodes, guint32 seed)
{
    g_autoptr(GRand) rand = g_rand_new_with_seed(seed);
    VnTestSizedCounts counts = { 0 };

    for (guint round = 0; round < 60; round++) {
        VnTestHost h;
        g_autoptr(VnRequest) r = NULL;

        vn_test_host_init(&h, vn_test_topology(shape, nodes, 4, 2, 16));
        for (guint i = 0; i < h.t->n_nodes; i++) {
            h.load->nodes[i].committed_memory_kib = (guint64)g_rand_int_range(rand, 0, 15) * GIB;
            h.load->nodes[i].committed_vcpus = (guint)g_rand_int_range(rand, 0, 30);
        }
        r = vn_test_sized_request(rand, 4, 12, 14);
        vn_test_check_sized_plan(&h, r, &counts);
        vn_test_host_clear(&h);
    }
    vn_test_sized_counts_check(&counts);
    g_assert_cmpuint(counts.exact, >, 0);
}

static void
test_oracle_2s(void)
{
    check_against_oracle(VN_SHAPE_INTEL_2S, 2, 1);
}
static void
test_oracle_sized_2s(void)
{
    check_sized_against_oracle(VN_SHAPE_INTEL_2S, 2, 11);
}
static void
test_oracle_sized_epyc(void)
{
    check_sized_against_oracle(VN_SHAPE_EPYC_2S_NPS4, 8, 12);
}
static void
test_oracle_sized_8s(void)
{
    check_sized_against_oracle(VN_SHAPE_INTEL_8S, 8, 13);
}
static void
test_oracle_sized_16(void)
{
    check_sized_against_oracle(VN_SHAPE_HIER, 16, 14);
}
static void
test_oracle_epyc(void)
{
    check_against_oracle(VN_SHAPE_EPYC_2S_NPS4, 8, 2);
}
static void
test_oracle_8s(void)
{
    check_against_oracle(VN_SHAPE_INTEL_8S, 8, 3);
}
static void
test_oracle_16(void)
{
    check_against_oracle(VN_SHAPE_HIER, 16, 4);
}
static void
test_oracle_packing_2s(void)
{
    check_packing_against_oracle(VN_SHAPE_INTEL_2S, 2, 1);
}
static void
test_oracle_packing_epyc(void)
{
    check_packing_against_oracle(VN_SHAPE_EPYC_2S_NPS4, 8, 2);
}
static void
test_oracle_packing_8s(void)
{
    check_packing_against_oracle(VN_SHAPE_INTEL_8S, 8, 3);
}
static void
test_oracle_packing_16(void)
{
    check_packing_against_oracle(VN_SHAPE_HIER, 16, 4);
}
static void
test_oracle_hole_epyc(void)
{
    check_hole_against_oracle(VN_SHAPE_EPYC_2S_NPS4, 8, 2);
}
static void
test_oracle_hole_16(void)
{
    check_hole_against_oracle(VN_SHAPE_HIER, 16, 4);
}

static void
test_dedicated_never_shared(void)
{
    VnTestHost h;
    g_autoptr(VnBitmap) seen = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    vn_bitmap_set(h.policy->reserved_cpus, 0);
    vn_bitmap_set(h.policy->reserved_cpus, 16); /* core 0's sibling */
    seen = vn_bitmap_new(h.t->n_cpu_ids);
    for (guint vm = 0; vm < 7; vm++) {
        g_autoptr(VnRequest) r = vn_test_request(4, 4);
        g_autoptr(VnPlacement) p = NULL;
        r->dedicated = TRUE;
        p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        for (guint v = 0; v < p->vcpu_pins->len; v++) {
            const VnBitmap *pin = g_ptr_array_index(p->vcpu_pins, v);
            g_assert_cmpuint(vn_bitmap_count(pin), ==, 1);
            g_assert_false(vn_bitmap_intersects(pin, seen));
            vn_bitmap_or(seen, pin);
        }
        g_assert_cmpuint(p->threads_per_core, ==, 2); /* whole cores: siblings as guest threads */
        vn_load_commit(h.load, h.t, h.policy, r, p);
    }
    /* 32 CPUs - 2 reserved - 28 used = 2 left: a 4-vCPU dedicated VM no longer fits */
    {
        g_autoptr(VnRequest) r = vn_test_request(4, 4);
        g_autoptr(GError) error = NULL;
        g_autoptr(GPtrArray) reasons = NULL;
        r->dedicated = TRUE;
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, &reasons, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        g_assert_nonnull(reasons);
        g_assert_cmpuint(reasons->len, >=, 3);
    }
    vn_test_host_clear(&h);
}

static void
test_smt_isolate_require(void)
{
    VnTestHost h;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 2, 64));
    {
        g_autoptr(VnRequest) r = vn_test_request(3, 4);
        g_autoptr(VnPlacement) p = NULL;
        r->dedicated = TRUE;
        r->smt = VN_SMT_ISOLATE;
        p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(vn_bitmap_count(p->isolated_cpus), ==, 3);
        g_assert_cmpuint(p->threads_per_core, ==, 1);
        for (guint v = 0; v < 3; v++)
            for (guint w = v + 1; w < 3; w++) {
                const VnBitmap *a = g_ptr_array_index(p->vcpu_pins, v),
                               *b = g_ptr_array_index(p->vcpu_pins, w);
                g_assert_cmpuint(vn_topology_cpu(h.t, (guint)vn_bitmap_next(a, -1))->core, !=,
                                 vn_topology_cpu(h.t, (guint)vn_bitmap_next(b, -1))->core);
            }
        vn_load_commit(h.load, h.t, h.policy, r, p);
    }
    {
        g_autoptr(VnRequest) r = vn_test_request(3, 4);
        g_autoptr(GError) error = NULL;
        r->dedicated = TRUE;
        r->smt = VN_SMT_REQUIRE;
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
    }
    {
        g_autoptr(VnRequest) r = vn_test_request(2, 4);
        g_autoptr(VnPlacement) p = NULL;
        r->dedicated = TRUE;
        r->smt = VN_SMT_REQUIRE;
        p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(p->threads_per_core, ==, 2);
        g_assert_cmpuint(
            vn_topology_cpu(h.t, (guint)vn_bitmap_next(g_ptr_array_index(p->vcpu_pins, 0), -1))
                ->core,
            ==,
            vn_topology_cpu(h.t, (guint)vn_bitmap_next(g_ptr_array_index(p->vcpu_pins, 1), -1))
                ->core);
    }
    vn_test_host_clear(&h);
}

static void
test_reserved_never_handed_out(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(6, 8);
    g_autoptr(VnPlacement) p = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 1, 64));
    vn_bitmap_set(h.policy->reserved_cpus, 0);
    vn_bitmap_set(h.policy->reserved_cpus, 4);
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_false(vn_bitmap_intersects(p->emulator_cpus, h.policy->reserved_cpus));
    vn_test_host_clear(&h);
}

static gboolean
has_reason(GPtrArray *reasons, const gchar *text)
{
    for (guint i = 0; reasons && i < reasons->len; i++)
        if (strstr(g_ptr_array_index(reasons, i), text))
            return TRUE;
    return FALSE;
}

static gboolean
pins_within(const VnPlacement *p, const VnBitmap *set)
{
    g_autoptr(VnBitmap) out = vn_bitmap_copy(p->emulator_cpus);

    for (guint v = 0; v < p->vcpu_pins->len; v++)
        vn_bitmap_or(out, g_ptr_array_index(p->vcpu_pins, v));
    for (guint i = 0; i < p->iothreads->len; i++)
        vn_bitmap_or(out, g_array_index(p->iothreads, VnIOThreadPin, i).cpus);
    vn_bitmap_and_not(out, set);
    return vn_bitmap_is_empty(out);
}

/* A VM another manager allows only some CPUs (Nova's cpu_shared_set in
 * <vcpu cpuset>): placed on the node those CPUs are on even when the
 * other node is idler, every pin inside the set, and the reasons say
 * so; a set that leaves no room is no fit, node by node. */
static void
test_allowed_cpus(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(2, 4);
    g_autoptr(GPtrArray) reasons = NULL;
    g_autoptr(GError) error = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 1, 64)); /* 0-3, 4-7 */
    h.load->nodes[1].committed_memory_kib = 0;
    h.load->nodes[0].committed_memory_kib = 30 * GIB; /* node 1 is the idler one */
    r->iothreads = 1;
    r->allowed_cpus = vn_bitmap_new(64); /* wider than the host: CPU 9 below */
    vn_bitmap_set(r->allowed_cpus, 1);
    vn_bitmap_set(r->allowed_cpus, 2);
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 1);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 0);
        g_assert_true(pins_within(p, r->allowed_cpus));
        g_assert_true(has_reason(p->reasons, "allowed CPU set: 2 CPUs of this host, on node 0; "
                                             "no cell goes elsewhere"));
    }
    /* without the set, the idler node */
    {
        g_autoptr(VnBitmap) set = g_steal_pointer(&r->allowed_cpus);
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 1);
        r->allowed_cpus = g_steal_pointer(&set);
    }
    /* a set on both nodes: a dedicated VM of 3 vCPUs gets exactly its CPUs */
    vn_bitmap_set(r->allowed_cpus, 5);
    r->vcpus = 3;
    r->dedicated = TRUE;
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 2);
        g_assert_true(pins_within(p, r->allowed_cpus));
        g_assert_true(has_reason(p->reasons, "allowed CPU set: 3 CPUs of this host, on nodes 0,1"));
    }
    /* one more dedicated vCPU than the set has CPUs: no fit, and why */
    r->vcpus = 4;
    g_assert_null(vn_plan(h.t, h.load, h.policy, r, &reasons, &error));
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_assert_nonnull(strstr(error->message, "within the allowed CPU set"));
    g_assert_true(has_reason(reasons, "allowed CPU set: 3 CPUs of this host, on nodes 0,1"));
    g_assert_true(has_reason(reasons, "node 1: room for 1 dedicated vCPUs, needs 4"));
    g_clear_pointer(&reasons, g_ptr_array_unref);
    g_clear_error(&error);
    /* a set of CPUs this host does not have */
    vn_bitmap_clear_all(r->allowed_cpus);
    vn_bitmap_set(r->allowed_cpus, 9);
    r->vcpus = 1;
    r->dedicated = FALSE;
    g_assert_null(vn_plan(h.t, h.load, h.policy, r, &reasons, &error));
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_assert_true(has_reason(reasons, "allowed CPU set: no CPU of this host is in it"));
    g_assert_true(has_reason(reasons, "node 0: none of its CPUs is in the VM's allowed CPU set"));
    vn_test_host_clear(&h);
}

static void
test_memory_only_node(void)
{
    VnTestHost h;
    VnTopology *t = vn_topology_new("dram + cxl");
    g_autoptr(VnRequest) r = vn_test_request(2, 20);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GError) error = NULL;

    vn_topology_add_node(t, 0, 16 * GIB);
    vn_topology_add_node(t, 1, 64 * GIB); /* CXL: memory, no CPUs */
    for (guint c = 0; c < 4; c++)
        vn_topology_add_cpu(t, c, 0, c, 0);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_true(t->distances_assumed);
    vn_test_host_init(&h, t);
    /* 20 GiB only fit with the CXL node, which is not used unless asked */
    g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_clear_error(&error);
    r->memory_kib = 8 * GIB;
    p = vn_test_plan_ok(&h, r);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 0);
    g_clear_pointer(&p, vn_placement_free);
    /* asked for: 20 GiB = a cell with the vCPUs on node 0 + a CPU-less cell on node 1 */
    r->memory_kib = 20 * GIB;
    r->allow_memory_only = TRUE;
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).n_vcpus, ==, 2);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).node_os_id, ==, 1);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).n_vcpus, ==, 0);
    g_assert_true(vn_bitmap_is_empty(g_array_index(p->cells, VnCell, 1).cpus));
    g_assert_true(vn_bitmap_test(p->emulator_cpus, 0));
    vn_test_host_clear(&h);
}

/* A CPU id past VN_TOPOLOGY_MAX_CPU_ID is refused before the per-id tables
 * are sized by it: hwloc gives a PU without os_index as (unsigned)-1, and
 * id + 1 wrapped to 0 (a SEGV, found by fuzz-hwloc-xml). */
static void
test_cpu_id_too_large(void)
{
    const guint ids[] = { G_MAXUINT, VN_TOPOLOGY_MAX_CPU_ID };

    for (guint i = 0; i < G_N_ELEMENTS(ids); i++) {
        g_autoptr(VnTopology) t = vn_topology_new("t");
        g_autoptr(GError) error = NULL;

        vn_topology_add_node(t, 0, 16 * GIB);
        vn_topology_add_cpu(t, 0, 0, 0, 0);
        vn_topology_add_cpu(t, ids[i], 0, 1, 0);
        g_assert_false(vn_topology_finish(t, &error));
        g_assert_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID);
        g_assert_nonnull(strstr(error->message, "CPU id"));
    }
}

static void
test_shared_cpu_nodes(void)
{
    VnTestHost h;
    VnTopology *t = vn_topology_new("dram + hbm sharing cpus");
    g_autoptr(GError) error = NULL;

    for (guint n = 0; n < 4; n++)
        vn_topology_add_node(t, n, 16 * GIB);
    for (guint c = 0; c < 8; c++) {
        vn_topology_add_cpu(t, c, c < 4 ? 0 : 2, c, c / 4);
    }
    /* nodes 1 and 3 are HBM of packages 0 and 1: same CPUs as 0 and 2 */
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_cmpuint(vn_topology_node_ncpus(t, 0), ==, 4);
    g_assert_cmpuint(vn_topology_node_ncpus(t, 1), ==, 0);
    vn_test_host_init(&h, t);
    {
        g_autoptr(VnRequest) r = vn_test_request(8, 20);
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        guint total = 0;
        vn_test_assert_invariants(&h, r, p);
        for (guint i = 0; i < p->cells->len; i++)
            total += vn_bitmap_count(g_array_index(p->cells, VnCell, i).cpus);
        g_assert_cmpuint(total, ==, 8); /* no CPU counted twice */
    }
    vn_test_host_clear(&h);
}

static void
test_devices(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(4, 8);
    g_autoptr(VnPlacement) p = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 8, 2, 32));
    h.load->nodes[6].committed_memory_kib = 6 * GIB; /* a bit busier */
    vn_request_add_device(r, 6, 1, "hostdev 0000:c1:00.0");
    r->iothreads = 2;
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 6);
    vn_test_host_clear(&h);
}

static void
test_fixed_cells(void)
{
    VnTestHost h;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 8, 2, 32));
    { /* fits on one node: both guest cells on it */
        g_autoptr(VnRequest) r = vn_test_request(4, 8);
        g_autoptr(VnPlacement) p = NULL;
        r->cells = 2;
        p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 2);
        g_assert_cmpuint(vn_test_nodes_used(p), ==, 1);
    }
    { /* 4 cells of 20 GiB: two per node on a distance-12 pair */
        g_autoptr(VnRequest) r = vn_test_request(8, 80);
        g_autoptr(VnPlacement) p = NULL;
        r->cells = 4;
        p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(p->cells->len, ==, 4);
        g_assert_cmpuint(vn_test_nodes_used(p), ==, 4);
        g_assert_cmpuint(vn_test_placement_distance(&h, p), ==, 6 * 12);
    }
    vn_test_host_clear(&h);
}

static VnTopology *
two_nodes_with_1g_pages(guint64 free0, guint64 free1)
{
    VnTopology *t = vn_topology_new("2 nodes with 1 GiB pages");
    guint64 free_pages[2] = { free0, free1 };

    for (guint n = 0; n < 2; n++) {
        vn_topology_add_node(t, n, 64 * GIB);
        vn_topology_add_hugepages(t, n, GIB, 16, free_pages[n]);
    }
    for (guint c = 0; c < 16; c++)
        vn_topology_add_cpu(t, c, c / 8, c, c / 8);
    for (guint a = 0; a < 2; a++)
        for (guint b = 0; b < 2; b++)
            vn_topology_set_distance(t, a, b, a == b ? 10 : 21);
    g_assert_true(vn_topology_finish(t, NULL));
    return t;
}

static void
test_hugepages(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = vn_test_request(4, 8);
    g_autoptr(GError) error = NULL;

    r->hugepage_kib = GIB;
    /* no hugepages configured: refused, and the reasons say so */
    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 8, 2, 64));
    {
        g_autoptr(GPtrArray) reasons = NULL;
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, &reasons, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        g_assert_nonnull(strstr(g_ptr_array_index(reasons, 2), "hugepages"));
        g_clear_error(&error);
    }
    vn_test_host_clear(&h);

    /* node 1 has the free pages */
    vn_test_host_init(&h, two_nodes_with_1g_pages(2, 12));
    {
        g_autoptr(VnPlacement) p = vn_test_plan_ok(&h, r);
        vn_test_assert_invariants(&h, r, p);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 1);
        g_assert_cmpuint(p->hugepage_kib, ==, GIB);
        vn_load_commit(h.load, h.t, h.policy, r, p);
        g_assert_cmpuint(vn_load_get_hugepages(h.load, 1, GIB), ==, 8);
    }
    /* min(free 12, 16 - 8 committed) = 8 pages left on node 1, 2 on node 0:
     * a 10 GiB VM splits unevenly, 2 + 8 */
    {
        g_autoptr(VnRequest) r2 = vn_test_request(4, 10);
        g_autoptr(VnPlacement) p = NULL;
        r2->hugepage_kib = GIB;
        p = vn_test_plan_ok(&h, r2);
        vn_test_assert_invariants(&h, r2, p);
        g_assert_cmpuint(p->cells->len, ==, 2);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).memory_kib, ==, 2 * GIB);
        g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).memory_kib, ==, 8 * GIB);
    }
    /* memory not a multiple of the page size: invalid */
    r->memory_kib = 8 * GIB + 1024;
    g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
    vn_test_host_clear(&h);
}

static void
test_invalid(void)
{
    VnTestHost h;
    g_autoptr(GError) error = NULL;

    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 1, 16));
    {
        g_autoptr(VnRequest) r = vn_test_request(0, 1);
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
        g_clear_error(&error);
    }
    {
        g_autoptr(VnRequest) r = vn_test_request(2, 1);
        vn_request_add_device(r, 7, 0, "hostdev 0000:01:00.0");
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
        g_assert_nonnull(strstr(error->message, "node 7"));
        g_clear_error(&error);
    }
    { /* more than the whole host: no fit, every node explained */
        g_autoptr(VnRequest) r = vn_test_request(2, 100);
        g_autoptr(GPtrArray) reasons = NULL;
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, &reasons, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        g_assert_cmpuint(reasons->len, ==, 4);
        g_assert_nonnull(strstr(g_ptr_array_index(reasons, 2), "node 0: "));
        g_assert_nonnull(strstr(g_ptr_array_index(reasons, 2), "needs 100.0 GiB"));
    }
    vn_test_host_clear(&h);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plan/fit/one-node", test_one_node);
    g_test_add_func("/plan/topology/cpu-id-too-large", test_cpu_id_too_large);
    g_test_add_func("/plan/fit/least-loaded", test_least_loaded);
    g_test_add_func("/plan/fit/spread", test_spread);
    g_test_add_func("/plan/fit/search-from-last", test_search_from_last);
    g_test_add_func("/plan/fit/crowded-cpus", test_crowded_cpus);
    g_test_add_func("/plan/fit/page-cache-is-room", test_page_cache_is_room);
    g_test_add_func("/plan/split/epyc-nearest-pair", test_larger_than_node_epyc);
    g_test_add_func("/plan/capacity/overhead-share-per-count", test_overhead_share_per_count);
    g_test_add_func("/plan/split/levels-crowding", test_split_levels_crowding);
    g_test_add_func("/plan/split/wide-vm", test_wide_vm);
    g_test_add_func("/plan/pins/shared", test_shared_pins);
    g_test_add_func("/plan/split/fill/intel-2s", test_fill_oracle_2s);
    g_test_add_func("/plan/split/fill/epyc-nps4", test_fill_oracle_epyc);
    g_test_add_func("/plan/split/fill/16-node", test_fill_oracle_16);
    g_test_add_func("/plan/oracle/intel-2s", test_oracle_2s);
    g_test_add_func("/plan/oracle/epyc-nps4", test_oracle_epyc);
    g_test_add_func("/plan/oracle/intel-8s", test_oracle_8s);
    g_test_add_func("/plan/oracle/16-node", test_oracle_16);
    g_test_add_func("/plan/oracle/memory-packing/intel-2s", test_oracle_packing_2s);
    g_test_add_func("/plan/oracle/memory-packing/epyc-nps4", test_oracle_packing_epyc);
    g_test_add_func("/plan/oracle/memory-packing/intel-8s", test_oracle_packing_8s);
    g_test_add_func("/plan/oracle/memory-packing/16-node", test_oracle_packing_16);
    g_test_add_func("/plan/oracle/keep-hole/epyc-nps4", test_oracle_hole_epyc);
    g_test_add_func("/plan/oracle/keep-hole/16-node", test_oracle_hole_16);
    g_test_add_func("/plan/oracle/sized-cells/intel-2s", test_oracle_sized_2s);
    g_test_add_func("/plan/oracle/sized-cells/epyc-nps4", test_oracle_sized_epyc);
    g_test_add_func("/plan/oracle/sized-cells/intel-8s", test_oracle_sized_8s);
    g_test_add_func("/plan/oracle/sized-cells/16-node", test_oracle_sized_16);
    g_test_add_func("/plan/cpus/dedicated-never-shared", test_dedicated_never_shared);
    g_test_add_func("/plan/cpus/smt-isolate-require", test_smt_isolate_require);
    g_test_add_func("/plan/cpus/reserved", test_reserved_never_handed_out);
    g_test_add_func("/plan/cpus/allowed-set", test_allowed_cpus);
    g_test_add_func("/plan/nodes/memory-only", test_memory_only_node);
    g_test_add_func("/plan/nodes/shared-cpus", test_shared_cpu_nodes);
    g_test_add_func("/plan/devices/near", test_devices);
    g_test_add_func("/plan/cells/fixed", test_fixed_cells);
    g_test_add_func("/plan/memory/hugepages", test_hugepages);
    g_test_add_func("/plan/invalid", test_invalid);
    return g_test_run();
}
