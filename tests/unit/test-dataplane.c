/* test-dataplane.c: the VM's data path follows it.
 *
 * Discovery and resolution run on fixture trees (tests/data/dataplane/,
 * one case per directory with its expectation in case.conf).  Steering is
 * real: a forked child names a thread "vhost-<its pid>" as the kernel
 * names vhost workers, a `sleep` with a pid file stands in for a
 * data-plane back-end, and their /proc/<tid>/status shows the result. */
#define _GNU_SOURCE
#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <numa.h>
#include <pthread.h>
#include <sched.h>
#include <signal.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/prctl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "vn-config.h"
#include "vn-cpulist.h"
#include "vn-dataplane.h"
#include "vn-test-files.h"
#include "vn-test-fixture.h"

/* "4250,4251" */
static gchar *
ids_string(const GArray *ids)
{
    g_autoptr(GString) s = g_string_new(NULL);

    for (guint i = 0; i < ids->len; i++)
        g_string_append_printf(s, "%s%d", i ? "," : "", (int)g_array_index(ids, pid_t, i));
    return g_string_free(g_steal_pointer(&s), FALSE);
}

static GKeyFile *
load_case(const gchar *dir)
{
    g_autofree gchar *path = g_build_filename(dir, "case.conf", NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) error = NULL;

    g_key_file_load_from_file(kf, path, G_KEY_FILE_NONE, &error);
    g_assert_no_error(error);
    return g_steal_pointer(&kf);
}

static gint
error_code(const gchar *name)
{
    if (g_str_equal(name, "spec"))
        return VN_DATAPLANE_ERROR_SPEC;
    if (g_str_equal(name, "resolve"))
        return VN_DATAPLANE_ERROR_RESOLVE;
    g_assert_cmpstr(name, ==, "proc");
    return VN_DATAPLANE_ERROR_PROC;
}

/* ---- fixture cases ---- */

static void
test_vhost_case(gconstpointer data)
{
    const gchar *dir = data;
    g_autoptr(GKeyFile) kf = load_case(dir);
    gint pid = g_key_file_get_integer(kf, "case", "qemu_pid", NULL);
    g_autofree gchar *expect = g_key_file_get_string(kf, "case", "tids", NULL);
    g_autofree gchar *err = g_key_file_get_string(kf, "case", "error", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) tids = vn_dataplane_vhost_threads(dir, (pid_t)pid, &error);

    if (err) {
        g_assert_null(tids);
        g_assert_error(error, VN_DATAPLANE_ERROR, error_code(err));
        g_assert_nonnull(strstr(error->message, "4242"));
        return;
    }
    g_assert_no_error(error);
    g_autofree gchar *got = ids_string(tids);
    g_assert_cmpstr(got, ==, expect);

    /* the same through one scan for every QEMU (vnumad's drift repair) */
    g_autoptr(GHashTable) kthreads = vn_dataplane_vhost_kthreads(dir, &error);
    g_assert_no_error(error);
    g_autoptr(GArray) indexed =
        vn_dataplane_vhost_threads_indexed(dir, (pid_t)pid, kthreads, &error);
    g_assert_no_error(error);
    g_autofree gchar *got_indexed = ids_string(indexed);
    g_assert_cmpstr(got_indexed, ==, expect);
}

static void
test_resolve_case(gconstpointer data)
{
    const gchar *dir = data;
    g_autoptr(GKeyFile) kf = load_case(dir);
    g_autofree gchar *spec = g_key_file_get_string(kf, "case", "spec", NULL);
    g_autofree gchar *expect = g_key_file_get_string(kf, "case", "pids", NULL);
    g_autofree gchar *err = g_key_file_get_string(kf, "case", "error", NULL);
    g_autofree gchar *sysroot = g_build_filename(dir, "sysroot", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) pids = vn_dataplane_resolve(spec, sysroot, &error);

    if (err) {
        g_assert_null(pids);
        g_assert_error(error, VN_DATAPLANE_ERROR, error_code(err));
        /* one line, naming the spec */
        g_assert_nonnull(strstr(error->message, spec));
        g_assert_null(strchr(error->message, '\n'));
        return;
    }
    g_assert_no_error(error);
    g_autofree gchar *got = ids_string(pids);
    g_assert_cmpstr(got, ==, expect);
}

