/* test-engine-consolidate.c: consolidation through the engine
 * (vn_engine_consolidate(), vn_engine_record_placement()) on the ledger
 * tests/data/ledger/consolidate read by the ledger's own loader, on a
 * synthetic host matching it: 4 nodes of 1 GiB, 2 CPUs each (node N:
 * CPUs 2N-2N+1).
 *
 * The arithmetic, by hand (KiB; the default policy: 5 % headroom, a VM's
 * QEMU overhead 32 MiB + 8 MiB per started GiB, shared by its cells):
 *   usable           1048576 - 52425 = 996151 a node
 *   the ledger       big: 2 cells of 256 MiB on nodes 0 and 1, overhead
 *                    40960 (20480 a cell); filler 512 MiB on node 0, mid1
 *                    512 MiB on node 1, mid2 and mid3 640 MiB on 2 and 3
 *   committed        node 0: 262144 + 20480 + 524288 + 40960 = 847872
 *                    node 1: 847872; nodes 2, 3: 655360 + 40960 = 696320
 *   big needs        524288 + 40960 = 565248 on one node
 * With filler: big released, node 0 has 996151 - 565248 = 430903 left,
 * node 1 the same, nodes 2 and 3 299831: no node holds it, nothing.
 * filler gone: node 0 has 996151 left: both cells there; moved = cell 1,
 * 262144 KiB.  Dedicated or hugepage-backed, big is never looked at.
 */
#include <glib.h>
#include "vn-engine-residents.h"
#include "vn-engine.h"
#include "vn-plan.h"
#include "vn-test-fixture.h"
#include "vn-topology-source.h"

typedef struct {
    VnTopology *t;
    VnPolicy *policy;
    VnLedger *ledger;
    VnLoad *load;
} Fixture;

static void
fixture_init(Fixture *f)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *dir = vn_test_data_path("ledger", "consolidate", NULL);

    f->t = vn_topology_load_synthetic("numa:4(memory=1GiB) core:2 pu:1", &error);
    g_assert_no_error(error);
    f->policy = vn_policy_new_default(f->t);
    f->ledger = vn_ledger_snapshot(dir, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(vn_ledger_records(f->ledger)->len, ==, 5);
    f->load = NULL;
}

/* The load of the whole ledger, as the hook counts it at a VM's stop. */
static void
fixture_count(Fixture *f)
{
    g_clear_pointer(&f->load, vn_load_free);
    f->load = vn_load_new(f->t);
    vn_ledger_to_load(f->ledger, f->t, f->policy, NULL, f->load);
}

static void
fixture_clear(Fixture *f)
{
    vn_load_free(f->load);
    vn_ledger_free(f->ledger);
    vn_policy_free(f->policy);
    vn_topology_free(f->t);
}

static GArray *
consolidate(const Fixture *f)
{
    const VnEngineHost host = {
        .t = f->t, .load = f->load, .policy = f->policy, .ledger = f->ledger
    };
    return vn_engine_consolidate(&host);
}

/* Every record as a request and placement commits what the ledger counts
 * for it: big's two cells included. */
static void
test_record_placement_commits_as_ledger(void)
{
    Fixture f = { 0 };
    g_autoptr(VnLoad) committed = NULL;
    GPtrArray *records;

    fixture_init(&f);
    fixture_count(&f);
    records = vn_ledger_records(f.ledger);
    committed = vn_load_new(f.t);
    for (guint i = 0; i < records->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(records, i);
        g_autoptr(VnRequest) req = NULL;
        g_autoptr(VnPlacement) p = vn_engine_record_placement(r, f.t, &req);
        g_assert_nonnull(p);
        g_assert_cmpuint(p->cells->len, ==, r->cells->len);
        g_assert_cmpuint(p->vcpu_pins->len, ==, vn_ledger_record_vcpus(r));
        g_assert_cmpuint(req->memory_kib, ==, vn_ledger_record_memory_kib(r));
        vn_load_commit(committed, f.t, f.policy, req, p);
    }
    g_assert_cmpuint(f.load->nodes[0].committed_memory_kib, ==, 847872);
    g_assert_cmpuint(f.load->nodes[1].committed_memory_kib, ==, 847872);
    g_assert_cmpuint(f.load->nodes[2].committed_memory_kib, ==, 696320);
    for (guint n = 0; n < f.t->n_nodes; n++) {
        g_assert_cmpuint(committed->nodes[n].committed_memory_kib, ==,
                         f.load->nodes[n].committed_memory_kib);
        g_assert_cmpuint(committed->nodes[n].committed_vcpus, ==, f.load->nodes[n].committed_vcpus);
    }
    fixture_clear(&f);
}

static void
test_none_while_filler_runs(void)
{
    Fixture f = { 0 };
    g_autoptr(GArray) found = NULL;

    fixture_init(&f);
    fixture_count(&f);
    found = consolidate(&f);
    g_assert_cmpuint(found->len, ==, 0);
    fixture_clear(&f);
}

