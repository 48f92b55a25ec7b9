/* test-plan-cells.c: guest cells of their own sizes (VnRequest.cell_sizes)
 * on real hosts' topologies from tests/data: a 2-socket host
 * (caps/caps-qemu-kvm.xml: 2 nodes of 8 CPUs and ~16 GiB) and a 4-node
 * one (hwloc/40intel64-2g2n4c+pcilocality.xml: 10 CPUs and 128 GiB each).
 */
#include "vn-test-plan.h"
#include "vn-test-topologies.h"
#include "vn-topology-source.h"

#include <string.h>

static VnTopology *
load_data(const gchar *sub, const gchar *name)
{
    g_autofree gchar *path = g_build_filename(g_getenv("VN_TEST_DATA"), sub, name, NULL);
    g_autoptr(GError) error = NULL;
    VnTopology *t = g_str_equal(sub, "caps") ? vn_topology_load_capabilities(path, &error)
                                             : vn_topology_load_hwloc_xml(path, &error);

    g_assert_no_error(error);
    return t;
}

static void
two_socket(VnTestHost *h)
{
    vn_test_host_init(h, load_data("caps", "caps-qemu-kvm.xml"));
    g_assert_cmpuint(h->t->n_nodes, ==, 2);
}

static void
four_node(VnTestHost *h)
{
    vn_test_host_init(h, load_data("hwloc", "40intel64-2g2n4c+pcilocality.xml"));
    g_assert_cmpuint(h->t->n_nodes, ==, 4);
}

/* A request of the given cells: {vcpus, GiB} pairs. */
static VnRequest *
sized(guint n, const guint (*cells)[2])
{
    VnRequest *r = vn_request_new();

    r->cells = n;
    for (guint i = 0; i < n; i++) {
        vn_request_add_cell_size(r, cells[i][0], cells[i][1] * GIB);
        r->vcpus += cells[i][0];
        r->memory_kib += cells[i][1] * GIB;
    }
    return r;
}

static const VnCell *
cell(const VnPlacement *p, guint i)
{
    return &g_array_index(p->cells, VnCell, i);
}

static gboolean
has_reason(const VnPlacement *p, const gchar *words)
{
    for (guint i = 0; i < p->reasons->len; i++)
        if (strstr(g_ptr_array_index(p->reasons, i), words))
            return TRUE;
    return FALSE;
}

/* Node 0 has memory for the small cell only, node 1 vCPU room for the
 * few-vCPU cell only: cell 0 must go to node 1 and cell 1 to node 0.  The
 * even split (5 GiB and 7 vCPUs per cell) fits neither node. */
static void
test_one_order(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 2, 8 }, { 12, 2 } });
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GError) error = NULL;

    two_socket(&h);
    h.load->nodes[0].committed_memory_kib = 11 * GIB;
    h.load->nodes[1].committed_vcpus = 24;
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    vn_test_assert_cells_fit(&h, r, p);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 1);
    g_assert_cmpuint(cell(p, 0)->vcpu_first, ==, 0);
    g_assert_cmpuint(cell(p, 0)->n_vcpus, ==, 2);
    g_assert_cmpuint(cell(p, 0)->memory_kib, ==, 8 * GIB);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(p, 1)->vcpu_first, ==, 2);
    g_assert_cmpuint(cell(p, 1)->n_vcpus, ==, 12);
    for (guint v = 0; v < r->vcpus; v++)
        g_assert_true(
            vn_bitmap_test(h.t->nodes[v < 2 ? 1 : 0].cpus,
                           (guint)vn_bitmap_next(g_ptr_array_index(p->vcpu_pins, v), -1)));
    /* the same VM as two equal cells does not fit */
    g_clear_pointer(&r->cell_sizes, g_array_unref);
    g_clear_pointer(&p, vn_placement_free);
    p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_null(p);
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    vn_test_host_clear(&h);
}

/* Cell 1 is 96 GiB, cell 0 16 GiB; only node 0 has room for 96 GiB.  The
 * even split (56 GiB each) fits any pair and puts cell 1 on the other
 * node, which cannot hold the user's 96 GiB cell; per-cell sizes put
 * cell 1 on node 0. */
static void
test_even_would_overbook(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 4, 16 }, { 4, 96 } });
    g_autoptr(VnRequest) even = vn_test_request(8, 112);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnPlacement) q = NULL;

    four_node(&h);
    for (guint i = 1; i < 4; i++)
        h.load->nodes[i].committed_memory_kib = 60 * GIB;
    h.load->nodes[0].committed_memory_kib = 20 * GIB;
    even->cells = 2;
    q = vn_test_plan_ok(&h, even);
    g_assert_cmpuint(cell(q, 0)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(q, 1)->node_os_id, !=, 0); /* 96 GiB would not fit there */

    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    vn_test_assert_cells_fit(&h, r, p);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(p, 1)->memory_kib, ==, 96 * GIB);
    g_assert_cmpuint(cell(p, 0)->node_os_id, !=, 0);
    g_assert_true(has_reason(p, "2 cells of their own sizes: placed on 2 node(s)"));
    vn_test_host_clear(&h);
}

