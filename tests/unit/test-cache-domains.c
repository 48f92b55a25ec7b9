/* test-cache-domains.c: each node's last-level (L3) cache domains, from
 * every topology source that has them (hwloc XML of real hosts, synthetic
 * strings with an L3 level, libvirt capabilities <cache> banks, a captured
 * sysfs tree), one domain per node from a source without them, the
 * core's rules for an L3 that spans nodes or CPUs under no L3, and shared
 * VMs placed by cache domain ([placement] cache_domains). */
#include "vn-cpulist.h"
#include "vn-ledger-domain.h"
#include "vn-load-file.h"
#include "vn-load-release.h"
#include "vn-plan.h"
#include "vn-topology-json.h"
#include "vn-topology-source.h"
#include "vn-test-fixture.h"
#include "vn-test-plan.h"

typedef VnTopology *(*Loader)(const gchar *path, GError **error);

/* tests/data/DIR/NAME read by `load`; it must load. */
static VnTopology *
load_fixture(Loader load, const gchar *dir, const gchar *name)
{
    g_autofree gchar *path = vn_test_data_path(dir, name, NULL);
    g_autoptr(GError) error = NULL;
    VnTopology *t = load(path, &error);

    g_assert_no_error(error);
    return t;
}

static VnTopology *
load_hwloc(const gchar *name)
{
    return load_fixture(vn_topology_load_hwloc_xml, "hwloc", name);
}

static void
assert_domain(const VnTopology *t, guint d, guint node_os, const gchar *cpus, guint64 size_kib)
{
    g_autofree gchar *text = vn_cpulist_format(t->domains[d].cpus);

    g_assert_cmpuint(t->nodes[t->domains[d].node].os_id, ==, node_os);
    g_assert_cmpstr(text, ==, cpus);
    g_assert_cmpuint(t->domains[d].size_kib, ==, size_kib);
}

/* Every CPU with a node is in exactly one domain of that node, and the
 * node's domains cover its CPUs. */
static void
assert_consistent(const VnTopology *t)
{
    for (guint i = 0; i < t->n_nodes; i++) {
        const VnNode *n = &t->nodes[i];
        g_autoptr(VnBitmap) all = vn_bitmap_new(t->n_cpu_ids);

        g_assert_cmpuint(n->n_domains == 0, ==, vn_bitmap_is_empty(n->cpus));
        for (guint d = n->first_domain; d < n->first_domain + n->n_domains; d++) {
            g_assert_cmpuint(t->domains[d].node, ==, i);
            g_assert_false(vn_bitmap_intersects(all, t->domains[d].cpus));
            vn_bitmap_or(all, t->domains[d].cpus);
        }
        g_assert_true(vn_bitmap_equal(all, n->cpus));
    }
    for (guint i = 0; i < t->cpus->len; i++) {
        const VnCpu *c = &g_array_index(t->cpus, VnCpu, i);
        const VnCacheDomain *d = vn_topology_cpu_domain(t, c->os_id);

        g_assert_cmpint(c->node < 0, ==, d == NULL);
        if (d) {
            g_assert_cmpint((gint)d->node, ==, c->node);
            g_assert_true(vn_bitmap_test(d->cpus, c->os_id));
        }
    }
}

/* IBM x3950 M2: 4 nodes of 4 packages, each package one L3 of 16 MiB
 * over 6 cores whose PUs are numbered package-interleaved (0,4,8,...). */
static void
test_hwloc_96em64t(void)
{
    g_autoptr(VnTopology) t = load_hwloc("96em64t-4n4d3ca2co-pci.xml");

    g_assert_cmpuint(t->n_nodes, ==, 4);
    g_assert_cmpuint(t->n_domains, ==, 16);
    g_assert_false(t->domains_assumed);
    for (guint n = 0; n < 4; n++) {
        g_assert_cmpuint(t->nodes[n].n_domains, ==, 4);
        g_assert_cmpuint(t->nodes[n].first_domain, ==, 4 * n);
        for (guint k = 0; k < 4; k++) {
            g_autoptr(GString) cpus = g_string_new(NULL);
            for (guint j = 0; j < 6; j++)
                g_string_append_printf(cpus, "%s%u", j ? "," : "", 24 * n + k + 4 * j);
            assert_domain(t, 4 * n + k, n, cpus->str, 16384);
        }
    }
    assert_consistent(t);
}

