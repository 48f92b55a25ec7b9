/* test-rebalance.c: the rebalancer's decisions on recorded load. */
#include "vn-rebalance.h"
#include "vn-test-plan.h"
#include "vn-test-topologies.h"

#include <string.h>

typedef struct {
    VnTestHost h;
    GPtrArray *vms;
    VnRebalanceLimits lim;
} Fixture;

static void
fixture_init(Fixture *f, VnTopology *t)
{
    vn_test_host_init(&f->h, t);
    f->vms = g_ptr_array_new_with_free_func((GDestroyNotify)vn_resident_free);
    vn_rebalance_limits_init(&f->lim, 100000);
}

static void
fixture_clear(Fixture *f)
{
    g_ptr_array_unref(f->vms);
    vn_test_host_clear(&f->h);
}

/* A VM with one cell per (node, vcpus, GiB) triple; its load is committed. */
static VnResident *
add_vm(Fixture *f, const gchar *name, VnPriority prio, gint64 last_move, guint n_cells, ...)
{
    VnResident *r = vn_resident_new(name, prio, FALSE, last_move);
    va_list ap;

    va_start(ap, n_cells);
    for (guint i = 0; i < n_cells; i++) {
        guint node = va_arg(ap, guint), vcpus = va_arg(ap, guint), gib = va_arg(ap, guint);
        vn_resident_add_cell(r, i, node, vcpus, gib * GIB);
        f->h.load->nodes[node].committed_vcpus += vcpus;
        f->h.load->nodes[node].committed_memory_kib += gib * GIB;
        if (prio == VN_PRIORITY_HIGH)
            f->h.load->nodes[node].committed_high_vcpus += vcpus;
    }
    va_end(ap);
    g_ptr_array_add(f->vms, r);
    return r;
}

static GPtrArray *
propose(Fixture *f, GPtrArray **ret_notes)
{
    return vn_rebalance_propose(f->h.t, f->h.load, f->h.policy, f->vms, &f->lim, ret_notes);
}

static void
test_balanced(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL, notes = NULL;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    for (guint n = 0; n < 4; n++)
        add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, n, 4, 4);
    moves = propose(&f, &notes);
    g_assert_cmpuint(moves->len, ==, 0);
    g_assert_nonnull(strstr(g_ptr_array_index(notes, 0), "balanced"));
    fixture_clear(&f);
}

static void
test_hot_node(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "a", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "b", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "c", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "d", VN_PRIORITY_NORMAL, 0, 1, 1, 1, 1);
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 2);
    for (guint i = 0; i < moves->len; i++) {
        const VnMove *m = g_ptr_array_index(moves, i);
        g_assert_cmpuint(m->from_node, ==, 0);
        g_assert_cmpuint(m->to_node, !=, 0);
        g_assert_cmpfloat(m->imbalance_after, <, m->imbalance_before);
    }
    /* two different VMs, two different targets (2 and 3 are empty) */
    g_assert_cmpstr(((VnMove *)g_ptr_array_index(moves, 0))->vm, !=,
                    ((VnMove *)g_ptr_array_index(moves, 1))->vm);
    g_assert_cmpuint(((VnMove *)g_ptr_array_index(moves, 0))->to_node, !=,
                     ((VnMove *)g_ptr_array_index(moves, 1))->to_node);
    fixture_clear(&f);
}

static void
test_cooldown_and_dedicated(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL, notes = NULL;
    VnResident *r;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "recent", VN_PRIORITY_NORMAL, f.lim.now - 10, 1, 0, 8, 8);
    r = add_vm(&f, "pinned", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    r->dedicated = TRUE;
    moves = propose(&f, &notes);
    g_assert_cmpuint(moves->len, ==, 0);
    g_assert_nonnull(strstr(g_ptr_array_index(notes, 0), "no movable cell"));
    /* once the cool-down is over the recent VM moves */
    f.lim.now += f.lim.cooldown_s;
    g_clear_pointer(&moves, g_ptr_array_unref);
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, >=, 1);
    g_assert_cmpstr(((VnMove *)g_ptr_array_index(moves, 0))->vm, ==, "recent");
    fixture_clear(&f);
}

