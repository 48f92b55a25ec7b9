/* test-engine-defrag.c: defragmentation at admission through the engine
 * (vn_engine_run(), VN_ENGINE_PLAN; vn_engine_defragment()), on the
 * committed fixtures: the ledger tests/data/ledger/defrag read by the
 * ledger's own loader (vn_ledger_snapshot()) and the domain
 * tests/data/domain/split-512m.xml, on a synthetic host matching the
 * ledger: 4 nodes of 1 GiB, 2 CPUs each (node N: CPUs 2N-2N+1); and
 * for the budget the ledger tests/data/ledger/defrag-budget on 4 nodes of
 * 32 GiB (its own arithmetic below).
 *
 * The arithmetic, by hand (KiB; the default policy: 5 % headroom, a VM's
 * QEMU overhead 32 MiB + 8 MiB per started GiB; vn-load.c):
 *   node memory      1048576 (1 GiB)
 *   headroom         1048576 / 100 * 5 = 10485 * 5 = 52425
 *   overhead         32768 + 1 * 8192 = 40960 for every VM here (< 1 GiB)
 *   the ledger       small0 128 MiB and mid0 320 MiB on node 0, mid1 448 MiB
 *                    on node 1, mid2 448 MiB on node 2, big3 640 MiB on 3
 *   committed        node 0: 131072 + 40960 + 327680 + 40960 = 540672
 *                    node 1: 458752 + 40960 = 499712, node 2: 499712
 *                    node 3: 655360 + 40960 = 696320
 *   usable left      node 0: 1048576 - 52425 - 540672 = 455479
 *                    node 1, 2: 1048576 - 52425 - 499712 = 496439
 *                    node 3: 1048576 - 52425 - 696320 = 299831
 *   the new VM       524288 + 40960 = 565248 > 496439: no node holds it,
 *                    split over two nodes, 1 vCPU and 256 MiB each.  The
 *                    host is 58 % committed: memory packing, CPU use after
 *                    placement + the crowding term of the busiest member,
 *                    then 0.3 x the most free memory a member leaves.  The
 *                    crowding term weighs the rise of a node's crowding
 *                    by the memory it slows, over the largest node's
 *                    memory (1048576, no reservation here).  Node 0's 2
 *                    vCPUs already fill its 2 CPUs (crowding 1); a third
 *                    adds only the slope past one vCPU a CPU, 0.25 x 0.5 /
 *                    0.5: (2 + 1) / 8 + (1.25 x (540672 + 262144) - 540672)
 *                    / 1048576 = 0.375 + 0.44 = 0.82.  Node
 *                    1's 1 vCPU is at the knee: a second crowds its 499712
 *                    as well, 2 / 8 + 761856 / 1048576 = 0.98, node 2 the
 *                    same.  The sets the growth finds (it ranks load alone)
 *                    are {0,1}, {1,2} and {1,3}; node 1 is the busiest of
 *                    each (0.98) and leaves the most free memory (0.22), a
 *                    tie the first found keeps: nodes 0 and 1.
 * Defragmentation (vn_rebalance_make_room(), budget 2 moves, 16 GiB) tries
 * the nodes with the most room first: node 1 and node 2 each hold one VM
 * of 499712 with overhead, which no other node has room for (496439 at
 * most): no move.  Node 0, smallest first: small0 frees 131072 + 40960 =
 * 172032, and 455479 + 172032 = 627511 >= 565248: one move, small0 from
 * node 0 to node 3 (room 299831 >= 172032): big3's 2 vCPUs already fill
 * node 3's CPUs, so small0 adds only the slope past one vCPU a CPU there
 * (3 / 8 + (1.25 x (696320 + 131072) - 696320) / 1048576 = 0.70), where
 * on node 1 or 2 it would crowd their 488 MiB from the knee (2 / 8 +
 * 630784 / 1048576 = 0.85).  Then the VM is whole
 * on node 0 (2 vCPUs on CPUs 0-1 next to mid0's 1: 3 of the 8 the 4.0
 * overcommit allows).
 */
#include <glib.h>
#include <json-glib/json-glib.h>
#include <string.h>
#include "vn-cpulist.h"
#include "vn-engine.h"
#include "vn-plan.h"
#include "vn-test-fixture.h"
#include "vn-topology-source.h"