/* One test per directory under tests/data/dataplane/<kind>, by name. */
static void
add_cases(GPtrArray *keep, const gchar *kind, GTestDataFunc fn)
{
    g_autofree gchar *root = vn_test_data_path("dataplane", kind, NULL);
    g_autoptr(GPtrArray) names = vn_test_dir_names(root, NULL);

    g_assert_cmpuint(names->len, >, 0);
    for (guint i = 0; i < names->len; i++) {
        const gchar *n = g_ptr_array_index(names, i);
        g_autofree gchar *path = g_strdup_printf("/dataplane/%s/%s", kind, n);
        gchar *dir = g_build_filename(root, n, NULL);

        g_ptr_array_add(keep, dir);
        g_test_add_data_func(path, dir, fn);
    }
}

/* ---- specs ---- */

static const gchar *const bad_specs[] = {
    "spdk-vhost.service", "pidfile:",        "pidfile:run/x.pid", "unit:",
    "unit:.service",      "unit:spdk-vhost", "unit:a/b.service",  "unit:../x.service",
    "socket:/run/x.sock", ":/run/x.pid",
};

static void
test_spec_bad(void)
{
    for (gsize i = 0; i < G_N_ELEMENTS(bad_specs); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(GArray) pids = vn_dataplane_resolve(bad_specs[i], "/nonexistent", &error);

        g_assert_null(pids);
        g_assert_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_SPEC);
        g_assert_nonnull(strstr(error->message, bad_specs[i]));
    }
}

static void
test_spec_good(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *value = NULL;
    g_autofree gchar *value2 = NULL;
    VnDataplaneSpecKind kind;

    g_assert_true(vn_dataplane_spec_parse("unit:spdk-vhost.service", &kind, &value, &error));
    g_assert_cmpint(kind, ==, VN_DATAPLANE_SPEC_UNIT);
    g_assert_cmpstr(value, ==, "spdk-vhost.service");
    g_assert_true(vn_dataplane_spec_parse("pidfile:/run/a:b.pid", &kind, &value2, &error));
    g_assert_cmpint(kind, ==, VN_DATAPLANE_SPEC_PIDFILE);
    g_assert_cmpstr(value2, ==, "/run/a:b.pid");
    for (gint k = 0; k < VN_DATAPLANE_SPEC_MAX; k++)
        g_assert_cmpint(vn_dataplane_spec_kind_from_string(vn_dataplane_spec_kind_to_string(k)), ==,
                        k);
    g_assert_cmpint(vn_dataplane_spec_kind_from_string("socket"), ==, -1);
}

/* ---- vnuma.conf [dataplane] ---- */

static void
test_config_good(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_test_config_from_text(
        "[dataplane]\n"
        "vm1 = unit:spdk-vhost.service; pidfile:/run/openvswitch/ovs-vswitchd.pid;\n"
        "vm2 = pidfile:/run/openvswitch/ovs-vswitchd.pid\n",
        &error);
    const gchar *const vm1[] = { "unit:spdk-vhost.service",
                                 "pidfile:/run/openvswitch/ovs-vswitchd.pid", NULL };

    g_assert_no_error(error);
    g_assert_true(g_strv_equal(vn_config_dataplane_specs(c, "vm1"), vm1));
    g_assert_null(vn_config_dataplane_specs(c, "vm3"));
    g_assert_cmpuint(vn_config_dataplane_users(c, "unit:spdk-vhost.service"), ==, 1);
    g_assert_cmpuint(vn_config_dataplane_users(c, "pidfile:/run/openvswitch/ovs-vswitchd.pid"), ==,
                     2);
    g_assert_cmpuint(vn_config_dataplane_users(c, "unit:other.service"), ==, 0);
}

static void
test_config_none(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_test_config_from_text("[hook]\nmanage = all\n", &error);

    g_assert_no_error(error);
    g_assert_null(vn_config_dataplane_specs(c, "vm1"));
}

static const gchar *const bad_configs[] = {
    "[dataplane]\nvm1 =\n",
    "[dataplane]\nvm1 = ;\n",
    "[dataplane]\nvm1 = spdk-vhost.service\n",
    "[dataplane]\nvm1 = unit:spdk-vhost.service;pidfile:run/x.pid\n",
    "[dataplane]\nvm1 = pidfile:/run/x.pid; pidfile:/run/x.pid\n",
};

static void
test_config_bad(void)
{
    for (gsize i = 0; i < G_N_ELEMENTS(bad_configs); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnConfig) c = vn_test_config_from_text(bad_configs[i], &error);

        g_assert_null(c);
        g_assert_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID);
        g_assert_nonnull(strstr(error->message, "[dataplane] vm1: "));
    }
}