static void
test_high_priority_last(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "gold", VN_PRIORITY_HIGH, 0, 1, 0, 6, 6);
    add_vm(&f, "bronze", VN_PRIORITY_LOW, 0, 1, 0, 6, 6);
    f.lim.max_moves = 1;
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 1);
    g_assert_cmpstr(((VnMove *)g_ptr_array_index(moves, 0))->vm, ==, "bronze");
    fixture_clear(&f);
}

static void
test_cells_stay_near(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;
    const VnMove *m;

    /* EPYC NPS4: nodes 0-3 one socket (12), 4-7 the other (32) */
    fixture_init(&f, vn_test_topology(VN_SHAPE_EPYC_2S_NPS4, 0, 4, 1, 16));
    add_vm(&f, "big", VN_PRIORITY_NORMAL, 0, 2, 0, 8, 10, 1, 8, 10);
    add_vm(&f, "filler", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 2);
    for (guint n = 2; n < 8; n++)
        add_vm(&f, "other", VN_PRIORITY_NORMAL, f.lim.now, 1, n, 2, 2);
    f.lim.max_moves = 1;
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 1);
    m = g_ptr_array_index(moves, 0);
    g_assert_cmpuint(m->from_node, ==, 0);
    /* whatever moves, a cell of "big" never leaves its socket */
    if (g_str_equal(m->vm, "big"))
        g_assert_cmpuint(m->to_node, <, 4);
    fixture_clear(&f);
}

static void
test_memory_budget(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "a", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 6);
    add_vm(&f, "b", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 6);
    f.lim.max_memory_kib = 4 * GIB; /* each cell is 6 GiB */
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 0);
    f.lim.max_memory_kib = 16 * GIB;
    g_clear_pointer(&moves, g_ptr_array_unref);
    moves = propose(&f, NULL);
    /* one move balances it; moving the second VM too would not help */
    g_assert_cmpuint(moves->len, ==, 1);
    fixture_clear(&f);
}

/* A lone VM on a node is no imbalance to fix: moving it moves the peak. */
static void
test_lone_vm_stays(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "a", VN_PRIORITY_NORMAL, 0, 1, 0, 8, 12);
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 0);
    fixture_clear(&f);
}

/* VMs another manager allows only some CPUs (VnResident.allowed_cpus)
 * move only to nodes with CPUs in their set, and not at all when the
 * set lies on their own node alone. */
static void
test_allowed_set(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL, stuck = NULL;
    const gchar *names[] = { "a", "b", "c" };

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16)); /* node n: 4n..4n+3 */
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        VnResident *r = add_vm(&f, names[i], VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
        r->allowed_cpus = vn_bitmap_new(f.h.t->n_cpu_ids);
        vn_bitmap_set(r->allowed_cpus, 1);  /* node 0 */
        vn_bitmap_set(r->allowed_cpus, 13); /* node 3 */
    }
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, >, 0);
    for (guint i = 0; i < moves->len; i++)
        g_assert_cmpuint(((VnMove *)g_ptr_array_index(moves, i))->to_node, ==, 3);
    for (guint i = 0; i < f.vms->len; i++)
        vn_bitmap_clear(((VnResident *)g_ptr_array_index(f.vms, i))->allowed_cpus, 13);
    stuck = propose(&f, NULL);
    g_assert_cmpuint(stuck->len, ==, 0);
    fixture_clear(&f);
}

/* Consolidation once balanced.  Four nodes of 4 CPUs and 16 GiB, one
 * VM of 1 vCPU and 4 GiB on each; "split" has a cell of 1 vCPU and 6 GiB
 * on node 0 and one of 1 vCPU and 2 GiB on node 1.  Utilisation
 * max(CPU, memory), CPUs overcommitted 4 times so memory decides: node 0
 * 10/16 = 0.625, node 1 6/16, nodes 2 and 3 4/16: the hottest 0.25 above
 * the mean (0.375).  Gathered on node 0 (its fullest), node 0 is at 12/16,
 * node 1 at 4/16: 0.375 above the same mean.  With a threshold of 0.5 the host is balanced before and
 * after: cell 1 moves to node 0.  With 0.3 it is balanced before but
 * gathering would make node 0 hot: nothing moves.  A VM cooling down stays. */