#define MIB 1024
#define HOST_1G "numa:4(memory=1GiB) core:2 pu:1"
#define HOST_2G "numa:4(memory=2GiB) core:2 pu:1"

typedef struct {
    VnTopology *t;
    VnPolicy *policy;
    VnLedger *ledger;
    VnLoad *load;
    VnEngineResult res;
} Fixture;

/* The host of `synthetic` with the default policy at `headroom` %, and
 * the fixture ledger's VMs as its load, as vn_source_load() counts this
 * host's ledger. */
static void
fixture_init_ledger(Fixture *f, const gchar *synthetic, guint headroom, const gchar *ledger,
                    guint records)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *dir = vn_test_data_path("ledger", ledger, NULL);

    memset(f, 0, sizeof(*f));
    f->t = vn_topology_load_synthetic(synthetic, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(f->t->n_nodes, ==, 4);
    f->policy = vn_policy_new_default(f->t);
    f->policy->headroom_percent = headroom;
    f->ledger = vn_ledger_snapshot(dir, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(vn_ledger_records(f->ledger)->len, ==, records);
    f->load = vn_load_new(f->t);
    vn_ledger_to_load(f->ledger, f->t, f->policy, NULL, f->load);
}

static void
fixture_init(Fixture *f, const gchar *synthetic, guint headroom)
{
    fixture_init_ledger(f, synthetic, headroom, "defrag", 5);
}

static void
fixture_clear(Fixture *f)
{
    vn_engine_result_clear(&f->res);
    vn_load_free(f->load);
    vn_ledger_free(f->ledger);
    vn_policy_free(f->policy);
    vn_topology_free(f->t);
}

/* `xml` (NULL: the fixture domain split-512m.xml) planned with `mode`;
 * the run must succeed. */
static void
run(Fixture *f, VnDefragment mode, const gchar *xml)
{
    const VnEngineHost host = {
        .t = f->t, .load = f->load, .policy = f->policy, .defragment = mode, .ledger = f->ledger
    };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;

    if (xml) {
        d = vn_domain_load_buffer(xml, strlen(xml), "test.xml", &error);
    } else {
        g_autofree gchar *path = vn_test_data_path("domain", "split-512m.xml", NULL);
        d = vn_domain_load_file(path, &error);
    }
    g_assert_no_error(error);
    g_assert_true(vn_engine_run(d, &host, VN_ENGINE_PLAN, NULL, &f->res, &error));
    g_assert_no_error(error);
    g_assert_nonnull(f->res.placement);
    g_assert_nonnull(f->res.xml);
}

static const VnCell *
cell(const VnPlacement *p, guint i)
{
    g_assert_cmpuint(i, <, p->cells->len);
    return &g_array_index(p->cells, VnCell, i);
}

static void
assert_cell(const VnPlacement *p, guint i, guint node_os_id, const gchar *cpus, guint vcpus,
            guint64 memory_kib)
{
    const VnCell *c = cell(p, i);
    g_autofree gchar *set = vn_cpulist_format(c->cpus);

    g_assert_cmpuint(c->node_os_id, ==, node_os_id);
    g_assert_cmpstr(set, ==, cpus);
    g_assert_cmpuint(c->n_vcpus, ==, vcpus);
    g_assert_cmpuint(c->memory_kib, ==, memory_kib);
}

/* A split like the header's: cell 0 on node `a` (CPUs `a_cpus`), cell 1 on
 * node `b`, 1 vCPU and 256 MiB each, and the planner saying why. */
static void
assert_split_on(const VnPlacement *p, guint a, const gchar *a_cpus, guint b, const gchar *b_cpus)
{
    gboolean said = FALSE;

    g_assert_cmpuint(p->cells->len, ==, 2);
    assert_cell(p, 0, a, a_cpus, 1, 256 * MIB);
    assert_cell(p, 1, b, b_cpus, 1, 256 * MIB);
    for (guint i = 0; i < p->reasons->len; i++)
        said |= g_str_has_prefix(g_ptr_array_index(p->reasons, i),
                                 "larger than any single node's free capacity");
    g_assert_true(said);
}

/* The split of the header: nodes 0 and 1. */
static void
assert_split(const VnPlacement *p)
{
    assert_split_on(p, 0, "0-1", 1, "2-3");
}

static void
assert_reason(const VnPlacement *p, const gchar *prefix)
{
    for (guint i = 0; i < p->reasons->len; i++)
        if (g_str_has_prefix(g_ptr_array_index(p->reasons, i), prefix))
            return;
    g_error("no reason starts with \"%s\"", prefix);
}

/* The one move of `res`: `vm`'s cell 0 from node `from` to node `to`
 * (node indices equal kernel numbers on this host), its record before on
 * `from` and after on `to`'s CPUs. */
static void
assert_one_move(const VnEngineResult *res, const gchar *vm, guint from, guint to,
                guint64 memory_kib, const gchar *to_cpus)
{
    const VnEngineMove *m;
    const VnLedgerCell *before, *after;

    g_assert_nonnull(res->moves);
    g_assert_cmpuint(res->moves->len, ==, 1);
    m = &g_array_index(res->moves, VnEngineMove, 0);
    g_assert_cmpstr(m->vm, ==, vm);
    g_assert_cmpuint(m->cell, ==, 0);
    g_assert_cmpuint(m->from_node, ==, from);
    g_assert_cmpuint(m->to_node, ==, to);
    g_assert_cmpuint(m->vcpus, ==, 1);
    g_assert_cmpuint(m->memory_kib, ==, memory_kib);
    g_assert_cmpstr(m->before->name, ==, vm);
    g_assert_cmpstr(m->after->name, ==, vm);
    before = &g_array_index(m->before->cells, VnLedgerCell, 0);
    after = &g_array_index(m->after->cells, VnLedgerCell, 0);
    g_assert_cmpuint(before->node_os_id, ==, from);
    g_assert_cmpuint(after->node_os_id, ==, to);
    g_assert_cmpstr(after->cpus, ==, to_cpus);
    g_assert_cmpuint(after->memory_kib, ==, memory_kib);
    g_assert_null(res->defrag_note);
}

/* ---- the fixture host: split, and one move of small0 --------------------- */

static void
test_off(void)
{
    Fixture f;

    fixture_init(&f, HOST_1G, 5);
    /* the committed figures of the header, as the ledger loader counts */
    g_assert_cmpuint(f.t->nodes[0].mem_total_kib, ==, 1048576);
    g_assert_cmpuint(f.load->nodes[0].committed_memory_kib, ==, 540672);
    g_assert_cmpuint(f.load->nodes[1].committed_memory_kib, ==, 499712);
    g_assert_cmpuint(f.load->nodes[2].committed_memory_kib, ==, 499712);
    g_assert_cmpuint(f.load->nodes[3].committed_memory_kib, ==, 696320);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 0, 540672), ==, 455479);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 1, 499712), ==, 496439);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 3, 696320), ==, 299831);
    run(&f, VN_DEFRAGMENT_OFF, NULL);
    assert_split(f.res.placement);
    g_assert_null(f.res.moves);
    g_assert_null(f.res.defrag_note);
    g_assert_null(f.res.split);
    g_assert_null(f.res.split_xml);
    fixture_clear(&f);
}

