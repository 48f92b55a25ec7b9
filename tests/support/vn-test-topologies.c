/* vn-test-topologies.c: synthetic hosts with distance matrices seen on
 * real machines (../shared/reference/performance-anchors.md, 2.3). */
#include "vn-test-topologies.h"

static guint
hier_distance(guint a, guint b)
{
    guint x = a ^ b;

    if (x == 0)
        return 10;
    if (x < 2)
        return 12;
    if (x < 4)
        return 17;
    if (x < 8)
        return 19;
    return 21 + 2 * (guint)(31 - __builtin_clz(x) - 3);
}

guint
vn_test_shape_distance(VnShape shape, guint nodes, guint a, guint b)
{
    (void)nodes;
    if (a == b)
        return 10;
    switch (shape) {
    case VN_SHAPE_INTEL_2S:
        return 21;
    case VN_SHAPE_EPYC_2S_NPS4:
        return a / 4 == b / 4 ? 12 : 32;
    case VN_SHAPE_INTEL_8S:
    case VN_SHAPE_HIER:
    default:
        return hier_distance(a, b);
    }
}

/* L3 j of node i: cores j*cores/l3 .. (j+1)*cores/l3 - 1 of the node,
 * with their siblings (CPU ids as numbered below). */
static void
add_l3(VnTopology *t, guint n, guint cores, guint threads, guint l3)
{
    guint n_cpus = n * cores * threads;

    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < l3; j++) {
            g_autoptr(VnBitmap) cpus = vn_bitmap_new(n_cpus);
            for (guint th = 0; th < threads; th++)
                for (guint c = j * cores / l3; c < (j + 1) * cores / l3; c++)
                    vn_bitmap_set(cpus, th * n * cores + i * cores + c);
            vn_topology_add_l3(t, cpus, 32 * 1024);
        }
}

VnTopology *
vn_test_topology(VnShape shape, guint nodes, guint cores, guint threads, guint mem_gib)
{
    return vn_test_topology_l3(shape, nodes, cores, threads, mem_gib, 0);
}

VnTopology *
vn_test_topology_l3(VnShape shape, guint nodes, guint cores, guint threads, guint mem_gib,
                    guint l3_per_node)
{
    static const guint fixed[] = { 2, 8, 8, 0 };
    VnTopology *t;
    guint n = fixed[shape] ? fixed[shape] : nodes, cpu = 0;
    g_autofree gchar *name = g_strdup_printf("test shape %d, %u nodes x %u cores x %u threads",
                                             shape, n, cores, threads);

    t = vn_topology_new(name);
    for (guint i = 0; i < n; i++)
        vn_topology_add_node(t, i, (guint64)mem_gib * 1024 * 1024);
    /* CPU numbering as Linux does on x86: first threads of all cores, then
     * the second threads. */
    for (guint th = 0; th < threads; th++)
        for (guint i = 0; i < n; i++)
            for (guint c = 0; c < cores; c++)
                vn_topology_add_cpu(t, cpu++, (gint)i, i * cores + c,
                                    shape == VN_SHAPE_EPYC_2S_NPS4 ? i / 4 : i);
    for (guint a = 0; a < n; a++)
        for (guint b = 0; b < n; b++)
            vn_topology_set_distance(t, a, b, vn_test_shape_distance(shape, n, a, b));
    add_l3(t, n, cores, threads, l3_per_node);
    g_assert_true(vn_topology_finish(t, NULL));
    return t;
}