/* ---- live steering ---- */

/* The last CPU this process may run on: "1" on a two-CPU machine. */
static gint
target_cpu(void)
{
    cpu_set_t set;
    gint last = -1;

    g_assert_cmpint(sched_getaffinity(0, sizeof(set), &set), ==, 0);
    for (gint cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            last = cpu;
    g_assert_cmpint(last, >=, 0);
    return last;
}

/* The CPUs this process may run on. */
static VnBitmap *
own_cpus(void)
{
    VnBitmap *b = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);
    cpu_set_t set;

    g_assert_cmpint(sched_getaffinity(0, sizeof(set), &set), ==, 0);
    for (guint cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set))
            vn_bitmap_set(b, cpu);
    return b;
}

static VnBitmap *
one_bit(guint n_bits, guint bit)
{
    VnBitmap *b = vn_bitmap_new(n_bits);

    vn_bitmap_set(b, bit);
    return b;
}

/* The Cpus_allowed_list of a thread (any tid works under /proc). */
static gchar *
allowed_list(pid_t tid)
{
    g_autofree gchar *path = g_strdup_printf("/proc/%d/status", (int)tid);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++)
        if (g_str_has_prefix(lines[i], "Cpus_allowed_list:"))
            return g_strdup(g_strstrip(lines[i] + strlen("Cpus_allowed_list:")));
    g_assert_not_reached();
}

static void
assert_process_on(pid_t pid, const gchar *cpus)
{
    g_autofree gchar *dir = g_strdup_printf("/proc/%d/task", (int)pid);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;

    g_assert_nonnull(d);
    while ((name = g_dir_read_name(d))) {
        g_autofree gchar *got = allowed_list((pid_t)atoi(name));

        g_assert_cmpstr(got, ==, cpus);
    }
}

static void *
vhost_worker(void *arg)
{
    int fd = GPOINTER_TO_INT(arg);
    char name[16];
    pid_t tid = (pid_t)syscall(SYS_gettid);

    snprintf(name, sizeof(name), "vhost-%d", (int)getpid());
    prctl(PR_SET_NAME, name, 0, 0, 0);
    if (write(fd, &tid, sizeof(tid)) != sizeof(tid))
        _exit(1);
    for (;;)
        pause();
    return NULL;
}

/* A child that looks like a QEMU with `n` vhost workers (Linux >= 6.4):
 * threads named "vhost-<child pid>".  Their tids in ret_tids[0..n-1], in
 * the order they reported. */
static pid_t
spawn_fake_qemu_n(guint n, pid_t *ret_tids)
{
    int fds[2];
    pid_t pid;

    g_assert_cmpint(pipe(fds), ==, 0);
    pid = fork();
    g_assert_cmpint(pid, >=, 0);
    if (pid == 0) {
        pthread_t thread;
        int null = open("/dev/null", O_WRONLY);

        /* never outlive the test, never hold meson's output pipes */
        prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
        dup2(null, 1);
        dup2(null, 2);
        close(fds[0]);
        for (guint i = 0; i < n; i++)
            if (pthread_create(&thread, NULL, vhost_worker, GINT_TO_POINTER(fds[1])) != 0)
                _exit(1);
        for (;;)
            pause();
    }
    close(fds[1]);
    for (guint i = 0; i < n; i++)
        g_assert_cmpint(read(fds[0], &ret_tids[i], sizeof(pid_t)), ==, sizeof(pid_t));
    close(fds[0]);
    return pid;
}

/* A fake QEMU with one vhost worker. */
static pid_t
spawn_fake_qemu(pid_t *ret_tid)
{
    return spawn_fake_qemu_n(1, ret_tid);
}

static void
die_with_parent(gpointer data)
{
    prctl(PR_SET_PDEATHSIG, SIGKILL, 0, 0, 0);
}

/* `sleep 600` with its pid written to `pidfile`, as a daemon would. */
static GPid
spawn_sleep(const gchar *pidfile)
{
    const gchar *argv[] = { "sleep", "600", NULL };
    g_autoptr(GError) error = NULL;
    g_autofree gchar *text = NULL;
    GPid pid;

    g_spawn_async(NULL, (gchar **)argv, NULL,
                  G_SPAWN_SEARCH_PATH | G_SPAWN_DO_NOT_REAP_CHILD | G_SPAWN_STDOUT_TO_DEV_NULL |
                      G_SPAWN_STDERR_TO_DEV_NULL,
                  die_with_parent, NULL, &pid, &error);
    g_assert_no_error(error);
    text = g_strdup_printf("%d\n", (int)pid);
    if (pidfile)
        g_assert_true(g_file_set_contents(pidfile, text, -1, NULL));
    return pid;
}

