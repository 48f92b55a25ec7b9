/* test-engine-follow.c: a persistent definition following the placement
 * applied live (vn_engine_follow_record()).
 *
 * The host: 4 nodes of 4 GiB, 2 CPUs each (node N: CPUs 2N-2N+1).  The
 * definitions are written by the engine itself (vn_engine_run(), DEFINE,
 * as `vnumactl define` writes them), then followed to a ledger record as
 * a move leaves it. */
#include <glib.h>
#include <string.h>
#include "vn-engine.h"
#include "vn-topology-source.h"

typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnPolicy *policy;
} Host;

static void
host_init(Host *h)
{
    g_autoptr(GError) error = NULL;

    h->t = vn_topology_load_synthetic("numa:4(memory=4GiB) core:2 pu:1", &error);
    g_assert_no_error(error);
    h->load = vn_load_new(h->t);
    h->policy = vn_policy_new_default(h->t);
}

static void
host_clear(Host *h)
{
    vn_policy_free(h->policy);
    vn_load_free(h->load);
    vn_topology_free(h->t);
}

/* A domain of `vcpus` vCPUs and `mib` MiB (`extra` inside <domain>),
 * placed by the engine when `place`, as `vnumactl define` writes it. */
static VnDomain *
domain(const Host *h, guint vcpus, guint mib, const gchar *extra, gboolean place)
{
    g_autofree gchar *xml = g_strdup_printf(
        "<domain type='kvm'><name>f</name><memory unit='MiB'>%u</memory><vcpu>%u</vcpu>%s"
        "<os><type arch='x86_64' machine='q35'>hvm</type></os><features><acpi/></features>"
        "</domain>",
        mib, vcpus, extra ? extra : "");
    const VnEngineHost host = { .t = h->t, .load = h->load, .policy = h->policy };
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(GError) error = NULL;
    VnDomain *d = vn_domain_load_buffer(xml, strlen(xml), "follow.xml", &error);

    g_assert_no_error(error);
    if (place) {
        g_assert_true(vn_engine_run(d, &host, VN_ENGINE_DEFINE, NULL, &res, &error));
        g_assert_no_error(error);
    }
    return d;
}

/* The record of `d`'s recorded cells, each moved to node `to[i]` (its two
 * CPUs), same vCPUs and memory. */
static VnLedgerRecord *
moved_record(const VnDomain *d, const guint *to)
{
    VnLedgerRecord *r = vn_ledger_record_new("00000000-0000-4000-8000-00000000f011", "f");

    r->state = VN_LEDGER_STATE_RUNNING;
    for (guint i = 0; i < d->meta->cells->len; i++) {
        const VnDomainMetaCell *mc = &g_array_index(d->meta->cells, VnDomainMetaCell, i);
        g_autofree gchar *cpus = g_strdup_printf("%u-%u", 2 * to[i], 2 * to[i] + 1);
        vn_ledger_record_add_cell(r, mc->id, to[i], vn_bitmap_count(mc->vcpus), cpus,
                                  mc->memory_kib);
    }
    return r;
}

static void
assert_has(const gchar *xml, const gchar *want)
{
    if (!strstr(xml, want))
        g_error("lacks %s:\n%s", want, xml);
}

/* Two guest cells (6 GiB on 4 GiB nodes) moved to nodes 2 and 3: the
 * metadata, vcpupins, emulatorpin and strict memnodes name them, the
 * guest cells stay; following the same record again changes nothing. */
