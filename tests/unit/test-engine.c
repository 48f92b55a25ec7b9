/* test-engine.c: the engine's one entry point (vn_engine_run), its
 * cell-count rule (vn_engine_cell_rule) case by case, and the request
 * schema's limits as every door meets them. */
#include <glib.h>
#include <string.h>
#include "vn-engine.h"
#include "vn-plan.h"
#include "vn-topology-source.h"

#define META_OPEN                                                                                  \
    "<metadata><vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes'%s>"
#define META_CLOSE "</vnuma:vnuma></metadata>"
#define PLACEMENT_OPEN                                                                             \
    "<vnuma:placement version='0.1.0' time='2026-11-29T22:00:00Z' "                                \
    "memory-mode='strict' dedicated='no' hugepage-kib='0' threads-per-core='1'>"

/* A domain of 8 vCPUs and 8 GiB: `cells` its <cpu><numa> cells (each
 * "VCPUS:MIB", vCPUs in order; NULL = none), `recorded` the number of
 * cells of a recorded placement (0 = none), `hint` attributes of the
 * vnuma element. */
static VnDomain *
domain(const gchar *const *cells, guint recorded, const gchar *hint)
{
    g_autoptr(GString) x = g_string_new("<domain type='kvm'><name>e</name>");
    g_autoptr(GError) error = NULL;
    guint first = 0;
    VnDomain *d;

    g_string_append_printf(x, META_OPEN, hint ? hint : "");
    if (recorded) {
        g_string_append(x, PLACEMENT_OPEN);
        for (guint i = 0; i < recorded; i++)
            g_string_append_printf(x,
                                   "<vnuma:cell id='%u' node='%u' vcpus='%u-%u' cpus='%u-%u' "
                                   "memory-kib='%u'/>",
                                   i, i, i * (8 / recorded), (i + 1) * (8 / recorded) - 1, i * 4,
                                   i * 4 + 3, 8 * 1048576 / recorded);
        g_string_append(x, "</vnuma:placement>");
    }
    g_string_append(
        x, META_CLOSE
        "<memory unit='GiB'>8</memory><vcpu>8</vcpu>"
        "<os><type arch='x86_64' machine='q35'>hvm</type></os><features><acpi/></features>");
    if (cells) {
        g_string_append(x, "<cpu><numa>");
        for (guint i = 0; cells[i]; i++) {
            guint v, mib;
            g_assert_cmpint(sscanf(cells[i], "%u:%u", &v, &mib), ==, 2);
            g_string_append_printf(x, "<cell id='%u' cpus='%u-%u' memory='%u' unit='MiB'/>", i,
                                   first, first + v - 1, mib);
            first += v;
        }
        g_string_append(x, "</numa></cpu>");
    }
    g_string_append(x, "</domain>");
    d = vn_domain_load_buffer(x->str, x->len, "engine.xml", &error);
    g_assert_no_error(error);
    return d;
}

/* ---- the cell-count rule, case by case (its comment: vn-engine.h) ----- */

typedef struct {
    const gchar *name;
    const gchar *cells[4]; /* the domain's own <cpu><numa> cells */
    guint recorded;        /* cells of the recorded placement */
    const gchar *hint;
    VnEngineIntent intent;
    guint want_cells;
    gboolean want_rechoose;
} RuleCase;