static void
stop(pid_t pid)
{
    kill(pid, SIGKILL);
    waitpid(pid, NULL, 0);
}

static gboolean
log_has(const GPtrArray *log, const gchar *line)
{
    for (guint i = 0; i < log->len; i++)
        if (g_str_equal(g_ptr_array_index(log, i), line))
            return TRUE;
    return FALSE;
}

static void
dump_log(const GPtrArray *log)
{
    for (guint i = 0; i < log->len; i++)
        g_test_message("log: %s", (const gchar *)g_ptr_array_index(log, i));
}

/* `ids` holds `id` alone, and steering it (`whole_process`) to `cpus`
 * and `nodes` succeeds. */
static void
steer_one(const GArray *ids, pid_t id, gboolean whole_process, const VnBitmap *cpus,
          const VnBitmap *nodes, GPtrArray *log)
{
    g_autoptr(GError) error = NULL;

    g_assert_cmpuint(ids->len, ==, 1);
    g_assert_cmpint(g_array_index(ids, pid_t, 0), ==, id);
    g_assert_true(vn_dataplane_steer(ids, whole_process, cpus, nodes, log, &error));
    g_assert_no_error(error);
    dump_log(log);
}

/* What steering a process to node 0 logs for its pages: the move, or
 * (only where the kernel or a syscall emulator such as valgrind lacks
 * migrate_pages(2), as a direct probe shows) that it is unavailable. */
static gchar *
pages_moved_text(void)
{
    unsigned long mask = 1;

    if (syscall(SYS_migrate_pages, getpid(), 8 * sizeof(mask), &mask, &mask) < 0 && errno == ENOSYS)
        return g_strdup("pages not moved: migrate_pages(2) is not available");
    return g_strdup("existing pages -> node(s) 0 (0 not moved)");
}

/* The vhost thread of a live fake QEMU is found under "/" and pinned. */
static void
test_steer_vhost_thread(void)
{
    gint cpu = target_cpu();
    g_autofree gchar *cpu_text = g_strdup_printf("%d", cpu);
    g_autoptr(VnBitmap) cpus = one_bit(VN_DATAPLANE_MAX_CPUS, (guint)cpu);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) tids = NULL;
    pid_t tid, qemu = spawn_fake_qemu(&tid);
    g_autofree gchar *expect = g_strdup_printf("thread %d -> CPUs %d", (int)tid, cpu);
    g_autofree gchar *got = NULL;
    g_autofree gchar *main_thread = NULL;

    tids = vn_dataplane_vhost_threads("/", qemu, &error);
    g_assert_no_error(error);
    steer_one(tids, tid, FALSE, cpus, NULL, log);
    g_assert_true(log_has(log, expect));
    got = allowed_list(tid);
    g_assert_cmpstr(got, ==, cpu_text);
    /* again: already within the CPUs, so kept (not widened or re-pinned) */
    g_clear_pointer(&expect, g_free);
    expect = g_strdup_printf("thread %d already within CPUs %d, kept", (int)tid, cpu);
    g_assert_true(vn_dataplane_steer(tids, FALSE, cpus, NULL, log, &error));
    g_assert_true(log_has(log, expect));
    /* only the worker: the rest of the QEMU stays where it was */
    main_thread = allowed_list(qemu);
    if (cpu > 0)
        g_assert_cmpstr(main_thread, !=, cpu_text);
    stop(qemu);
}

