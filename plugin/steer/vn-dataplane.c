/* vn-dataplane.c: vhost workers and data-plane processes, found and
 * steered.  Discovery and resolution only read files below a
 * procroot/sysroot; steering makes the syscalls on the live host. */
#include "vn-dataplane.h"

#include <stdarg.h>
#include <string.h>

/* A unit's cgroup nests no deeper than this in practice (Delegate= trees
 * of container managers); deeper is cut rather than followed forever. */
#define MAX_CGROUP_DEPTH 16

static gboolean G_GNUC_PRINTF(3, 4) fail(GError **error, gint code, const gchar *fmt, ...)
{
    va_list args;
    GError *e;

    va_start(args, fmt);
    e = g_error_new_valist(VN_DATAPLANE_ERROR, code, fmt, args);
    va_end(args);
    g_propagate_error(error, e);
    return FALSE;
}

/* ---- reading pids ---- */

static gchar *
under(const gchar *root, const gchar *path)
{
    return g_build_filename(root && *root ? root : "/", path, NULL);
}

/* A pid as the kernel writes it: 1 .. INT_MAX, decimal. */
static gboolean
parse_pid(const gchar *text, pid_t *ret_pid)
{
    guint64 v;

    if (!g_ascii_string_to_unsigned(text, 10, 1, G_MAXINT32, &v, NULL))
        return FALSE;
    *ret_pid = (pid_t)v;
    return TRUE;
}

static gint
compare_pid(gconstpointer a, gconstpointer b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return x < y ? -1 : x > y;
}

/* Sorts `pids` and drops repeats. */
static GArray *
sorted_unique(GArray *pids)
{
    guint out = 0;

    g_array_sort(pids, compare_pid);
    for (guint i = 0; i < pids->len; i++)
        if (out == 0 || g_array_index(pids, pid_t, out - 1) != g_array_index(pids, pid_t, i))
            g_array_index(pids, pid_t, out++) = g_array_index(pids, pid_t, i);
    g_array_set_size(pids, out);
    return pids;
}

static GArray *
pid_array_new(void)
{
    return g_array_new(FALSE, FALSE, sizeof(pid_t));
}

static GArray *
resolve_pidfile(const gchar *spec, const gchar *path, const gchar *sysroot, GError **error)
{
    g_autofree gchar *file = under(sysroot, path);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    g_autoptr(GArray) pids = pid_array_new();
    gchar *eol;
    pid_t pid;

    if (!g_file_get_contents(file, &text, NULL, &local)) {
        fail(error, VN_DATAPLANE_ERROR_RESOLVE, "%s: %s", spec, local->message);
        return NULL;
    }
    eol = strchr(text, '\n');
    if (eol)
        *eol = '\0';
    if (!parse_pid(g_strstrip(text), &pid)) {
        fail(error, VN_DATAPLANE_ERROR_RESOLVE, "%s: %s holds \"%.20s\", not a pid", spec, file,
             text);
        return NULL;
    }
    g_array_append_val(pids, pid);
    return g_steal_pointer(&pids);
}

/* Adds the pids of <dir>/cgroup.procs and of every sub-cgroup of `dir`. */
static gboolean
read_cgroup_procs(const gchar *spec, const gchar *dir, guint depth, GArray *pids, GError **error)
{
    g_autofree gchar *procs = g_build_filename(dir, "cgroup.procs", NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    g_autoptr(GError) local = NULL;
    g_autoptr(GDir) d = NULL;
    const gchar *name;

    if (!g_file_get_contents(procs, &text, NULL, &local))
        return fail(error, VN_DATAPLANE_ERROR_RESOLVE, "%s: %s", spec, local->message);
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        pid_t pid;

        if (!*g_strstrip(lines[i]))
            continue;
        if (!parse_pid(lines[i], &pid))
            return fail(error, VN_DATAPLANE_ERROR_RESOLVE, "%s: %s: \"%.20s\" is not a pid", spec,
                        procs, lines[i]);
        g_array_append_val(pids, pid);
    }
    d = depth < MAX_CGROUP_DEPTH ? g_dir_open(dir, 0, NULL) : NULL;
    while (d && (name = g_dir_read_name(d))) {
        g_autofree gchar *sub = g_build_filename(dir, name, NULL);

        if (g_file_test(sub, G_FILE_TEST_IS_DIR) &&
            !read_cgroup_procs(spec, sub, depth + 1, pids, error))
            return FALSE;
    }
    return TRUE;
}

/* The unit's cgroup: cgroup v2 (unified), hybrid, then v1 name=systemd. */
static gchar *
unit_cgroup_dir(const gchar *unit, const gchar *sysroot)
{
    static const gchar *const roots[] = {
        "sys/fs/cgroup",
        "sys/fs/cgroup/unified",
        "sys/fs/cgroup/systemd",
    };

    for (gsize i = 0; i < G_N_ELEMENTS(roots); i++) {
        g_autofree gchar *rel = g_build_filename(roots[i], "system.slice", unit, NULL);
        g_autofree gchar *dir = under(sysroot, rel);

        if (g_file_test(dir, G_FILE_TEST_IS_DIR))
            return g_steal_pointer(&dir);
    }
    return NULL;
}