static void
test_propose(void)
{
    Fixture f;

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    /* placed as without defragmentation, the moves beside it */
    assert_split(f.res.placement);
    assert_one_move(&f.res, "small0", 0, 3, 128 * MIB, "6-7");
    g_assert_cmpuint(f.res.defrag_node, ==, 0);
    g_assert_null(f.res.split);
    g_assert_null(f.res.split_xml);
    g_assert_nonnull(strstr(f.res.xml, "<cell id='1'"));
    fixture_clear(&f);
}

static void
test_apply(void)
{
    Fixture f;

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_APPLY, NULL);
    assert_one_move(&f.res, "small0", 0, 3, 128 * MIB, "6-7");
    g_assert_cmpuint(f.res.defrag_node, ==, 0);
    /* the placement after the moves: whole on node 0 */
    g_assert_cmpuint(f.res.placement->cells->len, ==, 1);
    assert_cell(f.res.placement, 0, 0, "0-1", 2, 512 * MIB);
    assert_reason(f.res.placement, "fits on one node: node 0");
    /* the split one kept as the fallback, in its own XML */
    g_assert_nonnull(f.res.split);
    assert_split(f.res.split);
    g_assert_nonnull(f.res.split_xml);
    g_assert_nonnull(strstr(f.res.split_xml, "<cell id='1'"));
    g_assert_null(strstr(f.res.xml, "<cell "));
    g_assert_nonnull(strstr(f.res.xml, "nodeset='0'"));
    fixture_clear(&f);
}