/* A data-plane process by pid file: every thread pinned, pages moved. */
static void
test_steer_process(void)
{
    gint cpu = target_cpu();
    g_autofree gchar *cpu_text = g_strdup_printf("%d", cpu);
    g_autofree gchar *dir = g_dir_make_tmp("vnuma-dataplane-XXXXXX", NULL);
    g_autofree gchar *pidfile = g_build_filename(dir, "dp.pid", NULL);
    g_autofree gchar *spec = g_strconcat("pidfile:", pidfile, NULL);
    g_autoptr(VnBitmap) cpus = one_bit(VN_DATAPLANE_MAX_CPUS, (guint)cpu);
    g_autoptr(VnBitmap) nodes = one_bit(1024, 0);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) pids = NULL;
    GPid pid = spawn_sleep(pidfile);
    g_autofree gchar *expect = NULL;
    g_autofree gchar *pages = NULL;
    g_autoptr(VnBitmap) all = own_cpus();
    g_autofree gchar *all_text = vn_cpulist_format(all);

    if (numa_available() < 0) {
        stop(pid);
        vn_test_remove_tree(dir);
        g_test_skip("no NUMA support in this kernel");
        return;
    }
    pids = vn_dataplane_resolve(spec, NULL, &error);
    g_assert_no_error(error);
    steer_one(pids, pid, TRUE, cpus, nodes, log);
    pages = pages_moved_text();
    expect = g_strdup_printf("process %d: 1 thread(s) -> CPUs %d; %s", (int)pid, cpu, pages);
    g_assert_true(log_has(log, expect));
    assert_process_on(pid, cpu_text);

    /* a wider set (every CPU of ours): the narrower pinning is kept */
    g_clear_pointer(&expect, g_free);
    expect = g_strdup_printf("process %d: 0 thread(s) -> CPUs %s (1 already within them, "
                             "kept); %s",
                             (int)pid, all_text, pages);
    g_assert_true(vn_dataplane_steer(pids, TRUE, all, nodes, log, &error));
    g_assert_no_error(error);
    dump_log(log);
    g_assert_true(log_has(log, expect));
    assert_process_on(pid, cpu_text);
    stop(pid);
    vn_test_remove_tree(dir);
}

/* Exited meanwhile: logged, not an error; a refusal is an error. */
static void
test_steer_gone_and_refused(void)
{
    g_autoptr(VnBitmap) cpus = one_bit(VN_DATAPLANE_MAX_CPUS, (guint)target_cpu());
    g_autoptr(VnBitmap) offline = one_bit(VN_DATAPLANE_MAX_CPUS, VN_DATAPLANE_MAX_CPUS - 1);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(pid_t));
    pid_t pid = spawn_sleep(NULL);
    g_autofree gchar *thread_gone = g_strdup_printf("thread %d is gone, not steered", (int)pid);
    g_autofree gchar *process_gone = g_strdup_printf("process %d is gone, not steered", (int)pid);
    pid_t self = getpid();

    stop(pid);
    g_array_append_val(ids, pid);
    g_assert_true(vn_dataplane_steer(ids, FALSE, cpus, NULL, log, &error));
    g_assert_true(vn_dataplane_steer(ids, TRUE, cpus, NULL, log, &error));
    g_assert_no_error(error);
    g_assert_true(log_has(log, thread_gone));
    g_assert_true(log_has(log, process_gone));

    /* no CPU of the set exists: the kernel refuses (EINVAL) */
    g_array_index(ids, pid_t, 0) = self;
    g_assert_false(vn_dataplane_steer(ids, FALSE, offline, NULL, log, &error));
    g_assert_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER);
    g_assert_nonnull(strstr(error->message, "sched_setaffinity"));
}

/* vm1 on one CPU: its ledger record (one cell on `cpus`), a temporary
 * libvirt run directory (set as $VNUMA_LIBVIRT_RUN_DIR) for its QEMU's pid
 * file vm1.pid, and the pid files of its own data-plane back-end (dp.pid)
 * and of one it shares with vm2 (shared.pid), which `config` names in
 * [dataplane] (`extra`: more specs of vm1). */
typedef struct {
    gchar *dir, *qemu_pidfile, *dp_pidfile, *shared_pidfile, *conf;
    VnConfig *config;
    VnLedgerRecord *record;
} RunDir;

static void
run_dir_init(RunDir *d, const gchar *extra, const gchar *cpus)
{
    g_autoptr(GError) error = NULL;

    d->dir = g_dir_make_tmp("vnuma-dataplane-XXXXXX", NULL);
    d->qemu_pidfile = g_build_filename(d->dir, "vm1.pid", NULL);
    d->dp_pidfile = g_build_filename(d->dir, "dp.pid", NULL);
    d->shared_pidfile = g_build_filename(d->dir, "shared.pid", NULL);
    d->conf = g_strdup_printf("[dataplane]\n"
                              "vm1 = pidfile:%s;pidfile:%s%s\n"
                              "vm2 = pidfile:%s\n",
                              d->dp_pidfile, d->shared_pidfile, extra, d->shared_pidfile);
    d->config = vn_test_config_from_text(d->conf, &error);
    g_assert_no_error(error);
    d->record = vn_ledger_record_new("uuid-vm1", "vm1");
    vn_ledger_record_add_cell(d->record, 0, 0, 1, cpus, 65536);
    g_setenv("VNUMA_LIBVIRT_RUN_DIR", d->dir, TRUE);
}

