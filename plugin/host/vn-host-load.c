/* vn-host-load.c: CPU busy per node from /proc/stat, numastat per node. */
#include "vn-host-load.h"

G_DEFINE_QUARK(vn-host-load-error-quark, vn_host_load_error);

/* Ids past this are not a CPU number but a corrupt file. */
#define VN_MAX_CPU_ID (1u << 20)

void
vn_cpu_snapshot_free(VnCpuSnapshot *s)
{
    if (!s)
        return;
    g_free(s->cpus);
    g_free(s);
}

static gchar *
sysroot_path(const gchar *sysroot, const gchar *relative)
{
    return g_build_filename(sysroot ? sysroot : "/", relative, NULL);
}

/* Splits one "cpuN v v v ..." line into its id and numbers; returns
 * FALSE for a malformed line. */
static gboolean
parse_cpu_line(const gchar *line, guint *ret_id, guint64 *values, guint *ret_n)
{
    g_auto(GStrv) fields = g_strsplit(line, " ", -1);
    guint64 id;
    guint n = 0;

    if (!g_ascii_string_to_unsigned(fields[0] + 3, 10, 0, VN_MAX_CPU_ID, &id, NULL))
        return FALSE;
    for (guint i = 1; fields[i] && n < 10; i++) {
        if (fields[i][0] == '\0')
            continue;
        if (!g_ascii_string_to_unsigned(fields[i], 10, 0, G_MAXUINT64, &values[n++], NULL))
            return FALSE;
    }
    *ret_id = id;
    *ret_n = n;
    return TRUE;
}

static VnCpuTimes
cpu_times_from_values(const guint64 *v, guint n)
{
    /* user nice system idle iowait irq softirq steal guest guest_nice;
     * kernels before 2.6.33 stop early, the missing ones count as 0. */
    guint64 f[8] = { 0 };
    VnCpuTimes times;

    for (guint i = 0; i < MIN(n, 8u); i++)
        f[i] = v[i];
    times.busy = f[0] + f[1] + f[2] + f[5] + f[6] + f[7];
    times.idle = f[3] + f[4];
    times.present = TRUE;
    return times;
}

VnCpuSnapshot *
vn_cpu_snapshot_parse(const gchar *text, const gchar *origin, GError **error)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GArray) times = g_array_new(FALSE, TRUE, sizeof(VnCpuTimes));
    g_autoptr(VnCpuSnapshot) s = g_new0(VnCpuSnapshot, 1);

    for (guint l = 0; lines[l]; l++) {
        guint64 values[10];
        guint id, n;

        if (!g_str_has_prefix(lines[l], "cpu") || !g_ascii_isdigit(lines[l][3]))
            continue;
        if (!parse_cpu_line(lines[l], &id, values, &n) || n < 4) {
            g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_PARSE,
                        "%s: line %u: malformed CPU line \"%s\"", origin, l + 1, lines[l]);
            return NULL;
        }
        if (id >= times->len)
            g_array_set_size(times, id + 1);
        g_array_index(times, VnCpuTimes, id) = cpu_times_from_values(values, n);
    }
    if (times->len == 0) {
        g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_PARSE,
                    "%s: no per-CPU \"cpuN\" lines", origin);
        return NULL;
    }
    s->n_cpus = times->len;
    s->cpus = (VnCpuTimes *)g_array_free(g_steal_pointer(&times), FALSE);
    return g_steal_pointer(&s);
}

VnCpuSnapshot *
vn_cpu_snapshot_read(const gchar *sysroot, GError **error)
{
    g_autofree gchar *path = sysroot_path(sysroot, "proc/stat");
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, &text, NULL, &local)) {
        g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_READ, "%s", local->message);
        return NULL;
    }
    return vn_cpu_snapshot_parse(text, path, error);
}

static const VnCpuTimes *
snapshot_cpu(const VnCpuSnapshot *s, guint cpu)
{
    if (cpu >= s->n_cpus || !s->cpus[cpu].present)
        return NULL;
    return &s->cpus[cpu];
}