/* The smallest VM whose move alone is enough, not merely the smallest:
 * at 11 % headroom (10485 * 11 = 115335) node 0 has 1048576 - 115335 -
 * 540672 = 392569 left; small0 would make it 392569 + 172032 = 564601,
 * 647 KiB short of 565248; mid0 (327680 + 40960 = 368640) makes it
 * 761209, and node 1 (1048576 - 115335 - 499712 = 433529) takes mid0.
 * At 10 % (104850): 403054 + 172032 = 575086, so small0 is enough. */
static void
test_smallest_enough(void)
{
    Fixture f;

    fixture_init(&f, HOST_1G, 11);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    g_assert_cmpuint(f.res.placement->cells->len, ==, 2);
    assert_one_move(&f.res, "mid0", 0, 1, 320 * MIB, "2-3");
    g_assert_cmpuint(f.res.defrag_node, ==, 0);
    fixture_clear(&f);

    fixture_init(&f, HOST_1G, 10);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    assert_one_move(&f.res, "small0", 0, 3, 128 * MIB, "6-7");
    fixture_clear(&f);
}

/* split-512m.xml with one piece of text replaced (it must be there once). */
static gchar *
split_domain_edited(const gchar *from, const gchar *to)
{
    g_autofree gchar *path = vn_test_data_path("domain", "split-512m.xml", NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) error = NULL;
    GString *xml;

    g_assert_true(g_file_get_contents(path, &text, NULL, &error));
    xml = g_string_new(text);
    g_assert_cmpuint(g_string_replace(xml, from, to, 1), ==, 1);
    return g_string_free(xml, FALSE);
}

/* The domain being placed is never one of the VMs moved: a domain named
 * small0 (placed again) leaves mid0 as node 0's candidate, which alone
 * is enough too: 455479 + 368640 = 824119 >= 565248, and node 1 takes it
 * (496439 >= 368640). */
static void
test_not_itself(void)
{
    Fixture f;
    g_autofree gchar *xml = split_domain_edited("<name>vnt-split</name>", "<name>small0</name>");

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_PROPOSE, xml);
    assert_one_move(&f.res, "mid0", 0, 1, 320 * MIB, "2-3");
    fixture_clear(&f);
}

/* The VM's own CPU set (<vcpu cpuset>) bounds the node to be emptied.  At
 * 4 % headroom (10485 * 4 = 41940) the nodes have 465964, 506924, 506924
 * and 310316 left; the VM (565248) fits none.  Emptying node 0 takes one
 * move of 128 MiB (small0: 465964 + 172032 = 637996), node 1 one of
 * 448 MiB (mid1, 499712 with overhead, fits node 2's 506924): node 0's
 * plan moves less, but with cpuset 2-5 (nodes 1 and 2) the VM cannot run
 * there.  So mid1 moves from node 1 to node 2 (the first of the equal
 * plans of nodes 1 and 2), and the VM is whole on node 1: 506924 + 499712
 * = 1006636 >= 565248. */
static void
test_allowed_cpus(void)
{
    Fixture f;
    g_autofree gchar *xml =
        split_domain_edited("<vcpu placement='static'>", "<vcpu placement='static' cpuset='2-5'>");

    fixture_init(&f, HOST_1G, 4);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 0, 540672), ==, 465964);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 1, 499712), ==, 506924);
    run(&f, VN_DEFRAGMENT_APPLY, xml);
    assert_one_move(&f.res, "mid1", 1, 2, 448 * MIB, "4-5");
    g_assert_cmpuint(f.res.defrag_node, ==, 1);
    g_assert_cmpuint(f.res.placement->cells->len, ==, 1);
    assert_cell(f.res.placement, 0, 1, "2-3", 2, 512 * MIB);
    g_assert_nonnull(f.res.split);
    assert_split_on(f.res.split, 1, "2-3", 2, "4-5");
    fixture_clear(&f);

    /* without the CPU set node 0's smaller move wins */
    fixture_init(&f, HOST_1G, 4);
    run(&f, VN_DEFRAGMENT_APPLY, NULL);
    assert_one_move(&f.res, "small0", 0, 3, 128 * MIB, "6-7");
    fixture_clear(&f);
}