static void
run_dir_clear(RunDir *d)
{
    if (d->dir) { /* not made when the test was skipped */
        g_unsetenv("VNUMA_LIBVIRT_RUN_DIR");
        vn_test_remove_tree(d->dir);
    }
    g_clear_pointer(&d->config, vn_config_free);
    g_clear_pointer(&d->record, vn_ledger_record_free);
    g_free(d->dir);
    g_free(d->qemu_pidfile);
    g_free(d->dp_pidfile);
    g_free(d->shared_pidfile);
    g_free(d->conf);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RunDir, run_dir_clear)

/* vn_dataplane_follow(): the whole step of `vnumactl apply`. */
static void
test_follow(void)
{
    gint cpu = target_cpu();
    g_autofree gchar *cpu_text = g_strdup_printf("%d", cpu);
    g_auto(RunDir) d = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autofree gchar *qemu_text = NULL, *shared_before = NULL, *shared_line = NULL, *got = NULL;
    pid_t tid, qemu;
    GPid dp, shared;

    run_dir_init(&d, ";unit:vn-absent.service", cpu_text);
    qemu = spawn_fake_qemu(&tid);
    dp = spawn_sleep(d.dp_pidfile);
    shared = spawn_sleep(d.shared_pidfile);
    qemu_text = g_strdup_printf("%d\n", (int)qemu);
    shared_before = allowed_list(shared);
    shared_line = g_strdup_printf("data plane pidfile:%s: shared by 2 VMs in [dataplane], not "
                                  "steered",
                                  d.shared_pidfile);
    g_assert_true(g_file_set_contents(d.qemu_pidfile, qemu_text, -1, NULL));

    g_assert_false(vn_dataplane_follow(d.record, d.config, log, &error));
    dump_log(log);
    g_assert_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER);
    g_assert_nonnull(strstr(error->message, "1 step(s) failed"));
    got = allowed_list(tid);
    g_assert_cmpstr(got, ==, cpu_text);
    assert_process_on(dp, cpu_text);
    g_assert_true(log_has(log, shared_line));
    g_clear_pointer(&got, g_free);
    got = allowed_list(shared);
    g_assert_cmpstr(got, ==, shared_before);
    g_assert_true(g_str_has_prefix(g_ptr_array_index(log, log->len - 1),
                                   "data plane unit:vn-absent.service: no cgroup"));
    g_assert_true(g_str_has_suffix(g_ptr_array_index(log, log->len - 1), "; not steered"));

    stop(qemu);
    stop(dp);
    stop(shared);
}

/* The first CPU this process may run on other than `not`; -1 if none. */
static gint
other_cpu(gint not )
{
    cpu_set_t set;

    g_assert_cmpint(sched_getaffinity(0, sizeof(set), &set), ==, 0);
    for (gint cpu = 0; cpu < CPU_SETSIZE; cpu++)
        if (CPU_ISSET(cpu, &set) && cpu != not )
            return cpu;
    return -1;
}

/* Pins every thread of `pid` to `cpu`, as an operator's taskset would. */
static void
move_process(pid_t pid, gint cpu)
{
    g_autofree gchar *dir = g_strdup_printf("/proc/%d/task", (int)pid);
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *name;
    cpu_set_t set;

    CPU_ZERO(&set);
    CPU_SET(cpu, &set);
    g_assert_nonnull(d);
    while ((name = g_dir_read_name(d)))
        g_assert_cmpint(sched_setaffinity(atoi(name), sizeof(set), &set), ==, 0);
}

/* vn_dataplane_repair(): only what drifted is re-steered, with one line
 * saying where it was; what is in place is left alone, without a line. */
