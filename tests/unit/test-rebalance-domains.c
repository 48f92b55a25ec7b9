/* test-rebalance-domains.c: guest dies and cache domains through the
 * ledger and the rebalancer, on the IBM x3950 M2 (4 nodes of 4 L3
 * domains, 6 CPUs each: domain 4n+k of node n holds CPUs 24n+k+4j).
 *
 * The per-vCPU pins a placement with guest dies makes survive the
 * ledger (ledger.json, ledger.cache, a domain's own <vcpupin>s); the
 * rebalancer, given a node whose domain 0 is full, moves dies to the
 * node's other domains (no memory moved) before any move between nodes;
 * a cell moved to another node keeps its dies one a domain; and the
 * record after the move pins each die's vCPUs inside its domain. */
#include <string.h>
#include "vn-cpulist.h"
#include "vn-domain.h"
#include "vn-ledger-domain.h"
#include "vn-load-file.h"
#include "vn-load-release.h"
#include "vn-rebalance.h"
#include "vn-test-fixture.h"
#include "vn-test-plan.h"

#define D0 "0,4,8,12,16,20"  /* node 0, domain 0 */
#define D1 "1,5,9,13,17,21"  /* node 0, domain 1 */
#define D2 "2,6,10,14,18,22" /* node 0, domain 2 */

typedef VnTestHost Host;
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Host, vn_test_host_clear)

static void
host_init(Host *h, VnCacheDomains mode, const gchar *load_file)
{
    vn_test_host_init(h, vn_test_load_topology("hwloc", "96em64t-4n4d3ca2co-pci.xml"));
    h->policy->cache_domains = mode;
    if (load_file) {
        g_autofree gchar *path = vn_test_data_path("load", load_file, NULL);
        g_autoptr(GError) error = NULL;
        g_assert_true(vn_load_read_file(path, h->t, h->load, &error));
        g_assert_no_error(error);
    }
}

static const VnLedgerCell *
cell0(const VnLedgerRecord *r)
{
    return &g_array_index(r->cells, VnLedgerCell, 0);
}

/* `n` pins of the cell from vCPU `first` on equal `cpus`. */
static void
assert_cell_pins(const VnLedgerCell *c, guint first, guint n, const gchar *cpus)
{
    g_assert_nonnull(c->vcpu_cpus);
    for (guint k = first; k < first + n; k++)
        g_assert_cmpstr(vn_ledger_cell_vcpu_pin(c, k), ==, cpus);
}

/* ---- the ledger keeps each vCPU's pin ---- */

/* 12 shared vCPUs as 2 guest dies (prefer, no overcommit): the record's cell holds both
 * domains' CPUs and each vCPU's own domain; ledger.json, ledger.cache and
 * the API's JSON carry them, and reading back gives the same record.  A
 * VM in one domain records none (its vCPUs follow the cell). */