/* ---- no moves ------------------------------------------------------------ */

/* The VM fits a node anyway: on 2 GiB nodes node 1 has 2097152 - 104855
 * - 499712 = 1492585 >= 565248 left.  Nothing looked for, nothing said. */
static void
test_fits_anyway(void)
{
    Fixture f;

    fixture_init(&f, HOST_2G, 5);
    run(&f, VN_DEFRAGMENT_APPLY, NULL);
    g_assert_cmpuint(f.res.placement->cells->len, ==, 1);
    g_assert_null(f.res.moves);
    g_assert_null(f.res.defrag_note);
    g_assert_null(f.res.split);
    g_assert_null(f.res.split_xml);
    fixture_clear(&f);
}

/* No move is enough: at 20 % headroom (10485 * 20 = 209700) the nodes
 * have 298204, 339164, 339164 and 142556 left, the VM is split, and
 *  - node 1's and node 2's one VM (499712 with overhead) fits nowhere else;
 *  - on node 0 small0 alone gives 298204 + 172032 = 470236 < 565248, mid0
 *    alone would give 666844 but needs 368640 on another node (339164 at
 *    most), and after small0 went to node 1 (339164 - 172032 = 167132
 *    left there) mid0 still fits nowhere.
 * PROPOSE and APPLY both keep the split placement and say why. */
static void
test_no_move_enough(void)
{
    for (VnDefragment mode = VN_DEFRAGMENT_PROPOSE; mode <= VN_DEFRAGMENT_APPLY; mode++) {
        Fixture f;
        fixture_init(&f, HOST_1G, 20);
        g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 0, 540672), ==, 298204);
        g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 1, 499712), ==, 339164);
        run(&f, mode, NULL);
        g_assert_cmpuint(f.res.placement->cells->len, >, 1);
        g_assert_null(f.res.moves);
        g_assert_null(f.res.split);
        g_assert_null(f.res.split_xml);
        g_assert_cmpstr(f.res.defrag_note, ==,
                        "no moves of at most 2 small one-node VMs (16 GiB) let it fit one node");
        fixture_clear(&f);
    }
}

/* ---- the budget: tests/data/ledger/defrag-budget ------------------------
 * 4 nodes of 32 GiB, 4 CPUs each (node N: CPUs 4N-4N+3).  Node 0, 2 and 3
 * hold one 17 GiB VM each (big0, big2, big3), node 1 three of 4 GiB
 * (small1a, small1b, small1c).  In KiB, 5 % headroom:
 *   node memory   33554432; headroom 33554432 / 100 * 5 = 335544 * 5 = 1677720
 *   17 GiB VM     17825792 + 32768 + 17 * 8192 = 17825792 + 172032 = 17997824
 *   4 GiB VM      4194304 + 32768 + 4 * 8192 = 4194304 + 65536 = 4259840
 *   usable left   nodes 0, 2, 3: 33554432 - 1677720 - 17997824 = 13878888
 *                 node 1: 33554432 - 1677720 - 3 * 4259840 = 19097192
 * Nodes tried (the 3 with the most room): 1, then 0 and 2 (a tie, node
 * order).  On node 0 or 2 the one VM is 17 GiB, over the 16 GiB budget
 * (its move would be enough: 13878888 + 17997824 = 31876712, and node 1
 * could take it, 19097192 >= 17997824).  On node 1 each 4 GiB move adds
 * 4259840: one gives 23357032, two 27616872, three 31876712. */
#define HOST_32G "numa:4(memory=32GiB) core:4 pu:1"
#define BIG_VM(gib)                                                                                \
    "<domain type='qemu'><name>big</name><memory unit='GiB'>" #gib "</memory>"                     \
    "<vcpu placement='static'>4</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os>"        \
    "<features><acpi/></features></domain>"

/* A 28 GiB VM: 29360128 + 32768 + 28 * 8192 = 29622272 > 19097192, split;
 * node 1 would need three moves (27616872 < 29622272 <= 31876712), over
 * the budget of 2, and nodes 0 and 2 a move over 16 GiB: no moves. */