/* Busy fraction of one node, or -1 when its CPUs did not tick. */
static gdouble
node_busy(const VnBitmap *cpus, const VnCpuSnapshot *before, const VnCpuSnapshot *after)
{
    guint64 busy = 0, total = 0;

    VN_BITMAP_FOREACH (cpus, cpu) {
        const VnCpuTimes *b = before ? snapshot_cpu(before, cpu) : NULL;
        const VnCpuTimes *a = snapshot_cpu(after, cpu);

        if (!a || (before && !b))
            continue;
        /* Counters only grow; a CPU that went offline and came back may
         * restart them, and then it tells us nothing. */
        if (b && (a->busy < b->busy || a->idle < b->idle))
            continue;
        busy += a->busy - (b ? b->busy : 0);
        total += (a->busy + a->idle) - (b ? b->busy + b->idle : 0);
    }
    return total > 0 ? (gdouble)busy / (gdouble)total : -1.0;
}

void
vn_host_cpu_busy_compute(const VnTopology *t, const VnCpuSnapshot *before,
                         const VnCpuSnapshot *after, VnLoad *load)
{
    g_return_if_fail(t && after && load && load->n_nodes == t->n_nodes);

    for (guint i = 0; i < t->n_nodes; i++) {
        if (vn_bitmap_is_empty(t->nodes[i].cpus))
            continue;
        load->nodes[i].cpu_busy = node_busy(t->nodes[i].cpus, before, after);
    }
}

gboolean
vn_host_measure_cpu_busy(const gchar *sysroot, const VnTopology *t, VnLoad *load, guint interval_ms,
                         GError **error)
{
    g_autoptr(VnCpuSnapshot) before = NULL;
    g_autoptr(VnCpuSnapshot) after = NULL;

    if (interval_ms > 0) {
        before = vn_cpu_snapshot_read(sysroot, error);
        if (!before)
            return FALSE;
        g_usleep((gulong)interval_ms * 1000);
    }
    after = vn_cpu_snapshot_read(sysroot, error);
    if (!after)
        return FALSE;
    vn_host_cpu_busy_compute(t, before, after, load);
    return TRUE;
}

/* numastat: "key value" lines.  The table maps each key we keep to its
 * field so the reader stays one loop. */
static const struct {
    const gchar *key;
    gsize offset;
} numastat_keys[] = {
    { "numa_hit", G_STRUCT_OFFSET(VnNumastat, numa_hit) },
    { "numa_miss", G_STRUCT_OFFSET(VnNumastat, numa_miss) },
    { "numa_foreign", G_STRUCT_OFFSET(VnNumastat, numa_foreign) },
    { "interleave_hit", G_STRUCT_OFFSET(VnNumastat, interleave_hit) },
    { "local_node", G_STRUCT_OFFSET(VnNumastat, local_node) },
    { "other_node", G_STRUCT_OFFSET(VnNumastat, other_node) },
};

static gint
numastat_key_index(const gchar *key)
{
    for (gsize k = 0; k < G_N_ELEMENTS(numastat_keys); k++)
        if (g_str_equal(numastat_keys[k].key, key))
            return (gint)k;
    return -1;
}

static gboolean
numastat_parse(const gchar *text, const gchar *path, VnNumastat *ret_stat, GError **error)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    VnNumastat stat = { 0 };
    guint seen = 0;

    for (guint l = 0; lines[l]; l++) {
        g_auto(GStrv) kv = g_strsplit(lines[l], " ", 2);
        gint k = kv[0] ? numastat_key_index(kv[0]) : -1;
        guint64 value;

        if (k < 0)
            continue;
        if (!kv[1] || !g_ascii_string_to_unsigned(kv[1], 10, 0, G_MAXUINT64, &value, NULL)) {
            g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_PARSE,
                        "%s: line %u: malformed \"%s\"", path, l + 1, lines[l]);
            return FALSE;
        }
        G_STRUCT_MEMBER(guint64, &stat, numastat_keys[k].offset) = value;
        seen |= 1u << k;
    }
    for (gsize k = 0; k < G_N_ELEMENTS(numastat_keys); k++) {
        if (!(seen & (1u << k))) {
            g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_PARSE, "%s: no \"%s\" line",
                        path, numastat_keys[k].key);
            return FALSE;
        }
    }
    *ret_stat = stat;
    return TRUE;
}

gboolean
vn_host_read_numastat(const gchar *sysroot, guint node_os_id, VnNumastat *ret_stat, GError **error)
{
    g_autofree gchar *rel = g_strdup_printf("sys/devices/system/node/node%u/numastat", node_os_id);
    g_autofree gchar *path = sysroot_path(sysroot, rel);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, &text, NULL, &local)) {
        g_set_error(error, VN_HOST_LOAD_ERROR, VN_HOST_LOAD_ERROR_READ, "%s", local->message);
        return FALSE;
    }
    return numastat_parse(text, path, ret_stat, error);
}