static void
test_round_trip(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) wide_req = vn_test_request(12, 4);
    g_autoptr(VnRequest) small_req = vn_test_request(4, 4);
    g_autoptr(VnPlacement) wide = NULL, small = NULL;
    g_autofree gchar *dir = g_dir_make_tmp("vn-dies-XXXXXX", &error);
    g_autofree gchar *text = NULL;
    g_autoptr(GPtrArray) parsed = NULL;
    guint64 generation = 0;
    VnLedgerRecord *w, *s;

    host_init(&h, VN_CACHE_DOMAINS_PREFER, "96em64t-two-domains.json");
    h.policy->cpu_overcommit = 1.0; /* 12 vCPUs: two domains of 6 CPUs */
    wide = vn_plan(h.t, h.load, h.policy, wide_req, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(wide->dies, ==, 2);
    small = vn_plan(h.t, h.load, h.policy, small_req, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(small->dies, ==, 1);

    w = vn_ledger_record_from_placement("u-wide", "wide", wide, wide_req);
    s = vn_ledger_record_from_placement("u-small", "small", small, small_req);
    g_assert_cmpstr(cell0(w)->cpus, ==, "0-1,4-5,8-9,12-13,16-17,20-21");
    g_assert_cmpuint(cell0(w)->vcpu_cpus->len, ==, 12);
    assert_cell_pins(cell0(w), 0, 6, D0);
    assert_cell_pins(cell0(w), 6, 6, D1);
    g_assert_null(cell0(s)->vcpu_cpus);

    {
        g_autoptr(VnLedger) l = vn_ledger_open_fresh(dir, &error);
        g_assert_no_error(error);
        vn_ledger_put(l, w);
        vn_ledger_put(l, s);
        g_assert_true(vn_ledger_commit(l, &error));
        text = vn_ledger_format(vn_ledger_records(l), vn_ledger_generation(l));
    }
    g_assert_nonnull(strstr(text, "\"vcpu_cpus\":[\"" D0 "\""));
    g_assert_true(vn_ledger_parse(text, strlen(text), "ledger.json", &parsed, &generation, &error));
    g_assert_no_error(error);
    {
        /* opened for a change: read from ledger.cache */
        g_autoptr(VnLedger) again = vn_ledger_open(dir, &error);
        g_assert_no_error(error);
        for (guint i = 0; i < parsed->len; i++) {
            const VnLedgerRecord *p = g_ptr_array_index(parsed, i);
            VnLedgerRecord *c = vn_ledger_lookup(again, p->uuid);
            g_assert_nonnull(c);
            g_assert_true(vn_ledger_record_equal(p, c));
        }
        g_assert_true(vn_ledger_record_equal(vn_ledger_lookup(again, "u-wide"),
                                             vn_ledger_lookup_name(again, "wide")));
        assert_cell_pins(cell0(vn_ledger_lookup(again, "u-wide")), 6, 6, D1);
    }
    vn_test_remove_tree(dir);
}

/* A ledger written before the pins (no vcpu_cpus) reads with none; pins
 * that are not one CPU list a vCPU are refused, naming the member. */
static void
test_old_and_bad(void)
{
    static const gchar old[] =
        "{\"version\":1,\"generation\":3,\"domains\":[{\"uuid\":\"u\",\"name\":\"vm\","
        "\"state\":\"running\",\"time\":5,\"cells\":[{\"id\":0,\"node\":0,\"cpus\":\"0-3\","
        "\"vcpus\":2,\"memory_kib\":1024}]}]}";
    static const gchar *const bad[] = {
        "[\"0-1\"]",       /* one pin for two vCPUs */
        "[\"0-1\",\"x\"]", /* not a CPU list */
        "[\"0-1\",7]",     /* not a string */
        "\"0-1\"",         /* not an array */
    };
    g_autoptr(GPtrArray) records = NULL;
    guint64 generation = 0;
    g_autoptr(GError) error = NULL;

    g_assert_true(vn_ledger_parse(old, strlen(old), "old", &records, &generation, &error));
    g_assert_no_error(error);
    g_assert_null(cell0(g_ptr_array_index(records, 0))->vcpu_cpus);
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GString) text = g_string_new(old);
        g_autoptr(GPtrArray) none = NULL;
        g_autoptr(GError) e = NULL;
        g_autofree gchar *member = g_strdup_printf(",\"vcpu_cpus\":%s}", bad[i]);
        g_string_replace(text, "\"memory_kib\":1024}", "\"memory_kib\":1024", 1);
        g_string_insert(text, strstr(text->str, "]}]}") - text->str, member);
        g_assert_false(vn_ledger_parse(text->str, text->len, "bad", &none, &generation, &e));
        g_assert_error(e, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT);
        g_assert_nonnull(strstr(e->message, "domains[0].cells[0].vcpu_cpus"));
    }
}

/* The record of a placed domain read from its XML (the hook's start, a
 * rebuild from libvirt's status XML): the metadata keeps each cell's
 * CPUs, the <vcpupin>s each vCPU's domain (the golden 2-die case). */