static const RuleCase rule_cases[] = {
    { "no-cells-plan", { NULL }, 0, NULL, VN_ENGINE_PLAN, 0, FALSE },
    { "no-cells-define", { NULL }, 0, NULL, VN_ENGINE_DEFINE, 0, FALSE },
    { "no-cells-place", { NULL }, 0, NULL, VN_ENGINE_PLACE, 0, FALSE },
    { "no-cells-start", { NULL }, 0, NULL, VN_ENGINE_START, 0, FALSE },
    { "no-cells-filter-one-node", { NULL }, 0, NULL, VN_ENGINE_FILTER, 1, FALSE },
    { "no-cells-recorded-one-start", { NULL }, 1, NULL, VN_ENGINE_START, 0, FALSE },
    { "no-cells-recorded-two-start", { NULL }, 2, NULL, VN_ENGINE_START, 0, FALSE },
    { "no-cells-recorded-two-filter", { NULL }, 2, NULL, VN_ENGINE_FILTER, 1, FALSE },
    { "user-even-plan", { "4:4096", "4:4096", NULL }, 0, NULL, VN_ENGINE_PLAN, 2, FALSE },
    { "user-even-start", { "4:4096", "4:4096", NULL }, 0, NULL, VN_ENGINE_START, 2, FALSE },
    { "user-even-filter", { "4:4096", "4:4096", NULL }, 0, NULL, VN_ENGINE_FILTER, 2, FALSE },
    { "recorded-even-plan", { "4:4096", "4:4096", NULL }, 2, NULL, VN_ENGINE_PLAN, 2, TRUE },
    { "recorded-even-define", { "4:4096", "4:4096", NULL }, 2, NULL, VN_ENGINE_DEFINE, 2, TRUE },
    { "recorded-even-start", { "4:4096", "4:4096", NULL }, 2, NULL, VN_ENGINE_START, 2, TRUE },
    { "recorded-even-filter", { "4:4096", "4:4096", NULL }, 2, NULL, VN_ENGINE_FILTER, 2, TRUE },
    { "recorded-count-differs", { "4:4096", "4:4096", NULL }, 4, NULL, VN_ENGINE_PLAN, 2, FALSE },
    { "uneven-plan", { "2:2048", "6:6144", NULL }, 0, NULL, VN_ENGINE_PLAN, 2, FALSE },
    { "uneven-recorded-start", { "2:2048", "6:6144", NULL }, 2, NULL, VN_ENGINE_START, 2, FALSE },
    { "uneven-filter", { "2:2048", "6:6144", NULL }, 0, NULL, VN_ENGINE_FILTER, 2, FALSE },
    { "dedicated-even",
      { "4:4096", "4:4096", NULL },
      0,
      " dedicated='yes'",
      VN_ENGINE_START,
      2,
      FALSE },
    { "dedicated-recorded",
      { "4:4096", "4:4096", NULL },
      2,
      " dedicated='yes'",
      VN_ENGINE_PLAN,
      2,
      TRUE },
    { "dedicated-uneven",
      { "2:2048", "6:6144", NULL },
      0,
      " dedicated='yes'",
      VN_ENGINE_DEFINE,
      2,
      FALSE },
    { "dedicated-no-cells-filter", { NULL }, 0, " dedicated='yes'", VN_ENGINE_FILTER, 1, FALSE },
};

static void
test_cell_rule(gconstpointer data)
{
    const RuleCase *c = data;
    g_autoptr(VnDomain) d = domain(c->cells[0] ? c->cells : NULL, c->recorded, c->hint);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) req = vn_domain_to_request(d, NULL, &error);
    VnEngineCells got;

    g_assert_no_error(error);
    got = vn_engine_cell_rule(d, c->intent, req);
    g_assert_cmpuint(got.cells, ==, c->want_cells);
    g_assert_cmpint(got.rechoose, ==, c->want_rechoose);
    /* cells of their own sizes reach the core as sizes, whatever the intent */
    g_assert_cmpint(req->cell_sizes != NULL, ==,
                    g_str_has_prefix(c->name, "uneven") ||
                        g_str_equal(c->name, "dedicated-uneven"));
}

/* ---- the entry point ---------------------------------------------------- */

typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnPolicy *policy;
    VnEngineHost host;
} Host;

static void
host_init(Host *h, const gchar *synthetic)
{
    g_autoptr(GError) error = NULL;

    h->t = vn_topology_load_synthetic(synthetic, &error);
    g_assert_no_error(error);
    h->load = vn_load_new(h->t);
    h->policy = vn_policy_new_default(h->t);
    h->host = (VnEngineHost){ .t = h->t, .load = h->load, .policy = h->policy };
}

static void
host_clear(Host *h)
{
    vn_topology_free(h->t);
    vn_load_free(h->load);
    vn_policy_free(h->policy);
}