/* Opteron 6272: two nodes per package, each node below its own 6 MiB L3;
 * node numbers out of hwloc's order (0,1,6,7,2,...). */
static void
test_hwloc_64amd64(void)
{
    g_autoptr(VnTopology) t = load_hwloc("64amd64-4p2n4ca2co.xml");

    g_assert_cmpuint(t->n_domains, ==, 8);
    for (guint n = 0; n < 8; n++) {
        g_assert_cmpuint(t->nodes[n].n_domains, ==, 1);
        g_assert_true(vn_bitmap_equal(t->domains[n].cpus, t->nodes[n].cpus));
        g_assert_cmpuint(t->domains[n].size_kib, ==, 6144);
    }
    assert_domain(t, 2, 2, "32-39", 6144);
    assert_consistent(t);
}

/* SGI UV: 24 nodes, one 20 MiB L3 per node over 8 cores x 2 threads. */
static void
test_hwloc_192em64t(void)
{
    g_autoptr(VnTopology) t = load_hwloc("192em64t-24n8c2t.xml");

    g_assert_cmpuint(t->n_domains, ==, 24);
    for (guint n = 0; n < 24; n++)
        g_assert_cmpuint(vn_bitmap_count(t->domains[n].cpus), ==, 16);
    assert_domain(t, 1, 1, "8-15,200-207", 20480);
    assert_consistent(t);
}

/* Sources without L3: every node one domain, said in the notes. */
static void
assert_assumed(const VnTopology *t)
{
    g_autoptr(GPtrArray) notes = vn_topology_notes(t);
    gboolean said = FALSE;

    g_assert_true(t->domains_assumed);
    for (guint i = 0; i < t->n_nodes; i++)
        if (!vn_bitmap_is_empty(t->nodes[i].cpus)) {
            g_assert_cmpuint(t->nodes[i].n_domains, ==, 1);
            g_assert_true(
                vn_bitmap_equal(t->domains[t->nodes[i].first_domain].cpus, t->nodes[i].cpus));
            g_assert_cmpuint(t->domains[t->nodes[i].first_domain].size_kib, ==, 0);
        }
    for (guint i = 0; i < notes->len; i++)
        said |= strstr(g_ptr_array_index(notes, i), "one cache domain per node") != NULL;
    g_assert_true(said);
    assert_consistent(t);
}

static void
test_hwloc_none(void)
{
    /* hagrid: TYAN S4881 (Opteron 865), no L3 in the export */
    g_autoptr(VnTopology) t = load_hwloc("hagrid.xml");

    assert_assumed(t);
}

static void
test_synthetic(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("pack:2 numa:1 l3:2 core:4 pu:2", &error);
    g_autoptr(VnTopology) flat = vn_topology_load_synthetic("pack:2 numa:1 core:4 pu:2", &error);

    g_assert_no_error(error);
    g_assert_cmpuint(t->n_domains, ==, 4);
    g_assert_false(t->domains_assumed);
    assert_domain(t, 0, 0, "0-7", 16384); /* hwloc's synthetic L3 size */
    assert_domain(t, 3, 1, "24-31", 16384);
    assert_consistent(t);
    g_assert_cmpuint(flat->n_domains, ==, 2);
    assert_assumed(flat);
}

static VnTopology *
load_caps(const gchar *name)
{
    return load_fixture(vn_topology_load_capabilities, "caps", name);
}

static void
test_caps_banks(void)
{
    /* <bank id='0' level='3' type='both' size='20' unit='MiB' cpus='0,2,...,14'/> */
    g_autoptr(VnTopology) t = load_caps("caps-qemu-kvm.xml");

    g_assert_cmpuint(t->n_domains, ==, 2);
    g_assert_false(t->domains_assumed);
    assert_domain(t, 0, 0, "0,2,4,6,8,10,12,14", 20 * 1024);
    assert_domain(t, 1, 1, "1,3,5,7,9,11,13,15", 20 * 1024);
    assert_consistent(t);
}

static void
test_caps_none(void)
{
    g_autoptr(VnTopology) t = load_caps("caps-test.xml");

    assert_assumed(t);
}