static void
test_from_domain(void)
{
    g_autofree gchar *path =
        vn_test_data_path("..", "golden", "cache-domains-2dies", "expected.xml", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = vn_domain_load_file(path, &error);
    g_autoptr(VnLedgerRecord) r = NULL;

    g_assert_no_error(error);
    r = vn_ledger_record_from_domain(d);
    g_assert_cmpstr(cell0(r)->cpus, ==, "0-1,4-5,8-9,12-13,16-17,20-21");
    assert_cell_pins(cell0(r), 0, 6, D0);
    assert_cell_pins(cell0(r), 6, 6, D1);
}

/* ---- the rebalancer inside a node ---- */

/* A running record of `vcpus` shared vCPUs and 1 GiB on node 0, each
 * run of `vcpus / n_dies` vCPUs pinned to one of `dies`. */
static VnLedgerRecord *
record_on_node0(const gchar *name, guint vcpus, const gchar *const *dies, guint n_dies,
                const VnTopology *t)
{
    g_autofree gchar *uuid = g_strconcat("u-", name, NULL);
    VnLedgerRecord *r = vn_ledger_record_new(uuid, name);
    g_autoptr(GPtrArray) pins = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);

    r->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_record_add_cell(r, 0, 0, vcpus, "", 1 * GIB);
    for (guint k = 0; k < vcpus; k++)
        g_ptr_array_add(pins, vn_cpulist_parse(dies[k / (vcpus / n_dies)], t->n_cpu_ids, NULL));
    vn_ledger_record_set_cell_pins(r, 0, pins);
    return r;
}

typedef struct {
    Host h;
    gchar *dir;
    VnLedger *ledger;
    VnLoad *load;         /* the host's load and the ledger's */
    GPtrArray *residents; /* of VnResident* */
    GPtrArray *notes;
} Round;

static void
round_init(Round *x, VnCacheDomains mode, const gchar *load_file)
{
    g_autoptr(GError) error = NULL;

    host_init(&x->h, mode, load_file);
    x->dir = g_dir_make_tmp("vn-rebalance-domains-XXXXXX", &error);
    g_assert_no_error(error);
    x->ledger = vn_ledger_open_fresh(x->dir, &error);
    g_assert_no_error(error);
}

/* The ledger's load on the host's and one round with `max_moves`. */
static GPtrArray *
round_propose(Round *x, guint max_moves)
{
    VnRebalanceLimits lim;

    x->load = vn_load_copy(x->h.load);
    vn_ledger_to_load(x->ledger, x->h.t, x->h.policy, NULL, x->load);
    x->residents = vn_ledger_residents(x->ledger, x->h.t, x->h.policy);
    vn_rebalance_limits_init(&lim, 100000);
    lim.max_moves = max_moves;
    return vn_rebalance_propose(x->h.t, x->load, x->h.policy, x->residents, &lim, &x->notes);
}

static void
round_clear(Round *x)
{
    g_clear_pointer(&x->notes, g_ptr_array_unref);
    g_clear_pointer(&x->residents, g_ptr_array_unref);
    g_clear_pointer(&x->load, vn_load_free);
    g_clear_pointer(&x->ledger, vn_ledger_free);
    vn_test_remove_tree(x->dir);
    g_free(x->dir);
    vn_test_host_clear(&x->h);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Round, round_clear)

static gboolean
has_note(GPtrArray *notes, const gchar *text)
{
    for (guint i = 0; i < notes->len; i++)
        if (strstr(g_ptr_array_index(notes, i), text))
            return TRUE;
    return FALSE;
}

/* Six 4-vCPU VMs fill domain 0 of node 0 (24 vCPUs on 6 CPUs x
 * overcommit 4), its other three domains are empty, and every node holds
 * 24 vCPUs (the load file), so the nodes are balanced.  The round moves
 * one VM a domain to the empty domains, the roomiest first, memory left
 * in place, until domain 0 is within the threshold of the node's mean
 * (4 moves: 8 of 24 vCPUs left in it, 33 points against a mean of 25);
 * no move between nodes.  The first VM's record after its move is pinned
 * to domain 1. */