static void
test_consolidate(void)
{
    Fixture f;

    for (guint c = 0; c < 3; c++) {
        g_autoptr(GPtrArray) moves = NULL, notes = NULL;
        fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
        for (guint n = 0; n < 4; n++)
            add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, n, 1, 4);
        add_vm(&f, "split", VN_PRIORITY_NORMAL, c == 2 ? f.lim.now - 10 : 0, 2, 0, 1, 6, 1, 1, 2);
        f.lim.threshold = c == 1 ? 0.3 : 0.5;
        moves = propose(&f, &notes);
        if (c == 0) {
            const VnMove *m;
            g_assert_cmpuint(moves->len, ==, 1);
            m = g_ptr_array_index(moves, 0);
            g_assert_cmpstr(m->vm, ==, "split");
            g_assert_cmpuint(m->cell, ==, 1);
            g_assert_cmpuint(m->from_node, ==, 1);
            g_assert_cmpuint(m->to_node, ==, 0);
            g_assert_cmpuint(m->memory_kib, ==, 2 * GIB);
            g_assert_cmpfloat_with_epsilon(m->imbalance_before, 0.625 - 0.375, 1e-9);
            g_assert_cmpfloat_with_epsilon(m->imbalance_after, 0.75 - 0.375, 1e-9);
            g_assert_nonnull(strstr(m->reason, "consolidates split from 2 nodes onto node 0"));
        } else {
            g_assert_cmpuint(moves->len, ==, 0);
        }
        g_assert_nonnull(strstr(g_ptr_array_index(notes, 0), "balanced"));
        fixture_clear(&f);
    }
}

/* A VM of two 1 GiB cells on nodes `n0` and `n1`, each cell committing
 * `charge_gib` there (its memory and its share of the QEMU overhead, as
 * the ledger counts it). */
static void
add_charged(Fixture *f, guint n0, guint n1, guint charge_gib)
{
    VnResident *r = vn_resident_new("split", VN_PRIORITY_NORMAL, FALSE, 0);
    const guint nodes[] = { n0, n1 };

    for (guint i = 0; i < 2; i++) {
        vn_resident_add_cell(r, i, nodes[i], 1, GIB);
        vn_resident_set_cell_charge(r, charge_gib * GIB);
        f->h.load->nodes[nodes[i]].committed_vcpus += 1;
        f->h.load->nodes[nodes[i]].committed_memory_kib += charge_gib * GIB;
    }
    g_ptr_array_add(f->vms, r);
}

/* A moved cell takes its whole charge along (its QEMU overhead share
 * too), as the next round's load, from the ledger, counts it.  Four
 * nodes of 16 GiB; one VM on each of nodes 2 and 3; "split" has a 1 GiB
 * cell on node 0 and one on node 1.
 * With cells charging 4 GiB (3 GiB of overhead each) and 5 GiB VMs on
 * nodes 2 and 3: 4, 4, 5, 5 GiB, the hottest 0.5/16 above the mean of
 * 4.5.  Gathered, node 0 would hold 8 GiB, 3.5/16 = 0.22 above the mean:
 * hot, so nothing moves (counting the guest memory alone, 5 and 3 GiB,
 * it looked balanced); and from that state the next round would split it
 * again (one cell off node 0): the ping-pong the refusal avoids.
 * With cells charging 2 GiB and 3 GiB VMs: 2, 2, 3, 3; gathered 4, 0,
 * 3, 3, the hottest 1.5/16 above the mean of 2.5: within the threshold,
 * the 1 GiB cell moves, and the round after has nothing to do. */