static GArray *
resolve_unit(const gchar *spec, const gchar *unit, const gchar *sysroot, GError **error)
{
    g_autofree gchar *dir = unit_cgroup_dir(unit, sysroot);
    g_autoptr(GArray) pids = pid_array_new();
    g_autofree gchar *cgroup_root = under(sysroot, "sys/fs/cgroup");

    if (!dir) {
        fail(error, VN_DATAPLANE_ERROR_RESOLVE,
             "%s: no cgroup system.slice/%s under %s (v2, hybrid or v1 name=systemd): "
             "is the unit running?",
             spec, unit, cgroup_root);
        return NULL;
    }
    if (!read_cgroup_procs(spec, dir, 0, pids, error))
        return NULL;
    if (pids->len == 0) {
        fail(error, VN_DATAPLANE_ERROR_RESOLVE, "%s: no processes in %s", spec, dir);
        return NULL;
    }
    return sorted_unique(g_steal_pointer(&pids));
}

GArray *
vn_dataplane_resolve(const gchar *spec, const gchar *sysroot, GError **error)
{
    VnDataplaneSpecKind kind;
    g_autofree gchar *value = NULL;

    g_return_val_if_fail(spec != NULL, NULL);
    if (!vn_dataplane_spec_parse(spec, &kind, &value, error))
        return NULL;
    if (kind == VN_DATAPLANE_SPEC_PIDFILE)
        return resolve_pidfile(spec, value, sysroot, error);
    return resolve_unit(spec, value, sysroot, error);
}

/* ---- vhost workers ---- */

/* The comm of <dir>/comm without its newline; NULL when gone. */
static gchar *
read_comm(const gchar *dir)
{
    g_autofree gchar *path = g_build_filename(dir, "comm", NULL);
    gchar *text = NULL;

    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    return g_strchomp(text);
}

/* Appends every numeric entry of `dir` whose comm starts with "vhost-",
 * and its comm to `comms` when given. */
static gboolean
scan_vhost_comms(const gchar *dir, GArray *ids, GPtrArray *comms, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(GDir) d = g_dir_open(dir, 0, &local);
    const gchar *name;

    if (!d)
        return fail(error, VN_DATAPLANE_ERROR_PROC, "%s", local->message);
    while ((name = g_dir_read_name(d))) {
        g_autofree gchar *sub = NULL;
        g_autofree gchar *comm = NULL;
        pid_t id;

        if (!parse_pid(name, &id))
            continue;
        sub = g_build_filename(dir, name, NULL);
        comm = read_comm(sub);
        if (!comm || !g_str_has_prefix(comm, "vhost-"))
            continue;
        g_array_append_val(ids, id);
        if (comms)
            g_ptr_array_add(comms, g_steal_pointer(&comm));
    }
    return TRUE;
}

GHashTable *
vn_dataplane_vhost_kthreads(const gchar *procroot, GError **error)
{
    g_autofree gchar *proc = under(procroot, "proc");
    g_autoptr(GHashTable) by_owner =
        g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, (GDestroyNotify)g_array_unref);
    g_autoptr(GArray) ids = pid_array_new();
    g_autoptr(GPtrArray) comms = g_ptr_array_new_with_free_func(g_free);

    if (!scan_vhost_comms(proc, ids, comms, error))
        return NULL;
    for (guint i = 0; i < ids->len; i++) {
        pid_t id = g_array_index(ids, pid_t, i);
        const gchar *comm = g_ptr_array_index(comms, i);
        GArray *owned;
        pid_t owner;

        /* "vhost-<owner>"; the owner's own threads are never its kthreads */
        if (!parse_pid(comm + strlen("vhost-"), &owner) || owner == id)
            continue;
        owned = g_hash_table_lookup(by_owner, GINT_TO_POINTER(owner));
        if (!owned) {
            owned = pid_array_new();
            g_hash_table_insert(by_owner, GINT_TO_POINTER(owner), owned);
        }
        g_array_append_val(owned, id);
    }
    return g_steal_pointer(&by_owner);
}

GArray *
vn_dataplane_vhost_threads_indexed(const gchar *procroot, pid_t qemu_pid, GHashTable *kthreads,
                                   GError **error)
{
    g_autofree gchar *pid_text = g_strdup_printf("%d", (int)qemu_pid);
    g_autofree gchar *proc = under(procroot, "proc");
    g_autofree gchar *tasks = g_build_filename(proc, pid_text, "task", NULL);
    g_autoptr(GArray) ids = pid_array_new();
    g_autoptr(GError) local = NULL;
    GArray *owned;

    g_return_val_if_fail(qemu_pid > 0 && kthreads != NULL, NULL);
    if (!scan_vhost_comms(tasks, ids, NULL, &local)) {
        fail(error, VN_DATAPLANE_ERROR_PROC, "QEMU process %d: %s", (int)qemu_pid, local->message);
        return NULL;
    }
    /* Before Linux 6.4: kthreads of their own, never the QEMU pid itself. */
    owned = g_hash_table_lookup(kthreads, GINT_TO_POINTER(qemu_pid));
    if (owned)
        g_array_append_vals(ids, owned->data, owned->len);
    return sorted_unique(g_steal_pointer(&ids));
}

GArray *
vn_dataplane_vhost_threads(const gchar *procroot, pid_t qemu_pid, GError **error)
{
    g_autoptr(GHashTable) kthreads = NULL;

    g_return_val_if_fail(qemu_pid > 0, NULL);
    if (!(kthreads = vn_dataplane_vhost_kthreads(procroot, error)))
        return NULL;
    return vn_dataplane_vhost_threads_indexed(procroot, qemu_pid, kthreads, error);
}