static void
test_repair(void)
{
    gint cpu = target_cpu(), away = other_cpu(cpu);
    g_autofree gchar *cpu_text = g_strdup_printf("%d", cpu);
    g_auto(RunDir) d = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) done = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func(g_free);
    g_autofree gchar *vhost_line = NULL, *dp_prefix = NULL, *got = NULL;
    pid_t tid, qemu;
    GPid dp, shared;

    if (away < 0 || numa_available() < 0) {
        g_test_skip("needs two CPUs and NUMA support");
        return;
    }
    run_dir_init(&d, "", cpu_text);

    /* not running (no QEMU pid file): skipped, nothing touched */
    dp = spawn_sleep(d.dp_pidfile);
    move_process(dp, away);
    g_assert_true(vn_dataplane_repair(d.record, d.config, NULL, done, failed, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(done->len + failed->len, ==, 0);

    qemu = spawn_fake_qemu(&tid);
    shared = spawn_sleep(d.shared_pidfile);
    move_process(shared, away);
    got = g_strdup_printf("%d\n", (int)qemu);
    g_assert_true(g_file_set_contents(d.qemu_pidfile, got, -1, NULL));
    g_clear_pointer(&got, g_free);
    move_process(tid, away);
    vhost_line = g_strdup_printf("vhost worker: thread %d: CPUs %d -> %d", (int)tid, away, cpu);
    dp_prefix = g_strdup_printf("data plane pidfile:%s: process %d: 1 thread(s), CPUs %d -> %d, ",
                                d.dp_pidfile, (int)dp, away, cpu);
    g_assert_true(vn_dataplane_repair(d.record, d.config, NULL, done, failed, &error));
    dump_log(done);
    dump_log(failed);
    g_assert_cmpuint(failed->len, ==, 0);
    g_assert_cmpuint(done->len, ==, 2);
    g_assert_cmpstr(g_ptr_array_index(done, 0), ==, vhost_line);
    g_assert_true(g_str_has_prefix(g_ptr_array_index(done, 1), dp_prefix));
    got = allowed_list(tid);
    g_assert_cmpstr(got, ==, cpu_text);
    assert_process_on(dp, cpu_text);
    /* the shared back-end is never steered */
    g_clear_pointer(&got, g_free);
    got = g_strdup_printf("%d", away);
    assert_process_on(shared, got);

    /* everything in place: nothing to do, nothing said */
    g_ptr_array_set_size(done, 0);
    g_assert_true(vn_dataplane_repair(d.record, d.config, NULL, done, failed, &error));
    g_assert_cmpuint(done->len + failed->len, ==, 0);

    /* a back-end restarted with a new pid and the wrong affinity */
    stop(dp);
    dp = spawn_sleep(d.dp_pidfile);
    move_process(dp, away);
    g_assert_true(vn_dataplane_repair(d.record, d.config, NULL, done, failed, &error));
    g_assert_cmpuint(done->len, ==, 1);
    assert_process_on(dp, cpu_text);

    /* its pid file gone: a failure line, the rest still checked */
    g_ptr_array_set_size(done, 0);
    g_assert_cmpint(g_unlink(d.dp_pidfile), ==, 0);
    move_process(tid, away);
    g_assert_true(vn_dataplane_repair(d.record, d.config, NULL, done, failed, &error));
    dump_log(failed);
    g_assert_cmpuint(done->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(done, 0), ==, vhost_line);
    g_assert_cmpuint(failed->len, ==, 1);
    g_assert_true(g_str_has_prefix(g_ptr_array_index(failed, 0), "data plane pidfile:"));

    stop(qemu);
    stop(dp);
    stop(shared);
}

static gint
cmp_pid(gconstpointer a, gconstpointer b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return x < y ? -1 : x > y;
}

/* A VM whose interface has <driver name='vhost' queues='4'/>: its four
 * vhost workers dealt one CPU each over its cells' CPUs (this process's
 * CPUs stand in for the VM's shared cell), in ascending thread id; one
 * moved away by hand is put back on its own CPU by drift repair. */
static void
test_follow_multiqueue(void)
{
    g_autoptr(VnBitmap) own = own_cpus();
    g_autofree gchar *own_text = vn_cpulist_format(own);
    g_autofree gchar *dir = NULL, *pidfile = NULL, *xml = NULL, *text = NULL, *line = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLedgerRecord) r = NULL;
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(guint));
    pid_t tids[4], qemu;
    cpu_set_t set;

    if (vn_bitmap_count(own) < 2) {
        g_test_skip("needs two CPUs");
        return;
    }
    VN_BITMAP_FOREACH (own, cpu) {
        guint c = (guint)cpu;
        g_array_append_val(order, c);
    }
    dir = g_dir_make_tmp("vnuma-multiqueue-XXXXXX", NULL);
    g_setenv("VNUMA_LIBVIRT_RUN_DIR", dir, TRUE);
    g_setenv("VNUMA_STATE_DIR", dir, TRUE); /* no ledger: no VM owns a CPU */
    config = vn_test_config_from_text("", &error);
    g_assert_no_error(error);
    r = vn_ledger_record_new("uuid-vm1", "vm1");
    vn_ledger_record_add_cell(r, 0, 0, 2, own_text, 65536);
    qemu = spawn_fake_qemu_n(G_N_ELEMENTS(tids), tids);
    qsort(tids, G_N_ELEMENTS(tids), sizeof(pid_t), cmp_pid);
    pidfile = g_build_filename(dir, "vm1.pid", NULL);
    text = g_strdup_printf("%d\n", (int)qemu);
    g_assert_true(g_file_set_contents(pidfile, text, -1, NULL));
    xml = g_build_filename(dir, "vm1.xml", NULL);
    g_assert_true(g_file_set_contents(
        xml,
        "<domstatus state='running' pid='1'><domain type='kvm'><name>vm1</name>"
        "<memory unit='KiB'>65536</memory><vcpu>2</vcpu><devices>"
        "<interface type='bridge'><source bridge='br0'/><model type='virtio'/>"
        "<driver name='vhost' queues='4'/></interface></devices></domain></domstatus>",
        -1, NULL));

    g_assert_true(vn_dataplane_follow(r, config, log, &error));
    g_assert_no_error(error);
    dump_log(log);
    g_assert_true(g_str_has_prefix(g_ptr_array_index(log, 0), "vhost workers: shared VM"));
    for (guint i = 0; i < G_N_ELEMENTS(tids); i++) {
        g_autofree gchar *got = allowed_list(tids[i]);
        g_autofree gchar *want = g_strdup_printf("%u", g_array_index(order, guint, i % order->len));
        g_assert_cmpstr(got, ==, want);
    }

    /* worker 1 moved onto worker 0's CPU by hand: back on its own */
    CPU_ZERO(&set);
    CPU_SET(g_array_index(order, guint, 0), &set);
    g_assert_cmpint(sched_setaffinity(tids[1], sizeof(set), &set), ==, 0);
    g_ptr_array_set_size(log, 0);
    g_assert_true(vn_dataplane_repair(r, config, NULL, log, failed, &error));
    dump_log(log);
    dump_log(failed);
    line = g_strdup_printf("vhost worker: thread %d: CPUs %u -> %u", (int)tids[1],
                           g_array_index(order, guint, 0), g_array_index(order, guint, 1));
    g_assert_cmpuint(failed->len, ==, 0);
    g_assert_cmpuint(log->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(log, 0), ==, line);

    stop(qemu);
    g_unsetenv("VNUMA_LIBVIRT_RUN_DIR");
    g_unsetenv("VNUMA_STATE_DIR");
    vn_test_remove_tree(dir);
}