/* Uneven cells that fit on one node share it, each keeping its size. */
static void
test_one_node(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = sized(3, (const guint[][2]){ { 1, 8 }, { 6, 2 }, { 1, 1 } });
    g_autoptr(VnPlacement) p = NULL;

    four_node(&h);
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(vn_test_nodes_used(p), ==, 1);
    g_assert_cmpuint(cell(p, 1)->vcpu_first, ==, 1);
    g_assert_cmpuint(cell(p, 1)->n_vcpus, ==, 6);
    g_assert_cmpuint(cell(p, 2)->memory_kib, ==, 1 * GIB);
    vn_test_host_clear(&h);
}

/* Dedicated: node 0 has 4 CPUs left, so the 6-vCPU cell goes to node 1
 * and the 3-vCPU cell to node 0 (9 vCPUs: not one node); every vCPU on one CPU of its own cell's
 * node, none shared. */
static void
test_dedicated(void)
{
    VnTestHost h;
    g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 6, 2 }, { 3, 6 } });
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnBitmap) seen = NULL;
    guint taken = 0;

    two_socket(&h);
    r->dedicated = TRUE;
    VN_BITMAP_FOREACH (h.t->nodes[0].cpus, cpu)
        if (taken++ < 4)
            vn_bitmap_set(h.load->dedicated_cpus, (guint)cpu);
    p = vn_test_plan_ok(&h, r);
    vn_test_assert_invariants(&h, r, p);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 1);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 0);
    seen = vn_bitmap_new(h.t->n_cpu_ids);
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = cell(p, i);
        g_assert_cmpuint(vn_bitmap_count(c->cpus), ==, c->n_vcpus);
        for (guint v = c->vcpu_first; v < c->vcpu_first + c->n_vcpus; v++) {
            const VnBitmap *pin = g_ptr_array_index(p->vcpu_pins, v);
            g_assert_cmpuint(vn_bitmap_count(pin), ==, 1);
            g_assert_true(vn_bitmap_test(c->cpus, (guint)vn_bitmap_next(pin, -1)));
            g_assert_false(vn_bitmap_intersects(pin, seen));
            g_assert_false(vn_bitmap_intersects(pin, h.load->dedicated_cpus));
            vn_bitmap_or(seen, pin);
        }
    }
    /* committed, the CPUs are gone: the same VM again does not fit */
    vn_load_commit(h.load, h.t, h.policy, r, p);
    {
        g_autoptr(GError) error = NULL;
        g_assert_null(vn_plan(h.t, h.load, h.policy, r, NULL, &error));
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        g_assert_nonnull(strstr(error->message, "own sizes"));
    }
    vn_test_host_clear(&h);
}

static void
expect_invalid(VnTestHost *h, const VnRequest *r, const gchar *words)
{
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_plan(h->t, h->load, h->policy, r, NULL, &error));
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_INVALID_REQUEST);
    g_test_message("%s", error->message);
    g_assert_nonnull(strstr(error->message, words));
}

static void
test_invalid(void)
{
    VnTestHost h;

    two_socket(&h);
    { /* more sizes than cells */
        g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 2, 2 }, { 2, 2 } });
        r->cells = 3;
        expect_invalid(&h, r, "given for 2 guest cells, the request has 3");
        r->cells = 0;
        expect_invalid(&h, r, "the request has 0 cells");
    }
    { /* sums differ from the request */
        g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 2, 2 }, { 2, 2 } });
        r->vcpus = 5;
        expect_invalid(&h, r, "hold 4 vCPUs and 4194304 KiB in all, the request 5 vCPUs");
        r->vcpus = 4;
        r->memory_kib += 1024;
        expect_invalid(&h, r, "the request 4 vCPUs and 4195328 KiB");
    }
    { /* an empty cell */
        g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 2, 2 }, { 0, 0 } });
        expect_invalid(&h, r, "guest cell 1 (0 vCPUs, 0 KiB) has neither vCPUs nor memory");
    }
    { /* hugepages: each cell in whole pages */
        g_autoptr(VnRequest) r = vn_request_new();
        r->cells = 2;
        r->vcpus = 2;
        r->memory_kib = 2 * GIB;
        r->hugepage_kib = GIB;
        vn_request_add_cell_size(r, 1, GIB + GIB / 2);
        vn_request_add_cell_size(r, 1, GIB / 2);
        expect_invalid(&h, r,
                       "guest cell 0 (1 vCPUs, 1572864 KiB) has memory that is not a multiple");
    }
    vn_test_host_clear(&h);
    /* SMT require: each cell in whole cores (no real topology here has SMT) */
    vn_test_host_init(&h, vn_test_topology(VN_SHAPE_INTEL_2S, 0, 4, 2, 16));
    g_assert_cmpuint(h.t->smt_width, ==, 2);
    {
        g_autoptr(VnRequest) r = sized(2, (const guint[][2]){ { 3, 2 }, { 1, 2 } });
        r->dedicated = TRUE;
        r->smt = VN_SMT_REQUIRE;
        expect_invalid(&h, r, "guest cell 0 (3 vCPUs");
    }
    vn_test_host_clear(&h);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    if (!g_getenv("VN_TEST_DATA")) {
        g_printerr("VN_TEST_DATA is not set: run through meson test\n");
        return 77;
    }
    g_test_add_func("/plan/cells/one-order", test_one_order);
    g_test_add_func("/plan/cells/even-would-overbook", test_even_would_overbook);
    g_test_add_func("/plan/cells/one-node", test_one_node);
    g_test_add_func("/plan/cells/dedicated", test_dedicated);
    g_test_add_func("/plan/cells/invalid", test_invalid);
    return g_test_run();
}
