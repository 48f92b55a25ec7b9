/* test-probe.c: measured distances against the firmware's table, with
 * injected latencies: a flat SLIT over two measured classes, an order
 * inversion, an asymmetric pair, and the tables that agree. */
#include "vn-probe.h"

/* n nodes with 2 CPUs each and the firmware table `slit` (row-major). */
static VnTopology *
host(guint n, const guint *slit)
{
    g_autoptr(VnTopology) t = vn_topology_new("test");
    g_autoptr(GError) error = NULL;

    for (guint i = 0; i < n; i++)
        vn_topology_add_node(t, i, 1 << 20);
    for (guint c = 0; c < 2 * n; c++)
        vn_topology_add_cpu(t, c, (gint)(c / 2), c, c / 2);
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            vn_topology_set_distance(t, i, j, slit[i * n + j]);
    g_assert_true(vn_topology_finish(t, &error));
    return g_steal_pointer(&t);
}

static VnProbe *
probe(guint n, const gdouble *latency)
{
    VnProbe *p = vn_probe_new(n);

    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            vn_probe_set(p, i, j, latency[i * n + j], 1000.0);
    return p;
}

static guint
count(GPtrArray *findings, VnProbeFindingKind kind)
{
    guint k = 0;

    for (guint i = 0; i < findings->len; i++)
        k += ((VnProbeFinding *)g_ptr_array_index(findings, i))->kind == kind;
    return k;
}

/* Two sockets of two nodes: 100 ns local, 130 ns on the same socket,
 * 250 ns across; the firmware says 20 for every remote pair. */
static void
test_flat(void)
{
    static const guint slit[] = { 10, 20, 20, 20, 20, 10, 20, 20, 20, 20, 10, 20, 20, 20, 20, 10 };
    static const gdouble lat[] = { 100, 130, 250, 250, 130, 100, 250, 250,
                                   250, 250, 100, 130, 250, 250, 130, 100 };
    g_autoptr(VnTopology) t = host(4, slit);
    g_autoptr(VnProbe) p = probe(4, lat);
    g_autofree guint *d = vn_probe_distances(p);
    g_autoptr(GArray) classes = vn_probe_classes(p);
    g_autoptr(GPtrArray) f = vn_probe_compare(p, t);

    g_assert_cmpuint(d[0 * 4 + 0], ==, 10);
    g_assert_cmpuint(d[0 * 4 + 1], ==, 13);
    g_assert_cmpuint(d[0 * 4 + 2], ==, 25);
    g_assert_cmpuint(classes->len, ==, 2);
    g_assert_cmpuint(g_array_index(classes, guint, 0), ==, 13);
    g_assert_cmpuint(g_array_index(classes, guint, 1), ==, 25);
    g_assert_cmpuint(f->len, ==, 1);
    g_assert_cmpuint(count(f, VN_PROBE_FINDING_FLAT), ==, 1);
    g_assert_cmpstr(((VnProbeFinding *)f->pdata[0])->text, ==,
                    "flat firmware table: every remote distance is 20, but the measured "
                    "distances form 2 classes (from 13, 25)");
}

/* Node 0: the firmware puts node 1 (16) nearer than node 2 (22); the walk
 * measures node 1 slower. */
static void
test_inversion(void)
{
    static const guint slit[] = { 10, 16, 22, 16, 10, 16, 22, 16, 10 };
    static const gdouble lat[] = { 100, 240, 150, 240, 100, 150, 150, 150, 100 };
    g_autoptr(VnTopology) t = host(3, slit);
    g_autoptr(VnProbe) p = probe(3, lat);
    g_autoptr(GPtrArray) f = vn_probe_compare(p, t);
    VnProbeFinding *first;

    g_assert_cmpuint(count(f, VN_PROBE_FINDING_FLAT), ==, 0);
    g_assert_cmpuint(count(f, VN_PROBE_FINDING_ASYMMETRY), ==, 0);
    g_assert_cmpuint(count(f, VN_PROBE_FINDING_INVERSION), ==, 1);
    first = f->pdata[0];
    g_assert_cmpuint(first->a, ==, 0);
    g_assert_cmpuint(first->b, ==, 1);
    g_assert_cmpuint(first->c, ==, 2);
    g_assert_cmpstr(first->text, ==,
                    "order inversion from node 0: the firmware puts node 1 (16) nearer than "
                    "node 2 (22), but it measures 240 ns against 150 ns");
}

/* 0 -> 1 costs 140 ns, 1 -> 0 costs 200 ns; the firmware says 21 both ways. */
static void
test_asymmetry(void)
{
    static const guint slit[] = { 10, 21, 21, 10 };
    static const gdouble lat[] = { 100, 140, 200, 100 };
    g_autoptr(VnTopology) t = host(2, slit);
    g_autoptr(VnProbe) p = probe(2, lat);
    g_autoptr(GPtrArray) f = vn_probe_compare(p, t);
    g_autofree guint *d = vn_probe_distances(p);

    g_assert_cmpuint(f->len, ==, 1);
    g_assert_cmpuint(count(f, VN_PROBE_FINDING_ASYMMETRY), ==, 1);
    g_assert_cmpuint(d[1], ==, 14);
    g_assert_cmpuint(d[2], ==, 20);
    g_assert_cmpstr(((VnProbeFinding *)f->pdata[0])->text, ==,
                    "asymmetry between nodes 0 and 1: the firmware gives both ways 21, the "
                    "walk measures 140 ns from 0 and 200 ns from 1");
}

/* Agreement, noise within the ratios, one node, and unmeasured pairs
 * (a memory-only node has no row). */
static void
test_agree(void)
{
    static const guint slit[] = { 10, 21, 21, 10 };
    static const gdouble lat[] = { 100, 160, 170, 104 };
    static const guint one_slit[] = { 10 };
    static const gdouble one_lat[] = { 95 };
    g_autoptr(VnTopology) t = host(2, slit);
    g_autoptr(VnProbe) p = probe(2, lat);
    g_autoptr(GPtrArray) f = vn_probe_compare(p, t);
    g_autoptr(VnTopology) t1 = host(1, one_slit);
    g_autoptr(VnProbe) p1 = probe(1, one_lat);
    g_autoptr(GPtrArray) f1 = vn_probe_compare(p1, t1);
    g_autoptr(VnProbe) half = vn_probe_new(2);
    g_autoptr(GPtrArray) fh = NULL;
    g_autofree guint *dh = NULL;

    g_assert_cmpuint(f->len, ==, 0);
    g_assert_cmpuint(f1->len, ==, 0);
    /* CPU-only node 0 measures only node 1's memory: its local latency is
     * the lowest it has */
    vn_probe_set(half, 0, 1, 180, 900);
    g_assert_cmpfloat(vn_probe_local_latency(half, 0), ==, 180);
    g_assert_cmpfloat(vn_probe_local_latency(half, 1), <, 0);
    dh = vn_probe_distances(half);
    g_assert_cmpuint(dh[0], ==, 0);
    g_assert_cmpuint(dh[1], ==, 10);
    fh = vn_probe_compare(half, t);
    g_assert_cmpuint(fh->len, ==, 0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/probe/flat-slit-two-classes", test_flat);
    g_test_add_func("/probe/inversion", test_inversion);
    g_test_add_func("/probe/asymmetry", test_asymmetry);
    g_test_add_func("/probe/agree", test_agree);
    return g_test_run();
}
