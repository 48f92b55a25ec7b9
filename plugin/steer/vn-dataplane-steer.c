/* vn-dataplane-steer.c: CPU affinity and page moves for threads and
 * processes that are not libvirt's to pin (vhost workers, data-plane
 * back-ends).  The ids may belong to processes that exit at any moment:
 * ESRCH (and a task directory gone) is a line in the log, not an error. */
#define _GNU_SOURCE
#include "vn-dataplane.h"

#include <errno.h>
#include <numa.h>
#include <sched.h>
#include <stdarg.h>
#include "vn-cpulist.h"

/* A process may start threads while its threads are being steered (a new
 * thread inherits its creator's affinity, which may not be set yet): the
 * task list is read again until a pass finds none new, at most this often. */
#define MAX_TASK_PASSES 4

typedef struct {
    cpu_set_t *set;
    gsize set_size;
    gchar *cpus_text;      /* "0-3" for the log */
    const VnBitmap *nodes; /* NULL: affinity only */
    gboolean drifted_only; /* VN_DATAPLANE_STEER_DRIFTED_ONLY */
    GPtrArray *log;        /* may be NULL */
} Steer;

static void
steer_clear(Steer *s)
{
    if (s->set)
        CPU_FREE(s->set);
    g_free(s->cpus_text);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Steer, steer_clear)

static void G_GNUC_PRINTF(2, 3) log_line(const Steer *s, const gchar *fmt, ...)
{
    va_list args;

    if (!s->log)
        return;
    va_start(args, fmt);
    g_ptr_array_add(s->log, g_strdup_vprintf(fmt, args));
    va_end(args);
}

/* The set is sized for VN_DATAPLANE_MAX_CPUS whatever the bitmap's
 * capacity: sched_getaffinity() refuses a set smaller than the kernel's. */
static gboolean
steer_init(Steer *s, const VnBitmap *cpus, GError **error)
{
    guint n = VN_DATAPLANE_MAX_CPUS;

    s->set = CPU_ALLOC(n);
    s->set_size = CPU_ALLOC_SIZE(n);
    CPU_ZERO_S(s->set_size, s->set);
    VN_BITMAP_FOREACH (cpus, cpu) {
        if ((guint)cpu >= n) {
            g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                        "CPU %d is beyond the %u CPUs a thread can be given", cpu, n);
            return FALSE;
        }
        CPU_SET_S((gsize)cpu, s->set_size, s->set);
    }
    s->cpus_text = vn_cpulist_format(cpus);
    return TRUE;
}

/* Adds the CPUs of `set` to `ret_was`. */
static void
add_cpus(const Steer *s, const cpu_set_t *set, VnBitmap *ret_was)
{
    for (guint cpu = 0; cpu < VN_DATAPLANE_MAX_CPUS; cpu++)
        if (CPU_ISSET_S(cpu, s->set_size, set))
            vn_bitmap_set(ret_was, cpu);
}

/* Pins `tid` to the target CPUs unless its affinity already lies within
 * them: a thread its program pinned to one of the VM's CPUs (a DPDK
 * poll-mode thread on a core of its own) keeps that narrower pinning.
 * The affinity it had before a re-pin is added to `ret_was` (may be
 * NULL).  0 (with *ret_kept), or the errno of the syscalls (ESRCH: gone). */
static int
pin_thread(const Steer *s, pid_t tid, gboolean *ret_kept, VnBitmap *ret_was)
{
    cpu_set_t *now = CPU_ALLOC(VN_DATAPLANE_MAX_CPUS);
    cpu_set_t *inside = CPU_ALLOC(VN_DATAPLANE_MAX_CPUS);
    int err = 0;

    if (sched_getaffinity(tid, s->set_size, now) != 0) {
        err = errno;
    } else {
        CPU_AND_S(s->set_size, inside, now, s->set);
        *ret_kept = CPU_EQUAL_S(s->set_size, inside, now);
        if (!*ret_kept && sched_setaffinity(tid, s->set_size, s->set) != 0)
            err = errno;
        else if (!*ret_kept && ret_was)
            add_cpus(s, now, ret_was);
    }
    CPU_FREE(now);
    CPU_FREE(inside);
    return err;
}