/* hwloc reads cpuN/cache/index3 of the capture (shared_cpu_map, size). */
static void
test_sysroot(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "resctrl-2node", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_sysroot(root, &error);

    g_assert_no_error(error);
    g_assert_cmpuint(t->n_domains, ==, 2);
    assert_domain(t, 0, 0, "0-5", 15360);
    assert_domain(t, 1, 1, "6-11", 15360);
    assert_consistent(t);
}

/* Two nodes of 4 CPUs; `l3` lists the L3s' cpulists. */
static VnTopology *
two_nodes(const gchar *const *l3, GError **error)
{
    g_autoptr(VnTopology) t = vn_topology_new("test");

    vn_topology_add_node(t, 0, 1024);
    vn_topology_add_node(t, 1, 1024);
    for (guint c = 0; c < 8; c++)
        vn_topology_add_cpu(t, c, (gint)(c / 4), c, c / 4);
    for (guint i = 0; l3[i]; i++) {
        g_autoptr(VnBitmap) cpus = vn_cpulist_parse(l3[i], 64, NULL);
        vn_topology_add_l3(t, cpus, 1024 * (i + 1));
    }
    return vn_topology_finish(t, error) ? g_steal_pointer(&t) : NULL;
}

static void
test_core_rules(void)
{
    /* one L3 over both nodes (sub-NUMA clustering): a domain per node;
     * CPU 7 under no L3 and CPU 9 not in the topology */
    static const gchar *const snc[] = { "0-6,9", NULL };
    static const gchar *const twice[] = { "0-3", "3-7", NULL };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = two_nodes(snc, &error);
    g_autoptr(VnTopology) bad = NULL;

    g_assert_no_error(error);
    g_assert_cmpuint(t->n_domains, ==, 3);
    assert_domain(t, 0, 0, "0-3", 1024);
    assert_domain(t, 1, 1, "4-6", 1024);
    assert_domain(t, 2, 1, "7", 0);
    g_assert_false(t->domains_assumed);
    assert_consistent(t);

    bad = two_nodes(twice, &error);
    g_assert_null(bad);
    g_assert_error(error, VN_TOPOLOGY_ERROR, VN_TOPOLOGY_ERROR_INVALID);
    g_assert_nonnull(strstr(error->message, "CPU 3 is under two L3 caches"));
}

static void
test_json(void)
{
    g_autoptr(VnTopology) t = load_hwloc("96em64t-4n4d3ca2co-pci.xml");
    g_autoptr(JsonNode) root = vn_topology_to_json(t, NULL);
    JsonObject *o = json_node_get_object(root);
    JsonObject *n1 = json_array_get_object_element(json_object_get_array_member(o, "nodes"), 1);
    JsonArray *domains = json_object_get_array_member(n1, "cache_domains");
    JsonObject *d5 = json_array_get_object_element(domains, 1);

    g_assert_false(json_object_get_boolean_member(o, "cache_domains_assumed"));
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(o, "notes")), ==, 0);
    g_assert_cmpuint(json_array_get_length(domains), ==, 4);
    g_assert_cmpint(json_object_get_int_member(d5, "id"), ==, 5);
    g_assert_cmpstr(json_object_get_string_member(d5, "cpus"), ==, "25,29,33,37,41,45");
    g_assert_cmpint(json_object_get_int_member(d5, "cpu_count"), ==, 6);
    g_assert_cmpint(json_object_get_int_member(d5, "l3_kib"), ==, 16384);
}

/* ---- placement by cache domain, on the IBM x3950 M2 (4 domains of 6
 * CPUs a node) ---- */

typedef VnTestHost Host;
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Host, vn_test_host_clear)

/* `load_file` under tests/data/load, or none. */
static void
host_init(Host *h, VnCacheDomains mode, const gchar *load_file)
{
    vn_test_host_init(h, load_hwloc("96em64t-4n4d3ca2co-pci.xml"));
    h->policy->cache_domains = mode;
    if (load_file) {
        g_autofree gchar *path = vn_test_data_path("load", load_file, NULL);
        g_autoptr(GError) error = NULL;
        g_assert_true(vn_load_read_file(path, h->t, h->load, &error));
        g_assert_no_error(error);
    }
}

static VnPlacement *
plan_vm(const Host *h, guint vcpus, gboolean dedicated, guint iothreads, GError **error)
{
    g_autoptr(VnRequest) r = vn_request_new();

    r->vcpus = vcpus;
    r->dedicated = dedicated;
    r->memory_kib = 4ull << 20;
    r->iothreads = iothreads;
    return vn_plan(h->t, h->load, h->policy, r, NULL, error);
}