static void
test_consolidate_takes_overhead(void)
{
    for (guint c = 0; c < 2; c++) {
        Fixture f;
        g_autoptr(GPtrArray) moves = NULL, notes = NULL, again = NULL;
        fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
        add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, 2, 1, c == 0 ? 5 : 3);
        add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, 3, 1, c == 0 ? 5 : 3);
        add_charged(&f, 0, 1, c == 0 ? 4 : 2);
        moves = propose(&f, &notes);
        g_assert_nonnull(strstr(g_ptr_array_index(notes, 0), "balanced"));
        if (c == 0) {
            g_assert_cmpuint(moves->len, ==, 0);
        } else {
            const VnMove *m;
            g_assert_cmpuint(moves->len, ==, 1);
            m = g_ptr_array_index(moves, 0);
            g_assert_cmpstr(m->vm, ==, "split");
            g_assert_cmpuint(m->from_node, ==, 1);
            g_assert_cmpuint(m->to_node, ==, 0);
            g_assert_cmpuint(m->memory_kib, ==, GIB);
            g_assert_cmpfloat_with_epsilon(m->imbalance_before, 0.5 / 16, 1e-9);
            g_assert_cmpfloat_with_epsilon(m->imbalance_after, 1.5 / 16, 1e-9);
        }
        fixture_clear(&f);

        /* the VM gathered on node 0: the next round */
        fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
        add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, 2, 1, c == 0 ? 5 : 3);
        add_vm(&f, "vm", VN_PRIORITY_NORMAL, 0, 1, 3, 1, c == 0 ? 5 : 3);
        add_charged(&f, 0, 0, c == 0 ? 4 : 2);
        again = propose(&f, NULL);
        g_assert_cmpuint(again->len, ==, c == 0 ? 1 : 0);
        if (c == 0)
            g_assert_cmpuint(((VnMove *)g_ptr_array_index(again, 0))->from_node, ==, 0);
        fixture_clear(&f);
    }
}

/* A hot node on a host the placement packs (four nodes of 16 GiB, 4 CPUs
 * each; 5 % headroom): node 0 holds three 4 GiB VMs (utilisation 0.75),
 * nodes 1 and 2 8 GiB, node 3 2 GiB, so the host's memory is 30/64 + 5 %
 * = 51.9 % committed and node 0 is 0.75 - 0.47 = 28 points above the
 * mean.  Adaptive (the default) packs from 50 % on: the node is left as
 * it is, and the note says why.  With balance load the same host spreads;
 * with memory-packing chosen outright a host under half committed stays
 * packed too. */