/* DRIFTED_ONLY leaves a thread or process in place alone, without a line. */
static void
test_steer_drifted_only(void)
{
    g_autoptr(VnBitmap) cpus = own_cpus();
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GArray) ids = g_array_new(FALSE, FALSE, sizeof(pid_t));
    pid_t self = getpid();

    g_array_append_val(ids, self);
    g_assert_true(vn_dataplane_steer_full(ids, FALSE, cpus, NULL, VN_DATAPLANE_STEER_DRIFTED_ONLY,
                                          log, NULL));
    g_assert_true(
        vn_dataplane_steer_full(ids, TRUE, cpus, NULL, VN_DATAPLANE_STEER_DRIFTED_ONLY, log, NULL));
    g_assert_cmpuint(log->len, ==, 0);
}

int
main(int argc, char **argv)
{
    g_autoptr(GPtrArray) keep = g_ptr_array_new_with_free_func(g_free);
    int rc;

    g_test_init(&argc, &argv, NULL);
    add_cases(keep, "vhost", test_vhost_case);
    add_cases(keep, "resolve", test_resolve_case);
    g_test_add_func("/dataplane/spec/good", test_spec_good);
    g_test_add_func("/dataplane/spec/bad", test_spec_bad);
    g_test_add_func("/dataplane/config/good", test_config_good);
    g_test_add_func("/dataplane/config/none", test_config_none);
    g_test_add_func("/dataplane/config/bad", test_config_bad);
    g_test_add_func("/dataplane/steer/vhost-thread", test_steer_vhost_thread);
    g_test_add_func("/dataplane/steer/process", test_steer_process);
    g_test_add_func("/dataplane/steer/gone-and-refused", test_steer_gone_and_refused);
    g_test_add_func("/dataplane/follow/vm", test_follow);
    g_test_add_func("/dataplane/follow/multiqueue", test_follow_multiqueue);
    g_test_add_func("/dataplane/steer/drifted-only", test_steer_drifted_only);
    g_test_add_func("/dataplane/repair/vm", test_repair);
    rc = g_test_run();
    return rc;
}