static void
test_over_budget(void)
{
    Fixture f;

    fixture_init_ledger(&f, HOST_32G, 5, "defrag-budget", 6);
    g_assert_cmpuint(f.load->nodes[1].committed_memory_kib, ==, 3 * 4259840);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 0, 17997824), ==, 13878888);
    g_assert_cmpuint(vn_policy_usable_memory_kib(f.policy, f.t, 1, 3 * 4259840), ==, 19097192);
    run(&f, VN_DEFRAGMENT_APPLY, BIG_VM(28));
    g_assert_cmpuint(f.res.placement->cells->len, >, 1);
    g_assert_null(f.res.moves);
    g_assert_null(f.res.split);
    g_assert_cmpstr(f.res.defrag_note, ==,
                    "no moves of at most 2 small one-node VMs (16 GiB) let it fit one node");
    fixture_clear(&f);
}

/* Two moves, within the budget: a 24 GiB VM (25165824 + 32768 + 24 *
 * 8192 = 25362432 > 19097192, split) fits node 1 after two of its 4 GiB
 * VMs move (23357032 < 25362432 <= 27616872).  No single move is
 * enough, so the largest candidate goes first (the last of three equal
 * ones: small1c) to the least loaded other node (0, 2, 3 tie: node 0),
 * then the smallest that is then enough (small1a) to node 2, which now
 * has fewer vCPUs than node 0 (2 against 3). */
static void
test_two_moves(void)
{
    Fixture f;
    const VnEngineMove *m;

    fixture_init_ledger(&f, HOST_32G, 5, "defrag-budget", 6);
    run(&f, VN_DEFRAGMENT_APPLY, BIG_VM(24));
    g_assert_nonnull(f.res.moves);
    g_assert_cmpuint(f.res.moves->len, ==, 2);
    m = &g_array_index(f.res.moves, VnEngineMove, 0);
    g_assert_cmpstr(m->vm, ==, "small1c");
    g_assert_cmpuint(m->from_node, ==, 1);
    g_assert_cmpuint(m->to_node, ==, 0);
    g_assert_cmpstr(g_array_index(m->after->cells, VnLedgerCell, 0).cpus, ==, "0-3");
    m = &g_array_index(f.res.moves, VnEngineMove, 1);
    g_assert_cmpstr(m->vm, ==, "small1a");
    g_assert_cmpuint(m->from_node, ==, 1);
    g_assert_cmpuint(m->to_node, ==, 2);
    g_assert_cmpstr(g_array_index(m->after->cells, VnLedgerCell, 0).cpus, ==, "8-11");
    g_assert_cmpuint(f.res.defrag_node, ==, 1);
    g_assert_cmpuint(f.res.placement->cells->len, ==, 1);
    assert_cell(f.res.placement, 0, 1, "4-7", 4, 24 * 1048576);
    g_assert_nonnull(f.res.split);
    g_assert_cmpuint(f.res.split->cells->len, >, 1);
    fixture_clear(&f);
}

/* Guest cells the domain gives are its ABI: not looked for, and said so. */
static void
test_guest_cells_given(void)
{
    static const gchar xml[] =
        "<domain type='qemu'><name>cells</name><memory unit='MiB'>512</memory>"
        "<vcpu placement='static'>2</vcpu><os><type arch='x86_64' machine='pc'>hvm</type></os>"
        "<features><acpi/></features><cpu><numa>"
        "<cell id='0' cpus='0' memory='256' unit='MiB'/>"
        "<cell id='1' cpus='1' memory='256' unit='MiB'/></numa></cpu></domain>";
    Fixture f;

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_PROPOSE, xml);
    g_assert_cmpuint(f.res.placement->cells->len, ==, 2);
    g_assert_null(f.res.moves);
    g_assert_cmpstr(f.res.defrag_note, ==, "not looked for: the domain's guest cells are given");
    fixture_clear(&f);
}

/* Another host's topology has no ledger (vn_source_load_with_ledger()): the split
 * stays and nothing is said, whatever the mode. */
static void
test_no_ledger(void)
{
    Fixture f;

    fixture_init(&f, HOST_1G, 5);
    g_clear_pointer(&f.ledger, vn_ledger_free);
    run(&f, VN_DEFRAGMENT_APPLY, NULL);
    assert_split(f.res.placement);
    g_assert_null(f.res.moves);
    g_assert_null(f.res.defrag_note);
    g_assert_null(f.res.split);
    fixture_clear(&f);
}

/* ---- the JSON form ------------------------------------------------------- */

