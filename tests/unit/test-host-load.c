/* test-host-load.c: CPU busy per node from /proc/stat snapshots, numastat.
 * Fixtures: tests/data/host-load (two snapshots) and
 * tests/data/sysroot/two-node-busy; the expected figures are worked out
 * in the comments from the fixture's jiffies. */
#include "vn-host-load.h"
#include "vn-test-fixture.h"

static VnCpuSnapshot *
read_snapshot(const gchar *name)
{
    g_autofree gchar *path = vn_test_data_path("host-load", name, NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) error = NULL;
    VnCpuSnapshot *s;

    g_assert_true(g_file_get_contents(path, &text, NULL, &error));
    s = vn_cpu_snapshot_parse(text, path, &error);
    g_assert_no_error(error);
    return s;
}

static void
test_snapshot_parse(void)
{
    g_autoptr(VnCpuSnapshot) s = read_snapshot("stat-after");

    g_assert_cmpuint(s->n_cpus, ==, 8);
    /* cpu0 1030 10 210 5045 45 10 10 0 330 0: guest (330) is already in
     * user, iowait counts as idle */
    g_assert_true(s->cpus[0].present);
    g_assert_cmpuint(s->cpus[0].busy, ==, 1030 + 10 + 210 + 10 + 10);
    g_assert_cmpuint(s->cpus[0].idle, ==, 5045 + 45);
    /* cpu1 steal counts as busy */
    g_assert_cmpuint(s->cpus[1].busy, ==, 2060 + 20 + 500 + 20);
    /* cpu5 is offline: no line */
    g_assert_false(s->cpus[5].present);
    g_assert_true(s->cpus[7].present);
}

static void
test_busy_interval(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnCpuSnapshot) before = read_snapshot("stat-before");
    g_autoptr(VnCpuSnapshot) after = read_snapshot("stat-after");

    vn_host_cpu_busy_compute(t, before, after, load);
    /* node 0: cpu0 50/100, cpu1 100/100, cpu2 0/100, cpu3 50/100 */
    g_assert_cmpfloat_with_epsilon(load->nodes[0].cpu_busy, 200.0 / 400.0, 1e-12);
    /* node 1: cpu4 25/100, cpu5 offline (left out), cpu6 0/100, cpu7 5/100 */
    g_assert_cmpfloat_with_epsilon(load->nodes[1].cpu_busy, 30.0 / 300.0, 1e-12);
    /* node 3 has no CPUs: unknown */
    g_assert_cmpfloat(load->nodes[2].cpu_busy, <, 0.0);
}

/* CPU busy per node measured from tests/data/sysroot/two-node-busy over
 * `interval_s` seconds (0: since boot). */
static VnLoad *
measure_two_node_busy(const VnTopology *t, guint interval_s)
{
    g_autofree gchar *sysroot = vn_test_data_path("sysroot", "two-node-busy", NULL);
    g_autoptr(GError) error = NULL;
    VnLoad *load = vn_load_new(t);

    g_assert_true(vn_host_measure_cpu_busy(sysroot, t, load, interval_s, &error));
    g_assert_no_error(error);
    return load;
}

static void
test_busy_since_boot(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnLoad) load = measure_two_node_busy(t, 0);

    /* node 0 busy 1270+2600+200+650, idle 5090+4000+8100+7150 */
    g_assert_cmpfloat_with_epsilon(load->nodes[0].cpu_busy, 4720.0 / 29060.0, 1e-12);
    /* node 1 busy 525+0+25, idle 6075+9100+9095 */
    g_assert_cmpfloat_with_epsilon(load->nodes[1].cpu_busy, 550.0 / 24820.0, 1e-12);
    g_assert_cmpfloat(load->nodes[2].cpu_busy, <, 0.0);
}

/* A sleep between two reads of the same file: nothing ticked, so busy
 * stays unknown instead of dividing by zero. */
static void
test_busy_no_ticks(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnLoad) load = measure_two_node_busy(t, 1);

    for (guint i = 0; i < t->n_nodes; i++)
        g_assert_cmpfloat(load->nodes[i].cpu_busy, <, 0.0);
}