static void
add_packed_host(Fixture *f)
{
    add_vm(f, "a", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(f, "b", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(f, "c", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(f, "d", VN_PRIORITY_NORMAL, 0, 1, 1, 2, 8);
    add_vm(f, "e", VN_PRIORITY_NORMAL, 0, 1, 2, 2, 8);
    add_vm(f, "f", VN_PRIORITY_NORMAL, 0, 1, 3, 1, 2);
}

static void
test_packed_host(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL, notes = NULL, spread = NULL, light = NULL;
    g_autoptr(GPtrArray) light_notes = NULL;
    gdouble share;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_packed_host(&f);
    share = vn_policy_committed_share(f.h.policy, f.h.t, f.h.load);
    /* (30 GiB + 4 x 16 GiB / 100 x 5) / 64 GiB, the headroom in whole KiB */
    g_assert_cmpfloat_with_epsilon(share, (30.0 * GIB + 4 * (16 * GIB / 100 * 5)) / (64.0 * GIB),
                                   1e-12);
    g_assert_cmpfloat(share, >=, VN_BALANCE_ADAPTIVE_PACK_AT);
    g_assert_cmpint(vn_policy_balance_at(f.h.policy, share), ==, VN_BALANCE_MEMORY_PACKING);
    moves = propose(&f, &notes);
    g_assert_cmpuint(moves->len, ==, 0);
    g_assert_cmpstr(g_ptr_array_index(notes, 0), ==,
                    "packed (host memory 52% committed, at least 50%: balance adaptive packs "
                    "memory): node 0 is 28 points of utilisation above the mean, left so, whole "
                    "nodes stay free for big VMs; cells move between nodes only to put a split "
                    "VM back on one node");

    f.h.policy->balance = VN_BALANCE_LOAD;
    g_assert_cmpint(vn_policy_balance_at(f.h.policy, share), ==, VN_BALANCE_LOAD);
    spread = propose(&f, NULL);
    g_assert_cmpuint(spread->len, >=, 1);
    g_assert_cmpuint(((VnMove *)g_ptr_array_index(spread, 0))->from_node, ==, 0);
    fixture_clear(&f);

    /* node 1's and node 2's VMs gone: 14/64 + 5 % = 27 % committed, node 0
     * still hot; adaptive spreads, memory-packing chosen outright does not */
    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "a", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "b", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "c", VN_PRIORITY_NORMAL, 0, 1, 0, 4, 4);
    add_vm(&f, "f", VN_PRIORITY_NORMAL, 0, 1, 3, 1, 2);
    g_assert_cmpfloat(vn_policy_committed_share(f.h.policy, f.h.t, f.h.load), <,
                      VN_BALANCE_ADAPTIVE_PACK_AT);
    light = propose(&f, NULL);
    g_assert_cmpuint(light->len, >=, 1);
    g_assert_cmpuint(((VnMove *)g_ptr_array_index(light, 0))->from_node, ==, 0);
    f.h.policy->balance = VN_BALANCE_MEMORY_PACKING;
    g_clear_pointer(&light, g_ptr_array_unref);
    light = propose(&f, &light_notes);
    g_assert_cmpuint(light->len, ==, 0);
    g_assert_nonnull(
        strstr(g_ptr_array_index(light_notes, 0), "packed (balance memory-packing): node 0 is"));
    fixture_clear(&f);
}

/* Consolidation goes on on a packed host: node 0 holds a 9 GiB VM and 2 GiB
 * of "s", whose other 3 GiB are on node 1 with a 5 GiB VM; nodes 2 and 3
 * hold 8 and 7 GiB (34/64 + 5 % = 58 % committed).  Node 0 (11/16) is
 * 15.6 points above the mean (8.5/16): hot, but left so; "s" gathering on
 * node 1 leaves node 1 at 10/16, 9.4 points above the mean, within the
 * threshold, so its cell 0 moves there. */
static void
test_packed_host_consolidates(void)
{
    Fixture f;
    g_autoptr(GPtrArray) moves = NULL;
    const VnMove *m;

    fixture_init(&f, vn_test_topology(VN_SHAPE_HIER, 4, 4, 1, 16));
    add_vm(&f, "x", VN_PRIORITY_NORMAL, 0, 1, 0, 1, 9);
    add_vm(&f, "s", VN_PRIORITY_NORMAL, 0, 2, 0, 1, 2, 1, 1, 3);
    add_vm(&f, "y", VN_PRIORITY_NORMAL, 0, 1, 1, 1, 5);
    add_vm(&f, "z", VN_PRIORITY_NORMAL, 0, 1, 2, 1, 8);
    add_vm(&f, "w", VN_PRIORITY_NORMAL, 0, 1, 3, 1, 7);
    g_assert_cmpfloat(vn_policy_committed_share(f.h.policy, f.h.t, f.h.load), >=,
                      VN_BALANCE_ADAPTIVE_PACK_AT);
    moves = propose(&f, NULL);
    g_assert_cmpuint(moves->len, ==, 1);
    m = g_ptr_array_index(moves, 0);
    g_assert_cmpstr(m->vm, ==, "s");
    g_assert_cmpuint(m->cell, ==, 0);
    g_assert_cmpuint(m->from_node, ==, 0);
    g_assert_cmpuint(m->to_node, ==, 1);
    g_assert_cmpfloat_with_epsilon(m->imbalance_before, 11.0 / 16 - 8.5 / 16, 1e-9);
    g_assert_cmpfloat_with_epsilon(m->imbalance_after, 10.0 / 16 - 8.5 / 16, 1e-9);
    g_assert_nonnull(strstr(m->reason, "consolidates s from 2 nodes onto node 1"));
    fixture_clear(&f);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/rebalance/balanced", test_balanced);
    g_test_add_func("/rebalance/hot-node", test_hot_node);
    g_test_add_func("/rebalance/cooldown-dedicated", test_cooldown_and_dedicated);
    g_test_add_func("/rebalance/high-priority-last", test_high_priority_last);
    g_test_add_func("/rebalance/cells-stay-near", test_cells_stay_near);
    g_test_add_func("/rebalance/memory-budget", test_memory_budget);
    g_test_add_func("/rebalance/lone-vm-stays", test_lone_vm_stays);
    g_test_add_func("/rebalance/allowed-set", test_allowed_set);
    g_test_add_func("/rebalance/consolidate", test_consolidate);
    g_test_add_func("/rebalance/packed-host", test_packed_host);
    g_test_add_func("/rebalance/packed-host-consolidates", test_packed_host_consolidates);
    g_test_add_func("/rebalance/consolidate-takes-overhead", test_consolidate_takes_overhead);
    return g_test_run();
}