static void
test_after_filler_stops(void)
{
    Fixture f = { 0 };
    g_autoptr(GArray) found = NULL;
    g_autofree gchar *text = NULL;
    const VnEngineConsolidation *c;

    fixture_init(&f);
    g_assert_true(vn_ledger_remove(f.ledger, "0d3f6a10-7c1e-4b7a-9f00-000000000102"));
    fixture_count(&f);
    found = consolidate(&f);
    g_assert_cmpuint(found->len, ==, 1);
    c = &g_array_index(found, VnEngineConsolidation, 0);
    g_assert_cmpstr(c->vm, ==, "big");
    g_assert_cmpuint(c->nodes_before, ==, 2);
    g_assert_cmpuint(c->nodes_after, ==, 1);
    g_assert_cmpuint(c->moved_kib, ==, 262144);
    g_assert_cmpuint(c->before->cells->len, ==, 2);
    g_assert_false(c->before->needs_apply);
    g_assert_cmpuint(c->after->cells->len, ==, 2);
    for (guint i = 0; i < 2; i++) {
        const VnLedgerCell *cell = &g_array_index(c->after->cells, VnLedgerCell, i);
        g_assert_cmpuint(cell->id, ==, i);
        g_assert_cmpuint(cell->node_os_id, ==, 0);
        g_assert_cmpuint(cell->vcpus, ==, 1);
        g_assert_cmpuint(cell->memory_kib, ==, 262144);
        g_assert_cmpstr(cell->cpus, ==, "0-1");
    }
    g_assert_true(c->after->needs_apply);
    g_assert_cmpint(c->after->state, ==, VN_LEDGER_STATE_RUNNING);
    g_assert_cmpstr(c->after->uuid, ==, c->before->uuid);
    g_assert_cmpint(c->after->time, ==, c->before->time);
    text = vn_engine_consolidation_describe(c);
    g_assert_cmpstr(text, ==, "big from nodes 0,1 onto node 0, 256 MiB");
    fixture_clear(&f);
}

/* With free memory measured (the live host), big's own pages on node 0
 * are in the figure: 500000 KiB free there holds only 500000 - 52425
 * headroom - 40960 overhead = 406615 of big's 524288, but what moves in
 * is cell 1 alone; counted with big's 262144 KiB of node 0 free again,
 * 668759 does.  Without the room (100000 KiB free: 268759 with big's),
 * nothing. */
static void
test_measured_free_counts_own_pages(gconstpointer data)
{
    guint64 free0 = GPOINTER_TO_UINT(data);
    Fixture f = { 0 };
    g_autoptr(GArray) found = NULL;

    fixture_init(&f);
    g_assert_true(vn_ledger_remove(f.ledger, "0d3f6a10-7c1e-4b7a-9f00-000000000102"));
    f.t->nodes[0].mem_free_kib = free0;
    fixture_count(&f);
    found = consolidate(&f);
    if (free0 == 100000) {
        g_assert_cmpuint(found->len, ==, 0);
    } else {
        g_assert_cmpuint(found->len, ==, 1);
        g_assert_cmpuint(g_array_index(found, VnEngineConsolidation, 0).moved_kib, ==, 262144);
        g_assert_cmpuint(g_array_index(found, VnEngineConsolidation, 0).nodes_after, ==, 1);
    }
    fixture_clear(&f);
}

/* big made dedicated (its cells on CPUs 0 and 2) or hugepage-backed, or
 * held by another manager: the filler's room changes nothing. */
static void
test_never_moved(gconstpointer data)
{
    const gchar *what = data;
    Fixture f = { 0 };
    g_autoptr(GArray) found = NULL;
    VnLedgerRecord *big;

    fixture_init(&f);
    g_assert_true(vn_ledger_remove(f.ledger, "0d3f6a10-7c1e-4b7a-9f00-000000000102"));
    big = vn_ledger_lookup_name(f.ledger, "big");
    if (g_str_equal(what, "dedicated")) {
        big->dedicated = TRUE;
        g_free(g_array_index(big->cells, VnLedgerCell, 0).cpus);
        g_array_index(big->cells, VnLedgerCell, 0).cpus = g_strdup("0");
        g_free(g_array_index(big->cells, VnLedgerCell, 1).cpus);
        g_array_index(big->cells, VnLedgerCell, 1).cpus = g_strdup("2");
    } else if (g_str_equal(what, "hugepages")) {
        big->hugepage_kib = 2048;
    } else {
        big->foreign = TRUE;
    }
    fixture_count(&f);
    found = consolidate(&f);
    g_assert_cmpuint(found->len, ==, 0);
    fixture_clear(&f);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/engine/consolidate/record-placement-commits-as-ledger",
                    test_record_placement_commits_as_ledger);
    g_test_add_func("/engine/consolidate/none-while-filler-runs", test_none_while_filler_runs);
    g_test_add_func("/engine/consolidate/after-filler-stops", test_after_filler_stops);
    g_test_add_data_func("/engine/consolidate/measured-free-counts-own-pages",
                         GUINT_TO_POINTER(500000), test_measured_free_counts_own_pages);
    g_test_add_data_func("/engine/consolidate/measured-free-too-little", GUINT_TO_POINTER(100000),
                         test_measured_free_counts_own_pages);
    g_test_add_data_func("/engine/consolidate/never-dedicated", "dedicated", test_never_moved);
    g_test_add_data_func("/engine/consolidate/never-hugepages", "hugepages", test_never_moved);
    g_test_add_data_func("/engine/consolidate/never-foreign", "foreign", test_never_moved);
    return g_test_run();
}