static void
test_within_node(void)
{
    static const gchar *const d0[] = { D0 };
    g_auto(Round) x = { 0 };
    g_autoptr(GPtrArray) moves = NULL;
    g_autoptr(VnLedgerRecord) moved = NULL;
    const VnMove *m;

    round_init(&x, VN_CACHE_DOMAINS_PREFER, "96em64t-domain-hot.json");
    for (guint i = 0; i < 6; i++) {
        g_autofree gchar *name = g_strdup_printf("vm-%c", 'a' + i);
        vn_ledger_put(x.ledger, record_on_node0(name, 4, d0, 1, x.h.t));
    }
    moves = round_propose(&x, 10);
    g_assert_cmpfloat_with_epsilon(x.load->domain_vcpus[0], 24.0, 1e-9);
    g_assert_cmpuint(moves->len, ==, 4);
    for (guint i = 0; i < moves->len; i++) {
        m = g_ptr_array_index(moves, i);
        g_assert_cmpuint(m->from_node, ==, 0);
        g_assert_cmpuint(m->to_node, ==, 0);
        g_assert_cmpint(m->from_domain, ==, 0);
        g_assert_cmpuint(m->memory_kib, ==, 0);
        g_assert_cmpuint(m->vcpus, ==, 4);
        g_assert_cmpuint(m->domains->len, ==, 1);
        g_assert_cmpint(g_array_index(m->domains, guint, 0), ==, m->to_domain);
    }
    m = g_ptr_array_index(moves, 0);
    g_assert_cmpstr(m->vm, ==, "vm-a");
    g_assert_cmpint(m->to_domain, ==, 1);
    g_assert_cmpstr(m->reason, ==,
                    "vm-a cell 0: cache domain 0 -> 1 of node 0 (4 vCPUs, no memory moved): the "
                    "domain above its node's mean by 75 -> 58 points");
    g_assert_cmpint(((VnMove *)g_ptr_array_index(moves, 1))->to_domain, ==, 2);
    g_assert_cmpint(((VnMove *)g_ptr_array_index(moves, 2))->to_domain, ==, 3);
    g_assert_true(has_note(x.notes, "balanced"));

    moved = vn_ledger_record_copy(vn_ledger_lookup_name(x.ledger, "vm-a"));
    g_assert_true(vn_ledger_record_apply_move(moved, x.h.t, x.load, x.h.policy, m));
    g_assert_cmpuint(cell0(moved)->node_os_id, ==, 0);
    g_assert_cmpstr(cell0(moved)->cpus, ==, D1);
    g_assert_null(cell0(moved)->vcpu_cpus);
}

/* The same host with cache domains off: nothing counted per domain, no
 * move inside the node, and the nodes are balanced. */
static void
test_within_node_off(void)
{
    static const gchar *const d0[] = { D0 };
    g_auto(Round) x = { 0 };
    g_autoptr(GPtrArray) moves = NULL;

    round_init(&x, VN_CACHE_DOMAINS_OFF, "96em64t-domain-hot.json");
    for (guint i = 0; i < 6; i++) {
        g_autofree gchar *name = g_strdup_printf("vm-%c", 'a' + i);
        vn_ledger_put(x.ledger, record_on_node0(name, 4, d0, 1, x.h.t));
    }
    moves = round_propose(&x, 10);
    g_assert_cmpuint(moves->len, ==, 0);
    g_assert_true(has_note(x.notes, "balanced"));
}

/* Node 0 with domains 2 and 3 dedicated to other VMs: three VMs of two
 * dies (domains 0 and 1) and three one-domain VMs in domain 0 started
 * within the cool-down make domain 0 (24 vCPUs) 25 points hotter than
 * the node's mean.  No die can leave: a two-die VM's other die holds the
 * only other domain, the others cool down.  A note says so and nothing
 * moves inside the node. */