static VnPlacement *
plan_shared(const Host *h, guint vcpus, guint iothreads, GError **error)
{
    return plan_vm(h, vcpus, FALSE, iothreads, error);
}

/* The dedicated CPUs of a placement, as a cpulist. */
static gchar *
dedicated_text(const VnPlacement *p)
{
    g_autoptr(VnBitmap) all = vn_bitmap_copy(g_ptr_array_index(p->vcpu_pins, 0));

    for (guint v = 1; v < p->vcpu_pins->len; v++)
        vn_bitmap_or(all, g_ptr_array_index(p->vcpu_pins, v));
    return vn_cpulist_format(all);
}

static gchar *
cpus_text(const VnBitmap *b)
{
    return vn_cpulist_format(b);
}

static gboolean
has_reason(const VnPlacement *p, const gchar *text)
{
    for (guint i = 0; i < p->reasons->len; i++)
        if (strstr(g_ptr_array_index(p->reasons, i), text))
            return TRUE;
    return FALSE;
}

/* 4 shared vCPUs: node 0 is the least loaded node (the others carry 80
 * vCPUs each); its domain 0 is dedicated to other VMs and domain 1 has
 * one CPU dedicated, so domain 2 is the least loaded; every vCPU, the
 * emulator and the IOThread are pinned to its CPUs. */
static void
test_plan_one_domain(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autofree gchar *emu = NULL, *io = NULL;

    host_init(&h, VN_CACHE_DOMAINS_PREFER, "96em64t-domains.json");
    p = plan_shared(&h, 4, 1, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 0).node_os_id, ==, 0);
    for (guint v = 0; v < 4; v++) {
        g_autofree gchar *pin = cpus_text(g_ptr_array_index(p->vcpu_pins, v));
        g_assert_cmpstr(pin, ==, "2,6,10,14,18,22");
    }
    emu = cpus_text(p->emulator_cpus);
    io = cpus_text(g_array_index(p->iothreads, VnIOThreadPin, 0).cpus);
    g_assert_cmpstr(emu, ==, "2,6,10,14,18,22");
    g_assert_cmpstr(io, ==, "2,6,10,14,18,22");
    g_assert_true(has_reason(p, "node 0: 4 vCPUs in cache domain 2 (6 usable CPUs), the least "
                                "loaded of the node's 4"));
}

/* 12 shared vCPUs, two domains' CPUs (a domain takes no more of one VM's
 * vCPUs than its 6 CPUs, however much its 4x overcommit leaves): two whole
 * domains under prefer, refused under require; off keeps the whole
 * node. */
static void
test_plan_modes(void)
{
    g_auto(Host) prefer = { 0 };
    g_auto(Host) require = { 0 };
    g_auto(Host) off = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL, q = NULL, r = NULL, small = NULL;
    g_autofree gchar *pin = NULL, *one = NULL;

    host_init(&prefer, VN_CACHE_DOMAINS_PREFER, NULL);
    p = plan_shared(&prefer, 12, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->cells->len, ==, 1);
    pin = cpus_text(g_array_index(p->cells, VnCell, 0).cpus);
    g_assert_cmpstr(pin, ==, "24-25,28-29,32-33,36-37,40-41,44-45");
    g_assert_true(
        has_reason(p, "node 1: 12 vCPUs over 2 whole cache domains 4 and 5 (12 usable CPUs)"));

    host_init(&require, VN_CACHE_DOMAINS_REQUIRE, NULL);
    q = plan_shared(&require, 12, 0, &error);
    g_assert_null(q);
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_assert_cmpstr(error->message, ==,
                    "node 1: no cache domain holds 12 shared vCPUs (the largest takes 6; "
                    "[placement] cache_domains = require)");
    g_clear_error(&error);
    small = plan_shared(&require, 6, 0, &error);
    g_assert_no_error(error);
    one = cpus_text(g_ptr_array_index(small->vcpu_pins, 0));
    g_assert_cmpstr(one, ==, "24,28,32,36,40,44");

    host_init(&off, VN_CACHE_DOMAINS_OFF, NULL);
    r = plan_shared(&off, 4, 0, &error);
    g_assert_no_error(error);
    g_assert_true(vn_bitmap_equal(g_ptr_array_index(r->vcpu_pins, 0),
                                  off.t->nodes[g_array_index(r->cells, VnCell, 0).node].cpus));
    g_assert_false(has_reason(r, "cache domain"));
    g_assert_cmpuint(r->dies, ==, 1);
}

