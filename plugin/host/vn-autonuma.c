/* vn-autonuma.c: kernel.numa_balancing, /proc/vmstat's NUMA balancing
 * counters and a process's /proc/<pid>/task/<tid>/sched figures. */
#include "vn-autonuma.h"

#include <errno.h>
#include <glib/gstdio.h>

G_DEFINE_QUARK(vn-autonuma-error-quark, vn_autonuma_error);

#define SYSCTL "proc/sys/kernel/numa_balancing"

static gchar *
sysroot_path(const gchar *sysroot, const gchar *relative)
{
    return g_build_filename(sysroot && *sysroot ? sysroot : "/", relative, NULL);
}

static gboolean
read_text(const gchar *path, gchar **ret_text, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (g_file_get_contents(path, ret_text, NULL, &local))
        return TRUE;
    if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ, "no %s", path);
    else
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ, "%s", local->message);
    return FALSE;
}

gboolean
vn_autonuma_mode_parse(const gchar *text, const gchar *origin, gint *ret_mode, GError **error)
{
    g_autofree gchar *copy = g_strstrip(g_strdup(text));
    guint64 v;

    /* bits 1 and 2 are all Linux defines (6.1 to 6.12) */
    if (!g_ascii_string_to_unsigned(copy, 10, 0, 3, &v, NULL)) {
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE,
                    "%s: \"%s\" is not a numa_balancing mode (0 to 3)", origin, copy);
        return FALSE;
    }
    *ret_mode = (gint)v;
    return TRUE;
}

gboolean
vn_autonuma_mode_read(const gchar *sysroot, gint *ret_mode, GError **error)
{
    g_autofree gchar *path = sysroot_path(sysroot, SYSCTL);
    g_autofree gchar *text = NULL;

    return read_text(path, &text, error) && vn_autonuma_mode_parse(text, path, ret_mode, error);
}

const gchar *
vn_autonuma_mode_describe(gint mode)
{
    static const gchar *const words[] = { "off", "normal balancing", "tiering promotion only",
                                          "normal balancing and tiering promotion" };

    return mode >= 0 && mode < (gint)G_N_ELEMENTS(words) ? words[mode] : "unknown";
}

gboolean
vn_autonuma_rates(const VnAutonumaCounters *before, const VnAutonumaCounters *after,
                  gdouble seconds, VnAutonumaRates *ret_rates)
{
    VnAutonumaRates r;

    if (seconds <= 0 || after->hint_faults < before->hint_faults ||
        after->hint_faults_local < before->hint_faults_local ||
        after->pages_migrated < before->pages_migrated || after->promoted < before->promoted ||
        after->demoted < before->demoted)
        return FALSE;
    r.hint_faults = (gdouble)(after->hint_faults - before->hint_faults) / seconds;
    r.hint_faults_local = (gdouble)(after->hint_faults_local - before->hint_faults_local) / seconds;
    r.pages_migrated = (gdouble)(after->pages_migrated - before->pages_migrated) / seconds;
    r.promoted = (gdouble)(after->promoted - before->promoted) / seconds;
    r.demoted = (gdouble)(after->demoted - before->demoted) / seconds;
    *ret_rates = r;
    return TRUE;
}

gboolean
vn_autonuma_mode_write(const gchar *sysroot, gint mode, GError **error)
{
    g_autofree gchar *path = sysroot_path(sysroot, SYSCTL);
    g_autofree gchar *text = g_strdup_printf("%d\n", mode);
    FILE *f;
    gboolean ok;
    int err = 0;

    g_return_val_if_fail(mode >= 0 && mode <= 3, FALSE);
    /* not g_file_set_contents(): a sysctl is written in place, never
     * replaced by a rename */
    if (!(f = g_fopen(path, "w"))) {
        err = errno;
    } else {
        ok = fputs(text, f) != EOF;
        if (!ok)
            err = errno;
        if (fclose(f) != 0 && ok)
            err = errno;
    }
    if (err) {
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_WRITE, "cannot write %d to %s: %s",
                    mode, path, g_strerror(err));
        return FALSE;
    }
    return TRUE;
}

/* vmstat: "key value" lines, read through a table as numastat's are. */
static const struct {
    const gchar *key;
    gsize offset;
    gboolean required;
} vmstat_keys[] = {
    { "numa_hint_faults", G_STRUCT_OFFSET(VnAutonumaCounters, hint_faults), TRUE },
    { "numa_hint_faults_local", G_STRUCT_OFFSET(VnAutonumaCounters, hint_faults_local), TRUE },
    { "numa_pages_migrated", G_STRUCT_OFFSET(VnAutonumaCounters, pages_migrated), TRUE },
    { "numa_pte_updates", G_STRUCT_OFFSET(VnAutonumaCounters, pte_updates), TRUE },
    { "pgpromote_success", G_STRUCT_OFFSET(VnAutonumaCounters, promoted), FALSE },
};

static gint
vmstat_key_index(const gchar *key)
{
    for (gsize k = 0; k < G_N_ELEMENTS(vmstat_keys); k++)
        if (g_str_equal(vmstat_keys[k].key, key))
            return (gint)k;
    return -1;
}

static gboolean
vmstat_fail(GError **error, const gchar *origin, guint line, const gchar *text)
{
    g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE, "%s: line %u: malformed \"%s\"",
                origin, line, text);
    return FALSE;
}