/* START plans and leaves the domain as it was (the hook's output is
 * discarded); PLAN rewrites it. */
static void
test_start_leaves_domain(void)
{
    Host h;
    g_autoptr(VnDomain) d = domain(NULL, 0, NULL);
    g_autofree gchar *before = vn_domain_to_string(d);
    g_autofree gchar *after = NULL;
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(GError) error = NULL;

    host_init(&h, "numa:4(memory=16GB) core:4 pu:1");
    g_assert_true(vn_engine_run(d, &h.host, VN_ENGINE_START, NULL, &res, &error));
    g_assert_no_error(error);
    g_assert_nonnull(res.placement);
    g_assert_nonnull(res.request);
    g_assert_null(res.xml);
    after = vn_domain_to_string(d);
    g_assert_cmpstr(before, ==, after);
    g_assert_true(vn_engine_run(d, &h.host, VN_ENGINE_PLAN, NULL, &res, &error));
    g_assert_nonnull(strstr(res.xml, "<vcpupin"));
    host_clear(&h);
}

/* A guest without NUMA that no single node holds: PLAN and START spread
 * it (the core chooses), FILTER keeps it on one node and so finds no fit
 * (the hook then leaves the incoming XML alone). */
static void
test_filter_keeps_one_node(void)
{
    Host h;
    g_autoptr(GError) error = NULL;

    host_init(&h, "numa:4(memory=6GB) core:4 pu:1");
    for (VnEngineIntent i = VN_ENGINE_PLAN; i < VN_ENGINE_MAX; i++) {
        g_autoptr(VnDomain) d = domain(NULL, 0, NULL);
        g_auto(VnEngineResult) res = { 0 };
        gboolean ok = vn_engine_run(d, &h.host, i, NULL, &res, &error);
        if (i == VN_ENGINE_FILTER) {
            g_assert_false(ok);
            g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
            g_assert_nonnull(strstr(error->message, "domain 'e'"));
            g_clear_error(&error);
            continue;
        }
        g_assert_no_error(error);
        g_assert_true(ok);
        g_assert_cmpuint(res.placement->cells->len, ==, 2);
    }
    host_clear(&h);
}

/* A migrating guest with two cells on a host where its cells fit: the
 * filter rewrites pins and keeps the cells; one whose threads per core
 * would change is kept as it came. */