/* Every pin of vCPUs first..first+n-1 of `p` is `cpus`. */
static void
assert_pins(const VnPlacement *p, guint first, guint n, const gchar *cpus)
{
    for (guint v = first; v < first + n; v++) {
        g_autofree gchar *pin = cpus_text(g_ptr_array_index(p->vcpu_pins, v));
        g_assert_cmpstr(pin, ==, cpus);
    }
}

/* The guest topology mirrors the domains: 12 shared vCPUs over two whole
 * domains of node 1 (6 CPUs each) are two guest dies of 6, vCPUs 0-5
 * pinned to domain 4 and 6-11 to domain 5 (QEMU numbers vCPUs die by
 * die); the emulator floats over both.  9 do not split evenly: one die,
 * every vCPU over both domains.  Off: one die whatever the VM. */
static void
test_plan_guest_dies(void)
{
    g_auto(Host) prefer = { 0 };
    g_auto(Host) off = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) even = NULL, odd = NULL, flat = NULL;
    g_autofree gchar *emu = NULL;

    host_init(&prefer, VN_CACHE_DOMAINS_PREFER, NULL);
    even = plan_shared(&prefer, 12, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(even->dies, ==, 2);
    assert_pins(even, 0, 6, "24,28,32,36,40,44");
    assert_pins(even, 6, 6, "25,29,33,37,41,45");
    emu = cpus_text(even->emulator_cpus);
    g_assert_cmpstr(emu, ==, "24-25,28-29,32-33,36-37,40-41,44-45");
    g_assert_true(has_reason(even, "guest topology: 2 dies a socket, one a host cache domain: "
                                   "each die's 6 vCPUs pinned to its domain's CPUs"));

    odd = plan_shared(&prefer, 9, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(odd->dies, ==, 1);
    assert_pins(odd, 0, 9, "24-25,28-29,32-33,36-37,40-41,44-45");
    g_assert_true(has_reason(odd, "node 1: 9 vCPUs over 2 whole cache domains 4 and 5 (12 usable "
                                  "CPUs), the fewest that hold them (no one domain does); they do "
                                  "not split evenly over them: they float over the domains' CPUs "
                                  "and the guest sees one die"));
    g_assert_false(has_reason(odd, "guest topology"));

    host_init(&off, VN_CACHE_DOMAINS_OFF, NULL);
    flat = plan_shared(&off, 12, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(flat->dies, ==, 1);
    assert_pins(flat, 0, 12, "24-47");
}

/* Two guest cells on two nodes (fixed cells), 12 vCPUs each: both split
 * alike over two domains of their node (6 CPUs each), so two sockets of
 * two dies. */
static void
test_plan_guest_dies_cells(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_request_new();
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, VN_CACHE_DOMAINS_PREFER, NULL);
    r->vcpus = 24;
    r->memory_kib = 8ull << 20;
    r->cells = 2;
    r->distinct_nodes = TRUE;
    p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(p->dies, ==, 2);
    g_assert_cmpuint(g_array_index(p->cells, VnCell, 1).node_os_id, ==, 1);
    assert_pins(p, 12, 6, "24,28,32,36,40,44");
    assert_pins(p, 18, 6, "25,29,33,37,41,45");
}

/* Dedicated: 12 vCPUs from two domains, 6 each, are two dies; 8 vCPUs
 * are 6 in one domain and 2 in the next: one die, said in the reasons. */
static void
test_plan_guest_dies_dedicated(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) even = NULL, uneven = NULL;

    host_init(&h, VN_CACHE_DOMAINS_PREFER, NULL);
    even = plan_vm(&h, 12, TRUE, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(even->dies, ==, 2);
    assert_pins(even, 0, 1, "0");
    assert_pins(even, 6, 1, "1");
    uneven = plan_vm(&h, 8, TRUE, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(uneven->dies, ==, 1);
    g_assert_true(has_reason(uneven, "guest topology: one die a socket (a cell's vCPUs are not "
                                     "an equal number in each of their cache domains)"));
}

/* Dedicated vCPUs (one core each here: no SMT): off takes CPUs in CPU
 * order, one per domain; prefer takes them from the fewest domains;
 * require refuses what needs two. */
static void
test_plan_dedicated(void)
{
    g_auto(Host) off = { 0 };
    g_auto(Host) prefer = { 0 };
    g_auto(Host) require = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) a = NULL, b = NULL, c = NULL, d = NULL;
    g_autofree gchar *ta = NULL, *tb = NULL, *tc = NULL;

    host_init(&off, VN_CACHE_DOMAINS_OFF, NULL);
    host_init(&prefer, VN_CACHE_DOMAINS_PREFER, NULL);
    host_init(&require, VN_CACHE_DOMAINS_REQUIRE, NULL);
    a = plan_vm(&off, 4, TRUE, 0, &error);
    g_assert_no_error(error);
    b = plan_vm(&prefer, 4, TRUE, 0, &error);
    g_assert_no_error(error);
    c = plan_vm(&prefer, 8, TRUE, 0, &error);
    g_assert_no_error(error);
    ta = dedicated_text(a);
    tb = dedicated_text(b);
    tc = dedicated_text(c);
    g_assert_cmpuint(g_array_index(a->cells, VnCell, 0).node_os_id, ==, 0);
    g_assert_cmpstr(ta, ==, "0-3");
    g_assert_cmpuint(g_array_index(b->cells, VnCell, 0).node_os_id, ==, 0);
    g_assert_cmpstr(tb, ==, "0,4,8,12");
    g_assert_true(has_reason(b, "node 0: 4 dedicated vCPUs from 1 cache domain (0)"));
    g_assert_cmpstr(tc, ==, "0-1,4-5,8,12,16,20");
    g_assert_true(has_reason(c, "node 0: 8 dedicated vCPUs from 2 cache domains (0, 1)"));
    d = plan_vm(&require, 8, TRUE, 0, &error);
    g_assert_null(d);
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_assert_nonnull(strstr(error->message, "no cache domain has 8 free"));
}

/* ---- the shared vCPUs already in each domain (VnLoad.domain_vcpus) ---- */

/* Node 0 of the x3950 M2 with domains 2 and 3 dedicated to other VMs and
 * the other nodes busy: a node of two usable L3 domains, 6 CPUs each. */
static void
two_domain_host(Host *h)
{
    host_init(h, VN_CACHE_DOMAINS_PREFER, "96em64t-two-domains.json");
}

/* The first 4-vCPU shared VM takes domain 0; the ledger, holding it as a
 * running record (its cell's CPU pins), counts its 4 vCPUs in domain 0,
 * so a second one takes domain 1.  Without that count the second VM would
 * land in domain 0 too. */
static void
test_load_ledger(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_test_request(4, 4);
    g_autoptr(VnPlacement) first = NULL, second = NULL, blind = NULL;
    g_autofree gchar *dir = g_dir_make_tmp("vn-domains-XXXXXX", &error);
    g_autoptr(VnLedger) l = NULL;
    g_autoptr(VnLoad) load = NULL;
    VnLedgerRecord *rec;

    g_assert_no_error(error);
    two_domain_host(&h);
    first = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    assert_pins(first, 0, 4, "0,4,8,12,16,20");
    blind = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    assert_pins(blind, 0, 4, "0,4,8,12,16,20");

    l = vn_ledger_open_fresh(dir, &error);
    g_assert_no_error(error);
    rec = vn_ledger_record_from_placement("u-first", "first", first, r);
    rec->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_put(l, rec);
    load = vn_load_copy(h.load);
    vn_ledger_to_load(l, h.t, h.policy, NULL, load);
    g_assert_cmpfloat_with_epsilon(load->domain_vcpus[0], 4.0, 1e-9);
    g_assert_cmpfloat_with_epsilon(load->domain_vcpus[1], 0.0, 1e-9);

    second = vn_plan(h.t, load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(g_array_index(second->cells, VnCell, 0).node_os_id, ==, 0);
    assert_pins(second, 0, 4, "1,5,9,13,17,21");
    g_assert_true(has_reason(second, "node 0: 4 vCPUs in cache domain 1 (6 usable CPUs), the "
                                     "least loaded of the node's 4"));
    vn_test_remove_tree(dir);
}

/* The reason names the vCPUs already placed in the chosen domain: a
 * whole count as an integer, a share of vCPUs pinned over several
 * domains with up to three significant digits. */
static void
test_reason_placed(void)
{
    g_auto(Host) h = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_test_request(4, 4);
    g_autoptr(VnPlacement) whole = NULL, share = NULL;

    two_domain_host(&h);
    h.load->domain_vcpus[0] = 2.0;
    h.load->domain_vcpus[1] = 3.0;
    whole = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(has_reason(whole, "node 0: 4 vCPUs in cache domain 0 (6 usable CPUs, 2 shared "
                                    "vCPUs placed), the least loaded of the node's"));
    h.load->domain_vcpus[0] = 2.5;
    share = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    g_assert_true(has_reason(share, "node 0: 4 vCPUs in cache domain 0 (6 usable CPUs, 2.5 shared "
                                    "vCPUs placed), the least loaded of the node's"));
}

/* vn_load_commit() counts the same (in-process planning: the simulator,
 * a batch), vn_load_release() takes it back, and off counts nothing. */
static void
test_load_commit(void)
{
    g_auto(Host) h = { 0 };
    g_auto(Host) off = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnRequest) r = vn_test_request(4, 4);
    g_autoptr(VnPlacement) first = NULL, second = NULL, third = NULL, a = NULL;

    two_domain_host(&h);
    first = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    vn_load_commit(h.load, h.t, h.policy, r, first);
    second = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    assert_pins(second, 0, 4, "1,5,9,13,17,21");
    vn_load_commit(h.load, h.t, h.policy, r, second);
    /* 4 + 4: both domains hold 4, domain 0 first again, now with a note */
    third = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_no_error(error);
    assert_pins(third, 0, 4, "0,4,8,12,16,20");
    g_assert_true(has_reason(third, "cache domain 0 (6 usable CPUs, 4 shared vCPUs placed)"));
    vn_load_release(h.load, h.t, h.policy, r, second);
    vn_load_release(h.load, h.t, h.policy, r, first);
    for (guint i = 0; i < h.load->n_domains; i++)
        g_assert_cmpfloat(h.load->domain_vcpus[i], ==, 0.0);

    host_init(&off, VN_CACHE_DOMAINS_OFF, "96em64t-two-domains.json");
    a = vn_plan(off.t, off.load, off.policy, r, NULL, &error);
    g_assert_no_error(error);
    vn_load_commit(off.load, off.t, off.policy, r, a);
    for (guint i = 0; i < off.load->n_domains; i++)
        g_assert_cmpfloat(off.load->domain_vcpus[i], ==, 0.0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/cache-domains/hwloc/96em64t-4n4d3ca2co-pci", test_hwloc_96em64t);
    g_test_add_func("/cache-domains/hwloc/64amd64-4p2n4ca2co", test_hwloc_64amd64);
    g_test_add_func("/cache-domains/hwloc/192em64t-24n8c2t", test_hwloc_192em64t);
    g_test_add_func("/cache-domains/hwloc/none", test_hwloc_none);
    g_test_add_func("/cache-domains/synthetic", test_synthetic);
    g_test_add_func("/cache-domains/capabilities/banks", test_caps_banks);
    g_test_add_func("/cache-domains/capabilities/none", test_caps_none);
    g_test_add_func("/cache-domains/sysroot/resctrl-2node", test_sysroot);
    g_test_add_func("/cache-domains/core/rules", test_core_rules);
    g_test_add_func("/cache-domains/json", test_json);
    g_test_add_func("/cache-domains/plan/one-domain-least-loaded", test_plan_one_domain);
    g_test_add_func("/cache-domains/plan/prefer-require-off", test_plan_modes);
    g_test_add_func("/cache-domains/plan/dedicated", test_plan_dedicated);
    g_test_add_func("/cache-domains/plan/guest-dies", test_plan_guest_dies);
    g_test_add_func("/cache-domains/plan/guest-dies-cells", test_plan_guest_dies_cells);
    g_test_add_func("/cache-domains/plan/guest-dies-dedicated", test_plan_guest_dies_dedicated);
    g_test_add_func("/cache-domains/load/ledger", test_load_ledger);
    g_test_add_func("/cache-domains/load/commit", test_load_commit);
    g_test_add_func("/cache-domains/plan/reason-placed", test_reason_placed);
    return g_test_run();
}