static gboolean
steer_thread(const Steer *s, pid_t tid, GError **error)
{
    g_autoptr(VnBitmap) was = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);
    g_autofree gchar *was_text = NULL;
    gboolean kept = FALSE;
    int err = pin_thread(s, tid, &kept, was);

    if (err == ESRCH) {
        if (!s->drifted_only)
            log_line(s, "thread %d is gone, not steered", (int)tid);
        return TRUE;
    }
    if (err) {
        g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                    "sched_setaffinity(thread %d, CPUs %s): %s", (int)tid, s->cpus_text,
                    g_strerror(err));
        return FALSE;
    }
    if (kept && !s->drifted_only)
        log_line(s, "thread %d already within CPUs %s, kept", (int)tid, s->cpus_text);
    else if (!kept && !s->drifted_only)
        log_line(s, "thread %d -> CPUs %s", (int)tid, s->cpus_text);
    else if (!kept) {
        was_text = vn_cpulist_format(was);
        log_line(s, "thread %d: CPUs %s -> %s", (int)tid, was_text, s->cpus_text);
    }
    return TRUE;
}

/* Threads of one process: pinned, and already within the CPUs. */
typedef struct {
    guint pinned;
    guint kept;
} Count;

/* One pass over /proc/<pid>/task: steers the threads not in `done`,
 * adding them to `count`; *ret_new counts the threads seen alive for the
 * first time. */
static gboolean
steer_tasks_once(const Steer *s, pid_t pid, GHashTable *done, Count *count, VnBitmap *was,
                 guint *ret_new, GError **error)
{
    g_autofree gchar *dir = g_strdup_printf("/proc/%d/task", (int)pid);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;
    guint fresh = 0;

    while (d && (name = g_dir_read_name(d))) {
        gboolean kept = FALSE;
        guint64 tid;
        int err;

        if (!g_ascii_string_to_unsigned(name, 10, 1, G_MAXINT32, &tid, NULL) ||
            g_hash_table_contains(done, GUINT_TO_POINTER((guint)tid)))
            continue;
        g_hash_table_add(done, GUINT_TO_POINTER((guint)tid));
        err = pin_thread(s, (pid_t)tid, &kept, was);
        if (err && err != ESRCH) {
            g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                        "sched_setaffinity(process %d thread %d, CPUs %s): %s", (int)pid, (int)tid,
                        s->cpus_text, g_strerror(err));
            return FALSE;
        }
        if (err)
            continue; /* ESRCH: exited meanwhile */
        fresh++;
        if (kept)
            count->kept++;
        else
            count->pinned++;
    }
    *ret_new = fresh;
    return TRUE;
}

/* A libnuma node mask of `nodes`; NULL + error when a node is beyond
 * what this kernel supports. */
static struct bitmask *
nodemask_new(const VnBitmap *nodes, GError **error)
{
    struct bitmask *mask = numa_allocate_nodemask();

    VN_BITMAP_FOREACH (nodes, node) {
        if (node > numa_max_possible_node()) {
            numa_bitmask_free(mask);
            g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                        "node %d is beyond this kernel's nodes", node);
            return NULL;
        }
        numa_bitmask_setbit(mask, (unsigned)node);
    }
    return mask;
}

/* Moves the process's existing pages from every node to `s->nodes`;
 * writes the outcome for the log line into *ret_text. */
static gboolean
migrate(const Steer *s, pid_t pid, gchar **ret_text, GError **error)
{
    g_autofree gchar *nodes_text = vn_cpulist_format(s->nodes);
    struct bitmask *from, *to;
    int left, err;

    if (numa_available() < 0) {
        *ret_text = g_strdup("pages not moved: no NUMA support in this kernel");
        return TRUE;
    }
    to = nodemask_new(s->nodes, error);
    if (!to)
        return FALSE;
    from = numa_allocate_nodemask();
    for (int n = 0; n <= numa_max_node(); n++)
        numa_bitmask_setbit(from, (unsigned)n);
    left = numa_migrate_pages(pid, from, to);
    err = errno;
    numa_bitmask_free(from);
    numa_bitmask_free(to);
    if (left < 0 && err == ENOSYS) {
        /* a kernel without page migration (or a syscall emulator such as
         * valgrind): the affinity is all there is to steer */
        *ret_text = g_strdup("pages not moved: migrate_pages(2) is not available");
        return TRUE;
    }
    if (left < 0 && err != ESRCH) {
        g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                    "migrate_pages(process %d, to node(s) %s): %s", (int)pid, nodes_text,
                    g_strerror(err));
        return FALSE;
    }
    *ret_text =
        left < 0 ? g_strdup("gone before its pages moved")
                 : g_strdup_printf("existing pages -> node(s) %s (%d not moved)", nodes_text, left);
    return TRUE;
}