static JsonObject *
defrag_json(const Fixture *f, VnDefragment mode, JsonNode **ret_root)
{
    JsonNode *root = json_node_new(JSON_NODE_OBJECT);
    JsonObject *o = json_object_new();

    json_node_take_object(root, o);
    vn_engine_defrag_add_json(o, f->t, mode, &f->res);
    *ret_root = root;
    return json_object_has_member(o, "defragment") ? json_object_get_object_member(o, "defragment")
                                                   : NULL;
}

static void
test_json(void)
{
    Fixture f;
    g_autoptr(JsonNode) root = NULL;
    JsonObject *d, *m;
    JsonArray *moves;

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    d = defrag_json(&f, VN_DEFRAGMENT_PROPOSE, &root);
    g_assert_nonnull(d);
    g_assert_cmpstr(json_object_get_string_member(d, "mode"), ==, "propose");
    moves = json_object_get_array_member(d, "moves");
    g_assert_cmpuint(json_array_get_length(moves), ==, 1);
    m = json_array_get_object_element(moves, 0);
    g_assert_cmpstr(json_object_get_string_member(m, "vm"), ==, "small0");
    g_assert_cmpint(json_object_get_int_member(m, "cell"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(m, "from"), ==, 0);
    g_assert_cmpint(json_object_get_int_member(m, "to"), ==, 3);
    g_assert_cmpint(json_object_get_int_member(m, "vcpus"), ==, 1);
    g_assert_cmpint(json_object_get_int_member(m, "memory_mib"), ==, 128);
    g_assert_cmpint(json_object_get_int_member(d, "node"), ==, 0);
    g_assert_false(json_object_get_boolean_member(d, "placed_after_moves"));
    g_assert_false(json_object_has_member(d, "note"));
    g_clear_pointer(&root, json_node_unref);
    /* OFF adds nothing, even with moves at hand */
    g_assert_null(defrag_json(&f, VN_DEFRAGMENT_OFF, &root));
    g_clear_pointer(&root, json_node_unref);
    fixture_clear(&f);

    fixture_init(&f, HOST_1G, 5);
    run(&f, VN_DEFRAGMENT_APPLY, NULL);
    d = defrag_json(&f, VN_DEFRAGMENT_APPLY, &root);
    g_assert_true(json_object_get_boolean_member(d, "placed_after_moves"));
    g_clear_pointer(&root, json_node_unref);
    fixture_clear(&f);

    fixture_init(&f, HOST_1G, 20);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    d = defrag_json(&f, VN_DEFRAGMENT_PROPOSE, &root);
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(d, "moves")), ==, 0);
    g_assert_false(json_object_has_member(d, "node"));
    g_assert_false(json_object_has_member(d, "placed_after_moves"));
    g_assert_cmpstr(json_object_get_string_member(d, "note"), ==, f.res.defrag_note);
    g_clear_pointer(&root, json_node_unref);
    fixture_clear(&f);

    /* nothing looked for (fits one node): no member */
    fixture_init(&f, HOST_2G, 5);
    run(&f, VN_DEFRAGMENT_PROPOSE, NULL);
    g_assert_null(defrag_json(&f, VN_DEFRAGMENT_PROPOSE, &root));
    g_clear_pointer(&root, json_node_unref);
    fixture_clear(&f);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/engine/defrag/off", test_off);
    g_test_add_func("/engine/defrag/propose", test_propose);
    g_test_add_func("/engine/defrag/apply", test_apply);
    g_test_add_func("/engine/defrag/smallest-enough", test_smallest_enough);
    g_test_add_func("/engine/defrag/not-itself", test_not_itself);
    g_test_add_func("/engine/defrag/allowed-cpus", test_allowed_cpus);
    g_test_add_func("/engine/defrag/fits-anyway", test_fits_anyway);
    g_test_add_func("/engine/defrag/no-move-enough", test_no_move_enough);
    g_test_add_func("/engine/defrag/over-budget", test_over_budget);
    g_test_add_func("/engine/defrag/two-moves", test_two_moves);
    g_test_add_func("/engine/defrag/guest-cells-given", test_guest_cells_given);
    g_test_add_func("/engine/defrag/no-ledger", test_no_ledger);
    g_test_add_func("/engine/defrag/json", test_json);
    return g_test_run();
}