static void
test_within_node_stuck(void)
{
    static const gchar *const d01[] = { D0, D1 };
    static const gchar *const d0[] = { D0 };
    g_auto(Round) x = { 0 };
    g_autoptr(GPtrArray) moves = NULL;

    round_init(&x, VN_CACHE_DOMAINS_PREFER, "96em64t-two-domains.json");
    for (guint i = 0; i < 3; i++) {
        g_autofree gchar *pair = g_strdup_printf("pair-%c", 'a' + i);
        g_autofree gchar *fresh = g_strdup_printf("new-%c", 'a' + i);
        VnLedgerRecord *r = record_on_node0(fresh, 4, d0, 1, x.h.t);
        r->time = 100000 - 10; /* within the cool-down */
        vn_ledger_put(x.ledger, record_on_node0(pair, 8, d01, 2, x.h.t));
        vn_ledger_put(x.ledger, r);
    }
    moves = round_propose(&x, 10);
    g_assert_cmpfloat_with_epsilon(x.load->domain_vcpus[0], 24.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(x.load->domain_vcpus[1], 12.0, 1e-9);
    for (guint i = 0; i < moves->len; i++)
        g_assert_cmpint(((VnMove *)g_ptr_array_index(moves, i))->from_domain, ==, -1);
    g_assert_true(has_note(x.notes, "cache domain 0 of node 0 is 25 points of utilisation above "
                                    "its node's mean, but no guest die in it fits another domain"));
}

/* ---- a move between nodes keeps the dies ---- */

/* Node 0 is hot (60 vCPUs from the load file and an 8-vCPU VM of two
 * dies in domains 0 and 1): the VM's cell moves to another node, its two
 * dies into two domains there (the roomiest, lowest first), and its
 * record pins vCPUs 0-3 to the first and 4-7 to the second. */
static void
test_between_nodes(void)
{
    static const gchar *const d01[] = { D0, D1 };
    g_auto(Round) x = { 0 };
    g_autoptr(GPtrArray) moves = NULL;
    g_autoptr(VnLedgerRecord) moved = NULL;
    g_autofree gchar *first = NULL, *second = NULL;
    const VnMove *m;
    guint to;

    round_init(&x, VN_CACHE_DOMAINS_PREFER, "96em64t-node0-hot.json");
    vn_ledger_put(x.ledger, record_on_node0("wide", 8, d01, 2, x.h.t));
    moves = round_propose(&x, 1);
    g_assert_cmpuint(moves->len, ==, 1);
    m = g_ptr_array_index(moves, 0);
    to = m->to_node;
    g_assert_cmpuint(m->from_node, ==, 0);
    g_assert_cmpuint(to, !=, 0);
    g_assert_cmpint(m->from_domain, ==, -1);
    g_assert_cmpuint(m->domains->len, ==, 2);
    g_assert_cmpuint(g_array_index(m->domains, guint, 0), ==, 4 * to);
    g_assert_cmpuint(g_array_index(m->domains, guint, 1), ==, 4 * to + 1);
    g_assert_nonnull(strstr(m->reason, "its 2 guest dies in cache domains"));

    moved = vn_ledger_record_copy(vn_ledger_lookup_name(x.ledger, "wide"));
    g_assert_true(vn_ledger_record_apply_move(moved, x.h.t, x.load, x.h.policy, m));
    g_assert_cmpuint(cell0(moved)->node_os_id, ==, x.h.t->nodes[to].os_id);
    first = vn_cpulist_format(x.h.t->domains[4 * to].cpus);
    second = vn_cpulist_format(x.h.t->domains[4 * to + 1].cpus);
    assert_cell_pins(cell0(moved), 0, 4, first);
    assert_cell_pins(cell0(moved), 4, 4, second);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/rebalance-domains/ledger/round-trip", test_round_trip);
    g_test_add_func("/rebalance-domains/ledger/old-and-bad", test_old_and_bad);
    g_test_add_func("/rebalance-domains/ledger/from-domain", test_from_domain);
    g_test_add_func("/rebalance-domains/move/within-node", test_within_node);
    g_test_add_func("/rebalance-domains/move/within-node-off", test_within_node_off);
    g_test_add_func("/rebalance-domains/move/within-node-stuck", test_within_node_stuck);
    g_test_add_func("/rebalance-domains/move/between-nodes", test_between_nodes);
    return g_test_run();
}
