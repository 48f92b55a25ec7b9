/* bench-topology-import [RUNS] [FILE.xml...]: what crash isolation costs.
 * For each hwloc XML file, the wall time and the CPU time
 * (user + system, this process and its reaped children) of
 * vn_topology_load_hwloc_xml() in this process and of the same import
 * through vn_topology_load_isolated() (fork, the child imports, the
 * topology back over a pipe as JSON, parsed and finished here), medians
 * in milliseconds.  On a loaded machine the wall time of the isolated
 * import includes waiting for the child to be scheduled; the CPU time is
 * the work.  Without files: the tests/data/hwloc
 * fixtures given by $VN_TEST_DATA, else those below the source root.
 * The hook only pays this on a topology cache miss. */
#include <sys/resource.h>
#include "vn-config-build.h"
#include "vn-topology-source.h"

static gint
cmp_double(gconstpointer a, gconstpointer b)
{
    gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
    return x < y ? -1 : x > y;
}

typedef struct {
    gdouble median, p90, cpu;
} Timing;

/* CPU ms of this process and its waited-for children so far. */
static gdouble
cpu_ms(void)
{
    struct rusage self, children;

    getrusage(RUSAGE_SELF, &self);
    getrusage(RUSAGE_CHILDREN, &children);
    return (self.ru_utime.tv_sec + self.ru_stime.tv_sec + children.ru_utime.tv_sec +
            children.ru_stime.tv_sec) *
               1000.0 +
           (self.ru_utime.tv_usec + self.ru_stime.tv_usec + children.ru_utime.tv_usec +
            children.ru_stime.tv_usec) /
               1000.0;
}

static Timing
measure(gboolean isolated, const gchar *path, guint runs)
{
    g_autoptr(GArray) t = g_array_new(FALSE, FALSE, sizeof(gdouble));
    g_autoptr(GArray) c = g_array_new(FALSE, FALSE, sizeof(gdouble));

    for (guint i = 0; i < runs; i++) {
        gdouble c0 = cpu_ms();
        g_autoptr(GError) error = NULL;
        gint64 t0 = g_get_monotonic_time();
        g_autoptr(VnTopology) topo =
            isolated ? vn_topology_load_isolated(vn_topology_load_hwloc_xml, path, path, &error)
                     : vn_topology_load_hwloc_xml(path, &error);
        gdouble ms = (g_get_monotonic_time() - t0) / 1000.0;
        gdouble cpu = cpu_ms() - c0;
        if (!topo)
            g_error("%s", error->message);
        g_array_append_val(t, ms);
        g_array_append_val(c, cpu);
    }
    g_array_sort(t, cmp_double);
    g_array_sort(c, cmp_double);
    return (Timing){ g_array_index(t, gdouble, runs / 2), g_array_index(t, gdouble, runs * 9 / 10),
                     g_array_index(c, gdouble, runs / 2) };
}

static void
bench(const gchar *path, guint runs)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_hwloc_xml(path, &error);
    g_autofree gchar *base = g_path_get_basename(path);
    Timing in, iso;

    if (!t)
        g_error("%s", error->message);
    in = measure(FALSE, path, runs);
    iso = measure(TRUE, path, runs);
    g_print("%-26s %2u nodes %3u CPUs  in-process %6.2f ms (p90 %6.2f, CPU %6.2f)  "
            "isolated %6.2f ms (p90 %6.2f, CPU %6.2f)  +%.2f ms wall, +%.2f ms CPU\n",
            base, t->n_nodes, t->cpus->len, in.median, in.p90, in.cpu, iso.median, iso.p90, iso.cpu,
            iso.median - in.median, iso.cpu - in.cpu);
}

int
main(int argc, char **argv)
{
    guint runs = argc > 1 ? (guint)g_ascii_strtoull(argv[1], NULL, 10) : 51;
    const gchar *data = g_getenv("VN_TEST_DATA");
    g_autofree gchar *dir =
        data ? g_build_filename(data, "hwloc", NULL)
             : g_build_filename(VNUMA_SOURCE_ROOT, "tests", "data", "hwloc", NULL);

    if (runs == 0) {
        g_printerr("usage: %s [RUNS] [FILE.xml...]\n", argv[0]);
        return 2;
    }
    g_print("== topology import: in-process vs in a child (median of %u runs)\n", runs);
    if (argc > 2) {
        for (int i = 2; i < argc; i++)
            bench(argv[i], runs);
        return 0;
    }
    static const gchar *const files[] = {
        "hagrid.xml",
        "64amd64-4p2n4ca2co.xml",
        "192em64t-24n8c2t.xml",
    };
    for (gsize i = 0; i < G_N_ELEMENTS(files); i++) {
        g_autofree gchar *path = g_build_filename(dir, files[i], NULL);
        bench(path, runs);
    }
    return 0;
}