gboolean
vn_autonuma_vmstat_parse(const gchar *text, const gchar *origin, VnAutonumaCounters *ret_counters,
                         GError **error)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    VnAutonumaCounters c = { 0 };
    guint seen = 0;

    for (guint l = 0; lines[l]; l++) {
        g_auto(GStrv) kv = g_strsplit(lines[l], " ", 2);
        gint k = kv[0] ? vmstat_key_index(kv[0]) : -1;
        gboolean demote = kv[0] && g_str_has_prefix(kv[0], "pgdemote_");
        guint64 value;

        if (k < 0 && !demote)
            continue;
        if (!kv[1] || !g_ascii_string_to_unsigned(kv[1], 10, 0, G_MAXUINT64, &value, NULL))
            return vmstat_fail(error, origin, l + 1, lines[l]);
        if (demote) {
            c.demoted += value;
            c.tiering = TRUE;
            continue;
        }
        G_STRUCT_MEMBER(guint64, &c, vmstat_keys[k].offset) = value;
        seen |= 1u << k;
    }
    for (gsize k = 0; k < G_N_ELEMENTS(vmstat_keys); k++) {
        if (vmstat_keys[k].required && !(seen & (1u << k))) {
            g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE,
                        "%s: no \"%s\" line (a kernel without NUMA balancing)", origin,
                        vmstat_keys[k].key);
            return FALSE;
        }
    }
    if (seen & (1u << vmstat_key_index("pgpromote_success")))
        c.tiering = TRUE;
    *ret_counters = c;
    return TRUE;
}

gboolean
vn_autonuma_vmstat_read(const gchar *sysroot, VnAutonumaCounters *ret_counters, GError **error)
{
    g_autofree gchar *path = sysroot_path(sysroot, "proc/vmstat");
    g_autofree gchar *text = NULL;

    return read_text(path, &text, error) &&
           vn_autonuma_vmstat_parse(text, path, ret_counters, error);
}

gboolean
vn_autonuma_sched_parse(const gchar *text, const gchar *origin, VnAutonumaTask *acc, GError **error)
{
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    guint64 faults = 0, migrated = 0;
    guint seen = 0;

    /* "%-45s:%21Ld" lines (kernel/sched/debug.c, P()); the others
     * ("current_node=0, ...", "numa_faults node=0 task_private=...") have
     * no such key */
    for (guint l = 0; lines[l]; l++) {
        g_auto(GStrv) kv = g_strsplit(lines[l], ":", 2);
        const gchar *key = kv[0] ? g_strstrip(kv[0]) : NULL;
        guint64 *into = NULL;

        if (key && g_str_equal(key, "total_numa_faults"))
            into = &faults;
        else if (key && g_str_equal(key, "numa_pages_migrated"))
            into = &migrated;
        if (!into)
            continue;
        if (!kv[1] ||
            !g_ascii_string_to_unsigned(g_strstrip(kv[1]), 10, 0, G_MAXUINT64, into, NULL)) {
            g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE,
                        "%s: line %u: malformed \"%s\"", origin, l + 1, lines[l]);
            return FALSE;
        }
        seen |= into == &faults ? 1u : 2u;
    }
    if (seen != 3) {
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE,
                    "%s: no total_numa_faults and numa_pages_migrated lines (a kernel without "
                    "SCHED_DEBUG or NUMA balancing)",
                    origin);
        return FALSE;
    }
    acc->threads++;
    acc->numa_faults += faults;
    acc->pages_migrated += migrated;
    return TRUE;
}

static gboolean
add_sched_file(const gchar *path, VnAutonumaTask *acc, GError **error)
{
    g_autofree gchar *text = NULL;

    return read_text(path, &text, error) && vn_autonuma_sched_parse(text, path, acc, error);
}

gboolean
vn_autonuma_task_read(const gchar *sysroot, gint64 pid, VnAutonumaTask *ret_task, GError **error)
{
    g_autofree gchar *rel = g_strdup_printf("proc/%" G_GINT64_FORMAT, pid);
    g_autofree gchar *proc = sysroot_path(sysroot, rel);
    g_autofree gchar *tasks = g_build_filename(proc, "task", NULL);
    g_autoptr(GDir) dir = g_dir_open(tasks, 0, NULL);
    VnAutonumaTask acc = { 0 };
    const gchar *tid;

    if (!dir) {
        g_autofree gchar *path = g_build_filename(proc, "sched", NULL);
        if (!add_sched_file(path, &acc, error))
            return FALSE;
        *ret_task = acc;
        return TRUE;
    }
    while ((tid = g_dir_read_name(dir))) {
        g_autofree gchar *path = g_build_filename(tasks, tid, "sched", NULL);
        g_autoptr(GError) local = NULL;

        if (add_sched_file(path, &acc, &local))
            continue;
        /* a thread that ended between the listing and the read */
        if (g_error_matches(local, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ))
            continue;
        g_propagate_error(error, g_steal_pointer(&local));
        return FALSE;
    }
    if (acc.threads == 0) {
        g_set_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ, "%s: no thread to read",
                    tasks);
        return FALSE;
    }
    *ret_task = acc;
    return TRUE;
}