/* A CPU whose counters went backwards (offline and back) is left out. */
static void
test_busy_counter_reset(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnCpuSnapshot) before = NULL, after = NULL;

    before = vn_cpu_snapshot_parse("cpu0 100 0 0 100\ncpu1 500 0 0 500\n", "before", NULL);
    after = vn_cpu_snapshot_parse("cpu0 110 0 0 190\ncpu1 5 0 0 5\n", "after", NULL);
    g_assert_nonnull(before);
    g_assert_nonnull(after);
    vn_host_cpu_busy_compute(t, before, after, load);
    /* old kernels' four fields are enough; cpu1 is ignored */
    g_assert_cmpfloat_with_epsilon(load->nodes[0].cpu_busy, 10.0 / 100.0, 1e-12);
    g_assert_cmpfloat(load->nodes[1].cpu_busy, <, 0.0);
}

static void
test_snapshot_bad(void)
{
    static const struct {
        const gchar *text;
        const gchar *message;
    } cases[] = {
        { "cpu  1 2 3 4\nintr 5\n", "stat: no per-CPU \"cpuN\" lines" },
        { "cpu0 1 2 3\n", "stat: line 1: malformed CPU line \"cpu0 1 2 3\"" },
        { "cpu0 1 2 3 4\ncpu1 1 x 3 4\n", "stat: line 2: malformed CPU line \"cpu1 1 x 3 4\"" },
        { "cpu0 1 2 3 -4\n", "stat: line 1: malformed CPU line \"cpu0 1 2 3 -4\"" },
        { "cpu99999999 1 2 3 4\n", NULL },
        { "cpu0x 1 2 3 4\n", NULL },
        { "", NULL },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnCpuSnapshot) s = vn_cpu_snapshot_parse(cases[i].text, "stat", &error);

        g_assert_null(s);
        g_assert_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_PARSE);
        if (cases[i].message)
            g_assert_cmpstr(error->message, ==, cases[i].message);
    }
}

static void
test_missing_sysroot(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(GError) error = NULL;
    g_autofree gchar *sysroot = vn_test_data_path("sysroot", "no-such-host", NULL);

    g_assert_false(vn_host_measure_cpu_busy(sysroot, t, load, 0, &error));
    g_assert_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_READ);
    g_assert_nonnull(strstr(error->message, "no-such-host/proc/stat"));
    g_assert_cmpfloat(load->nodes[0].cpu_busy, <, 0.0);
}

static void
test_numastat(void)
{
    g_autofree gchar *sysroot = vn_test_data_path("sysroot", "two-node-busy", NULL);
    g_autoptr(GError) error = NULL;
    VnNumastat st = { 0 };

    g_assert_true(vn_host_read_numastat(sysroot, 1, &st, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(st.numa_hit, ==, 998877);
    g_assert_cmpuint(st.numa_miss, ==, 7);
    g_assert_cmpuint(st.numa_foreign, ==, 12);
    g_assert_cmpuint(st.interleave_hit, ==, 1130);
    g_assert_cmpuint(st.local_node, ==, 998000);
    g_assert_cmpuint(st.other_node, ==, 884);

    g_assert_false(vn_host_read_numastat(sysroot, 3, &st, &error));
    g_assert_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_READ);
    g_assert_nonnull(strstr(error->message, "node3/numastat"));
    g_assert_cmpuint(st.numa_hit, ==, 998877);
}

/* This host's own numastat, when it has one: every key is there. */
static void
test_numastat_live(void)
{
    g_autoptr(GError) error = NULL;
    VnNumastat st;

    if (!g_file_test("/sys/devices/system/node/node0/numastat", G_FILE_TEST_EXISTS)) {
        g_test_skip("no /sys/devices/system/node/node0/numastat here");
        return;
    }
    g_assert_true(vn_host_read_numastat("/", 0, &st, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(st.local_node + st.other_node, >, 0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plugin/host-load/snapshot-parse", test_snapshot_parse);
    g_test_add_func("/plugin/host-load/snapshot-bad", test_snapshot_bad);
    g_test_add_func("/plugin/host-load/busy-interval", test_busy_interval);
    g_test_add_func("/plugin/host-load/busy-since-boot", test_busy_since_boot);
    g_test_add_func("/plugin/host-load/busy-no-ticks", test_busy_no_ticks);
    g_test_add_func("/plugin/host-load/busy-counter-reset", test_busy_counter_reset);
    g_test_add_func("/plugin/host-load/missing-sysroot", test_missing_sysroot);
    g_test_add_func("/plugin/host-load/numastat", test_numastat);
    g_test_add_func("/plugin/host-load/numastat-live", test_numastat_live);
    return g_test_run();
}