static void
test_rewrites_two_cells(void)
{
    Host h;
    static const guint to[] = { 2, 3 };
    g_autoptr(GError) error = NULL;
    VnEngineFollow outcome = VN_ENGINE_FOLLOW_MAX;

    host_init(&h);
    g_autoptr(VnDomain) d = domain(&h, 4, 6144, NULL, TRUE);
    g_assert_cmpuint(d->meta->cells->len, ==, 2);
    g_assert_cmpuint(d->cells->len, ==, 2);
    g_autoptr(VnLedgerRecord) r = moved_record(d, to);
    guint64 cell0 = g_array_index(d->cells, VnDomainCell, 0).memory_kib;

    g_assert_true(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_no_error(error);
    g_assert_cmpstr(vn_engine_follow_to_string(outcome), ==, "rewritten");
    g_autofree gchar *xml = vn_domain_to_string(d);
    assert_has(xml, "node='2' vcpus='0-1' cpus='4-5'");
    assert_has(xml, "node='3' vcpus='2-3' cpus='6-7'");
    assert_has(xml, "<vcpupin vcpu='0' cpuset='4-5'/>");
    assert_has(xml, "<vcpupin vcpu='3' cpuset='6-7'/>");
    assert_has(xml, "<emulatorpin cpuset='4-7'/>");
    assert_has(xml, "<memnode cellid='0' mode='strict' nodeset='2'/>");
    assert_has(xml, "<memnode cellid='1' mode='strict' nodeset='3'/>");
    g_assert_cmpuint(d->cells->len, ==, 2);
    g_assert_cmpuint(g_array_index(d->cells, VnDomainCell, 0).memory_kib, ==, cell0);

    g_assert_true(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_cmpint(outcome, ==, VN_ENGINE_FOLLOW_UNCHANGED);
    g_autofree gchar *again = vn_domain_to_string(d);
    g_assert_cmpstr(xml, ==, again);
    host_clear(&h);
}

/* One cell to one node: restrictive numatune on the new node; an IOThread
 * goes with its cell. */
static void
test_one_node_with_iothread(void)
{
    Host h;
    static const guint to[] = { 1 };
    g_autoptr(GError) error = NULL;
    VnEngineFollow outcome = VN_ENGINE_FOLLOW_MAX;

    host_init(&h);
    g_autoptr(VnDomain) d = domain(&h, 2, 1024, "<iothreads>1</iothreads>", TRUE);
    g_autofree gchar *placed = vn_domain_to_string(d);
    assert_has(placed, "<iothreadpin iothread='1' cpuset='0-1'/>");
    g_autoptr(VnLedgerRecord) r = moved_record(d, to);

    g_assert_true(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_no_error(error);
    g_assert_cmpint(outcome, ==, VN_ENGINE_FOLLOW_REWRITTEN);
    g_autofree gchar *xml = vn_domain_to_string(d);
    assert_has(xml, "<memory mode='restrictive' nodeset='1'/>");
    assert_has(xml, "<iothreadpin iothread='1' cpuset='2-3'/>");
    assert_has(xml, "<vnuma:iothread id='1' cpus='2-3'/>");
    host_clear(&h);
}

/* No vnuma placement recorded: untouched, whatever the record says. */
static void
test_unplaced_left_alone(void)
{
    Host h;
    static const guint to[] = { 3 };
    g_autoptr(GError) error = NULL;
    VnEngineFollow outcome = VN_ENGINE_FOLLOW_MAX;

    host_init(&h);
    g_autoptr(VnDomain) placed = domain(&h, 2, 1024, NULL, TRUE);
    g_autoptr(VnLedgerRecord) r = moved_record(placed, to);
    g_autoptr(VnDomain) d = domain(&h, 2, 1024, NULL, FALSE);
    g_autofree gchar *before = vn_domain_to_string(d);

    g_assert_true(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_cmpstr(vn_engine_follow_to_string(outcome), ==, "unplaced");
    g_autofree gchar *after = vn_domain_to_string(d);
    g_assert_cmpstr(before, ==, after);
    host_clear(&h);
}

/* Another manager's emulatorpin next to vnuma's placement: kept, and the
 * error names it as `place` does without --force. */
static void
test_handwritten_kept(void)
{
    Host h;
    static const guint to[] = { 2 };
    g_autoptr(GError) error = NULL;
    VnEngineFollow outcome = VN_ENGINE_FOLLOW_MAX;

    host_init(&h);
    g_autoptr(VnDomain) placed = domain(&h, 2, 1024, NULL, TRUE);
    g_autoptr(VnLedgerRecord) r = moved_record(placed, to);
    g_autofree gchar *text = vn_domain_to_string(placed);
    g_auto(GStrv) parts = g_strsplit(text, "<emulatorpin cpuset='0-1'/>", 2);
    g_assert_cmpuint(g_strv_length(parts), ==, 2);
    g_autofree gchar *pinned = g_strjoinv("<emulatorpin cpuset='0-7'/>", parts);
    g_autoptr(VnDomain) d = vn_domain_load_buffer(pinned, strlen(pinned), "pinned.xml", &error);
    g_assert_no_error(error);
    g_autofree gchar *before = vn_domain_to_string(d);

    g_assert_false(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN);
    g_assert_nonnull(strstr(error->message, "<cputune><emulatorpin>"));
    g_assert_cmpint(outcome, ==, VN_ENGINE_FOLLOW_MAX);
    g_autofree gchar *after = vn_domain_to_string(d);
    g_assert_cmpstr(before, ==, after);
    host_clear(&h);
}

/* A record whose cells are not the definition's guest cells (never
 * re-planned), or on a node this host lacks: refused, untouched. */
static void
test_mismatch_refused(void)
{
    Host h;
    static const guint to[] = { 2, 3 };
    g_autoptr(GError) error = NULL;
    VnEngineFollow outcome = VN_ENGINE_FOLLOW_MAX;

    host_init(&h);
    g_autoptr(VnDomain) d = domain(&h, 4, 6144, NULL, TRUE);
    g_autofree gchar *before = vn_domain_to_string(d);
    g_autoptr(VnLedgerRecord) one = vn_ledger_record_new("u", "f");
    vn_ledger_record_add_cell(one, 0, 2, 4, "4-5", 6291456);
    g_assert_false(vn_engine_follow_record(d, h.t, one, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH);
    g_assert_nonnull(strstr(error->message, "domain 'f': 2 guest NUMA cells, the record 1"));
    g_clear_error(&error);

    g_autoptr(VnLedgerRecord) r = moved_record(d, to);
    g_array_index(r->cells, VnLedgerCell, 1).node_os_id = 7;
    g_assert_false(vn_engine_follow_record(d, h.t, r, VN_MEMORY_MODE_AUTO, &outcome, &error));
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH);
    g_autofree gchar *after = vn_domain_to_string(d);
    g_assert_cmpstr(before, ==, after);
    host_clear(&h);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/engine/follow/rewrites-two-cells", test_rewrites_two_cells);
    g_test_add_func("/engine/follow/one-node-with-iothread", test_one_node_with_iothread);
    g_test_add_func("/engine/follow/unplaced-left-alone", test_unplaced_left_alone);
    g_test_add_func("/engine/follow/handwritten-kept", test_handwritten_kept);
    g_test_add_func("/engine/follow/mismatch-refused", test_mismatch_refused);
    return g_test_run();
}