/* The page move of a re-steered process: an error of the apply path, a
 * part of the line in drift repair (best effort: the affinity is what
 * drifted, and it was put back). */
static gboolean
move_pages(const Steer *s, pid_t pid, gchar **ret_text, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (!s->drifted_only)
        return migrate(s, pid, ret_text, error);
    if (!migrate(s, pid, ret_text, &local))
        *ret_text = g_strdup_printf("pages not moved: %s", local->message);
    return TRUE;
}

static gboolean
steer_process(const Steer *s, pid_t pid, GError **error)
{
    g_autoptr(GHashTable) done = g_hash_table_new(NULL, NULL);
    g_autoptr(VnBitmap) was = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);
    g_autofree gchar *pages = NULL;
    g_autofree gchar *kept = NULL;
    g_autofree gchar *was_text = NULL;
    Count count = { 0 };
    guint fresh = 1;

    for (guint pass = 0; fresh > 0 && pass < MAX_TASK_PASSES; pass++)
        if (!steer_tasks_once(s, pid, done, &count, was, &fresh, error))
            return FALSE;
    if (s->drifted_only && count.pinned == 0)
        return TRUE; /* in place, or gone: nothing to say, no page to move */
    if (count.pinned + count.kept == 0) {
        log_line(s, "process %d is gone, not steered", (int)pid);
        return TRUE;
    }
    if (s->nodes && !move_pages(s, pid, &pages, error))
        return FALSE;
    if (s->drifted_only) {
        was_text = vn_cpulist_format(was);
        log_line(s, "process %d: %u thread(s), CPUs %s -> %s%s%s", (int)pid, count.pinned, was_text,
                 s->cpus_text, pages ? ", " : "", pages ? pages : "");
        return TRUE;
    }
    kept =
        count.kept ? g_strdup_printf(" (%u already within them, kept)", count.kept) : g_strdup("");
    log_line(s, "process %d: %u thread(s) -> CPUs %s%s%s%s", (int)pid, count.pinned, s->cpus_text,
             kept, pages ? "; " : "", pages ? pages : "");
    return TRUE;
}

gboolean
vn_dataplane_steer(const GArray *pids_or_tids, gboolean whole_process, const VnBitmap *cpus,
                   const VnBitmap *nodes, GPtrArray *ret_log, GError **error)
{
    return vn_dataplane_steer_full(pids_or_tids, whole_process, cpus, nodes,
                                   VN_DATAPLANE_STEER_DEFAULT, ret_log, error);
}

gboolean
vn_dataplane_steer_full(const GArray *pids_or_tids, gboolean whole_process, const VnBitmap *cpus,
                        const VnBitmap *nodes, VnDataplaneSteerFlags flags, GPtrArray *ret_log,
                        GError **error)
{
    g_auto(Steer) s = { .nodes = nodes,
                        .log = ret_log,
                        .drifted_only = (flags & VN_DATAPLANE_STEER_DRIFTED_ONLY) != 0 };
    g_return_val_if_fail(pids_or_tids != NULL, FALSE);
    g_return_val_if_fail(cpus != NULL && !vn_bitmap_is_empty(cpus), FALSE);
    g_return_val_if_fail((flags & ~VN_DATAPLANE_STEER_DRIFTED_ONLY) == 0, FALSE);
    if (!steer_init(&s, cpus, error))
        return FALSE;
    for (guint i = 0; i < pids_or_tids->len; i++) {
        pid_t id = g_array_index(pids_or_tids, pid_t, i);

        if (!(whole_process ? steer_process(&s, id, error) : steer_thread(&s, id, error)))
            return FALSE;
    }
    return TRUE;
}