static void
test_filter_rewrites_keeping_cells(void)
{
    const gchar *const cells[] = { "4:4096", "4:4096", NULL };
    Host h;
    g_autoptr(VnDomain) d = domain(cells, 0, NULL);
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(GError) error = NULL;

    host_init(&h, "numa:4(memory=16GB) core:4 pu:1");
    g_assert_true(vn_engine_run(d, &h.host, VN_ENGINE_FILTER, NULL, &res, &error));
    g_assert_no_error(error);
    g_assert_nonnull(res.xml);
    g_assert_null(res.kept);
    /* the guest cells as they came (the writer keeps their units) */
    g_assert_nonnull(strstr(res.xml, "<cell id='0' cpus='0-3' memory='4096' unit='MiB'>"));
    g_assert_nonnull(strstr(res.xml, "<cell id='1' cpus='4-7' memory='4096' unit='MiB'>"));
    g_assert_nonnull(strstr(res.xml, "<memnode cellid='1'"));
    host_clear(&h);

    /* recorded with 1 thread per core, now on a host with 2-thread cores
     * where the dedicated guest would get threads */
    g_autoptr(VnDomain) r = domain(cells, 2, " dedicated='yes'");
    host_init(&h, "numa:4(memory=16GB) core:4 pu:2");
    g_assert_true(vn_engine_run(r, &h.host, VN_ENGINE_FILTER, NULL, &res, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(res.placement->threads_per_core, ==, 2);
    g_assert_null(res.xml);
    g_assert_cmpstr(res.kept, ==, "a new placement would change the guest's threads per core");
    host_clear(&h);
}

/* ---- the request schema's limits ----------------------------------------- */

typedef struct {
    const gchar *name;
    guint vcpus, cells, iothreads, devices;
    guint64 memory_mib;
    const gchar *message; /* NULL: within every limit */
} LimitCase;

static const LimitCase limit_cases[] = {
    { "vcpus-8192", 8192, 0, 0, 0, 65536, "vcpus must be from 1 to 4096, got 8192" },
    { "vcpus-4097", 4097, 0, 0, 0, 4096, "vcpus must be from 1 to 4096, got 4097" },
    { "vcpus-4096", 4096, 0, 0, 0, 4096, NULL },
    { "vcpus-0", 0, 0, 0, 0, 4096, "vcpus must be from 1 to 4096, got 0" },
    { "cells-257", 300, 257, 0, 0, 4096, "cells must be from 0 to 256, got 257" },
    { "iothreads-257", 4, 0, 257, 0, 4096, "iothreads must be from 0 to 256, got 257" },
    { "devices-257", 4, 0, 0, 257, 4096, "devices must be from 0 to 256, got 257" },
    { "memory-2pib", 4, 0, 0, 0, G_GUINT64_CONSTANT(1) << 31,
      "memory must be from 1 MiB to 1073741824 MiB, got 2199023255552 KiB" },
    { "memory-1pib", 4, 0, 0, 0, G_GUINT64_CONSTANT(1) << 30, NULL },
};

static void
test_limit(gconstpointer data)
{
    const LimitCase *c = data;
    Host h;
    g_autoptr(VnRequest) r = vn_request_new();
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "numa:2(memory=8GB) core:4 pu:1");
    r->vcpus = c->vcpus;
    r->cells = c->cells;
    r->iothreads = c->iothreads;
    r->memory_kib = c->memory_mib * 1024;
    for (guint i = 0; i < c->devices; i++)
        vn_request_add_device(r, 0, 0, "nic");
    p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_null(p);
    if (c->message) {
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
        g_assert_cmpstr(error->message, ==, c->message);
    } else {
        /* within the schema: too big for this host, not a bad request */
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    }
    host_clear(&h);
}

/* <vcpu>8192</vcpu> is refused where the domain is read, naming the
 * element and the same limit --vcpus and the API's "vcpus" name. */
static void
test_domain_vcpus_limit(void)
{
    static const gchar *const xml8192 = "<domain><name>big</name><memory unit='GiB'>64</memory>"
                                        "<vcpu>8192</vcpu></domain>";
    static const gchar *const xml4096 = "<domain><name>big</name><memory unit='GiB'>64</memory>"
                                        "<vcpu>4096</vcpu></domain>";
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = vn_domain_load_buffer(xml8192, strlen(xml8192), "big.xml", &error);
    g_autoptr(VnDomain) ok = NULL;

    g_assert_null(d);
    g_assert_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID);
    g_assert_cmpstr(error->message, ==,
                    "big.xml: <vcpu>: must be from 1 to 4096, the most vCPUs "
                    "a VM may have (domain 'big' has 8192)");
    g_clear_error(&error);
    ok = vn_domain_load_buffer(xml4096, strlen(xml4096), "big.xml", &error);
    g_assert_no_error(error);
    g_assert_cmpuint(ok->vcpus_max, ==, VN_REQUEST_MAX_VCPUS);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS(rule_cases); i++) {
        g_autofree gchar *path = g_strdup_printf("/engine/cell-rule/%s", rule_cases[i].name);
        g_test_add_data_func(path, &rule_cases[i], test_cell_rule);
    }
    g_test_add_func("/engine/run/start-leaves-domain", test_start_leaves_domain);
    g_test_add_func("/engine/run/filter-keeps-one-node", test_filter_keeps_one_node);
    g_test_add_func("/engine/run/filter-rewrites-keeping-cells",
                    test_filter_rewrites_keeping_cells);
    for (guint i = 0; i < G_N_ELEMENTS(limit_cases); i++) {
        g_autofree gchar *path = g_strdup_printf("/engine/limits/%s", limit_cases[i].name);
        g_test_add_data_func(path, &limit_cases[i], test_limit);
    }
    g_test_add_func("/engine/limits/domain-vcpus", test_domain_vcpus_limit);
    return g_test_run();
}
