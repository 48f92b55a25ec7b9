/* test-hook.c: the built vnuma-hook driven exactly as libvirt runs it
 * (argv <vm> <op> <sub-op> -, domain XML on stdin, minimal environment),
 * on fixture domains (tests/data/hook) and the 4-node hagrid topology. */
#include <string.h>
#include <sys/wait.h>
#include <gio/gio.h>
#include <glib/gstdio.h>
#include "vn-ledger.h"
#include "vn-test-fixture.h"
#include "vn-topology-source.h"

typedef struct {
    gchar *state_dir;
    gchar *run_dir;
    gchar *config;   /* NULL: empty.conf */
    gchar *vnumactl; /* NULL: none */
    gchar *topology; /* NULL: hwloc/hagrid.xml */
} Fixture;

static gchar *
data_path(const gchar *name)
{
    return g_build_filename(g_getenv("VN_TEST_DATA"), name, NULL);
}

static gchar *
hook_path(void)
{
    return g_build_filename(g_getenv("VN_BUILD_ROOT"), "hooks", "vnuma-hook", NULL);
}

static void
fixture_set_up(Fixture *f, gconstpointer data)
{
    f->state_dir = g_dir_make_tmp("vn-hook-state-XXXXXX", NULL);
    f->run_dir = g_dir_make_tmp("vn-hook-run-XXXXXX", NULL);
    g_assert_nonnull(f->state_dir);
    g_assert_nonnull(f->run_dir);
}

static void
fixture_tear_down(Fixture *f, gconstpointer data)
{
    vn_test_remove_tree(f->state_dir);
    vn_test_remove_tree(f->run_dir);
    g_free(f->state_dir);
    g_free(f->run_dir);
    g_free(f->config);
    g_free(f->vnumactl);
    g_free(f->topology);
}

typedef struct {
    gint status; /* exit status */
    gchar *out;
    gchar *err;
    gdouble seconds;
} Run;

static void
run_clear(Run *r)
{
    g_free(r->out);
    g_free(r->err);
}

static GSubprocessLauncher *
launcher(const Fixture *f)
{
    g_autofree gchar *topo = f->topology ? g_strdup(f->topology) : data_path("hwloc/hagrid.xml");
    g_autofree gchar *conf = f->config ? g_strdup(f->config) : data_path("config/empty.conf");
    GSubprocessLauncher *l =
        g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDIN_PIPE | G_SUBPROCESS_FLAGS_STDOUT_PIPE |
                                  G_SUBPROCESS_FLAGS_STDERR_PIPE);
    const gchar *env[] = { NULL };
    g_subprocess_launcher_set_environ(l, (gchar **)env);
    g_subprocess_launcher_setenv(l, "PATH", "/usr/sbin:/usr/bin:/sbin:/bin", TRUE);
    g_subprocess_launcher_setenv(l, "LC_ALL", "C", TRUE);
    g_subprocess_launcher_setenv(l, "G_DEBUG", "fatal-warnings", TRUE);
    g_subprocess_launcher_setenv(l, "VNUMA_STATE_DIR", f->state_dir, TRUE);
    g_subprocess_launcher_setenv(l, "VNUMA_LIBVIRT_RUN_DIR", f->run_dir, TRUE);
    g_subprocess_launcher_setenv(l, "VNUMA_TOPOLOGY", topo, TRUE);
    g_subprocess_launcher_setenv(l, "VNUMA_CONFIG", conf, TRUE);
    g_subprocess_launcher_setenv(l, "VNUMA_VNUMACTL", f->vnumactl ? f->vnumactl : "/nonexistent",
                                 TRUE);
    return l;
}

/* Runs the hook with `xml` on stdin; waits for exit AND for EOF on its
 * stdout/stderr, as libvirt does. */
static void
run_hook_xml(const Fixture *f, const gchar *vm, const gchar *op, const gchar *sub_op,
             const gchar *xml, Run *r)
{
    g_autoptr(GSubprocessLauncher) l = launcher(f);
    g_autofree gchar *hook = hook_path();
    g_autoptr(GError) err = NULL;
    gint64 t0 = g_get_monotonic_time();
    g_autoptr(GSubprocess) p =
        g_subprocess_launcher_spawn(l, &err, hook, vm, op, sub_op, "-", NULL);
    g_assert_no_error(err);
    g_subprocess_communicate_utf8(p, xml, NULL, &r->out, &r->err, &err);
    g_assert_no_error(err);
    g_subprocess_wait(p, NULL, &err);
    r->seconds = (g_get_monotonic_time() - t0) / 1e6;
    g_assert_true(g_subprocess_get_if_exited(p));
    r->status = g_subprocess_get_exit_status(p);
}

static void
run_hook(const Fixture *f, const gchar *vm, const gchar *op, const gchar *sub_op,
         const gchar *fixture, Run *r)
{
    g_autofree gchar *name = g_strdup_printf("hook/%s.xml", fixture);
    g_autofree gchar *path = data_path(name);
    g_autofree gchar *xml = NULL;
    g_assert_true(g_file_get_contents(path, &xml, NULL, NULL));
    run_hook_xml(f, vm, op, sub_op, xml, r);
}

/* Runs and expects a silent exit 0. */
static void
hook_ok(const Fixture *f, const gchar *vm, const gchar *op, const gchar *sub_op,
        const gchar *fixture)
{
    Run r = { 0 };
    run_hook(f, vm, op, sub_op, fixture, &r);
    if (r.status != 0 || *r.out || *r.err)
        g_error("hook %s %s %s: status %d, stdout \"%s\", stderr \"%s\"", vm, op, sub_op, r.status,
                r.out, r.err);
    run_clear(&r);
}

static VnLedger *
snapshot(const Fixture *f)
{
    g_autoptr(GError) err = NULL;
    VnLedger *l = vn_ledger_snapshot(f->state_dir, &err);
    g_assert_no_error(err);
    return l;
}

static void
mark_running(const Fixture *f, const gchar *vm)
{
    g_autofree gchar *file = g_strconcat(vm, ".xml", NULL);
    g_autofree gchar *path = g_build_filename(f->run_dir, file, NULL);
    g_assert_true(g_file_set_contents(path, "<domstatus/>", -1, NULL));
}

static gchar *
read_state_file(const Fixture *f, const gchar *name)
{
    g_autofree gchar *path = g_build_filename(f->state_dir, name, NULL);
    gchar *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return g_strdup("");
    return text;
}

static void
test_prepare_recorded(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-placed", "prepare", "begin", "placed");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 1);
    VnLedgerRecord *r = vn_ledger_lookup(l, "11111111-0000-4000-8000-000000000001");
    g_assert_nonnull(r);
    g_assert_cmpstr(r->name, ==, "vm-placed");
    g_assert_cmpint(r->state, ==, VN_LEDGER_STATE_RESERVED);
    g_assert_false(r->needs_apply);
    VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, 0);
    g_assert_cmpuint(c->node_os_id, ==, 1);
    g_assert_cmpstr(c->cpus, ==, "2-3");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "\"decision\":\"reserved\""));
}

static void
test_prepare_managed(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-managed");
    g_assert_nonnull(r);
    g_assert_true(r->needs_apply);
    g_assert_cmpuint(vn_ledger_record_memory_kib(r), ==, 1048576);
    g_assert_cmpuint(vn_ledger_record_vcpus(r), ==, 2);
}

/* Guest cells an x86 guest without ACPI cannot see: the VM is placed and
 * starts, and the decision's reason (log, history) carries the warning. */
static void
test_prepare_warns_guest_view(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-noacpi", "prepare", "begin", "no-acpi-cells");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-noacpi");
    g_assert_nonnull(r);
    g_assert_cmpuint(r->cells->len, ==, 2);
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "warning: domain 'vm-noacpi' has 2 guest NUMA cells but "
                                     "no <features><acpi/>"));
    /* a VM with ACPI, or without guest cells, gets no such warning */
    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    g_free(history);
    history = read_state_file(f, "history.log");
    g_auto(GStrv) parts = g_strsplit(history, "warning:", -1);
    g_assert_cmpuint(g_strv_length(parts), ==, 2);
}

/* A hold vnumad made through the planning API, expiring in 10 minutes:
 * cell i on cells[i] (id i). */
typedef struct {
    guint node, vcpus;
    const gchar *cpus;
    guint64 memory_kib;
} HoldCell;

static void
put_hold(const Fixture *f, const gchar *key, const gchar *name, guint n, const HoldCell *cells)
{
    g_autoptr(GError) err = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open(f->state_dir, &err);
    g_assert_no_error(err);
    VnLedgerRecord *hold = vn_ledger_record_new(key, name);
    hold->time = g_get_real_time() / G_USEC_PER_SEC;
    hold->expires = hold->time + 600;
    for (guint i = 0; i < n; i++)
        vn_ledger_record_add_cell(hold, i, cells[i].node, cells[i].vcpus, cells[i].cpus,
                                  cells[i].memory_kib);
    vn_ledger_put(l, hold);
    g_assert_true(vn_ledger_commit(l, &err));
}

/* vnumad held room for the VM (planning API): the start takes that hold
 * as the VM's placement, to be applied live. */
static void
test_prepare_held(Fixture *f, gconstpointer data)
{
    /* data: the hold's key, the VM's name or (a cloud controller's hold
     * for its instance) the domain's UUID in any case */
    const gchar *hold_for = data ? data : "vm-managed";
    put_hold(f, "reservation:7", hold_for, 1, (const HoldCell[]){ { 3, 2, "6-7", 1048576 } });
    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 1);
    g_assert_null(vn_ledger_lookup(l, "reservation:7"));
    VnLedgerRecord *r = vn_ledger_lookup(l, "11111111-0000-4000-8000-000000000003");
    g_assert_nonnull(r);
    g_assert_true(r->needs_apply);
    g_assert_cmpint(r->expires, ==, 0);
    g_assert_cmpuint(g_array_index(r->cells, VnLedgerCell, 0).node_os_id, ==, 3);
    g_assert_cmpstr(g_array_index(r->cells, VnLedgerCell, 0).cpus, ==, "6-7");
}

/* A hold of guest cells of their own sizes (POST /v1/reservations with
 * cell_sizes) is taken cell by cell: each keeps its node, vCPUs and
 * memory. */
static void
test_prepare_held_uneven(Fixture *f, gconstpointer data)
{
    put_hold(f, "reservation:8", "vm-managed", 2,
             (const HoldCell[]){ { 1, 1, "2-3", 786432 }, { 3, 1, "6-7", 262144 } });
    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 1);
    VnLedgerRecord *r = vn_ledger_lookup(l, "11111111-0000-4000-8000-000000000003");
    g_assert_nonnull(r);
    g_assert_cmpint(r->expires, ==, 0);
    g_assert_cmpuint(r->cells->len, ==, 2);
    const VnLedgerCell *c0 = &g_array_index(r->cells, VnLedgerCell, 0);
    const VnLedgerCell *c1 = &g_array_index(r->cells, VnLedgerCell, 1);
    g_assert_cmpuint(c0->node_os_id, ==, 1);
    g_assert_cmpuint(c0->vcpus, ==, 1);
    g_assert_cmpuint(c0->memory_kib, ==, 786432);
    g_assert_cmpuint(c1->node_os_id, ==, 3);
    g_assert_cmpuint(c1->vcpus, ==, 1);
    g_assert_cmpuint(c1->memory_kib, ==, 262144);
}

static void
test_prepare_unmanaged(Fixture *f, gconstpointer data)
{
    f->config = data_path("hook/opted-in.conf");
    hook_ok(f, "vm-unmanaged", "prepare", "begin", "unmanaged");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);

    /* the default (no manage line) is all */
    g_clear_pointer(&f->config, g_free);
    hook_ok(f, "vm-unmanaged", "prepare", "begin", "unmanaged");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    g_assert_nonnull(vn_ledger_lookup_name(l, "vm-unmanaged"));
}

/* A domain another manager pinned (Nova's dedicated 2-cell XML), with
 * manage = all: counted as taken, cell by cell, and left alone: no live
 * apply asked, nothing printed at migrate or restore; a managed VM
 * planned next avoids its dedicated CPUs. */
static void
test_prepare_foreign(Fixture *f, gconstpointer data)
{
    g_free(f->config);
    f->config = data_path("hook/manage-all.conf");
    hook_ok(f, "instance-0000002a", "prepare", "begin", "nova-pinned");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "instance-0000002a");
    g_assert_nonnull(r);
    g_assert_true(r->foreign);
    g_assert_true(r->dedicated);
    g_assert_false(r->needs_apply);
    g_assert_cmpuint(r->cells->len, ==, 2);
    for (guint i = 0; i < 2; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        g_assert_cmpuint(c->node_os_id, ==, i);
        g_assert_cmpstr(c->cpus, ==, i ? "2-3" : "0-1");
        g_assert_cmpuint(c->vcpus, ==, 2);
        g_assert_cmpuint(c->memory_kib, ==, 1048576);
    }
    g_autofree gchar *log = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(log, "\"decision\":\"respected\""));
    g_assert_nonnull(strstr(log, "placed by another manager (<cputune><vcpupin vcpu='0'>)"));

    /* migrate/restore: nothing printed, the XML stays as Nova wrote it */
    Run run = { 0 };
    run_hook(f, "instance-0000002a", "restore", "begin", "nova-pinned", &run);
    g_assert_cmpint(run.status, ==, 0);
    g_assert_cmpstr(run.out, ==, "");
    run_clear(&run);

    /* a managed 2-vCPU VM started next is not put on the owned CPUs 0-3 */
    hook_ok(f, "vm-unmanaged", "prepare", "begin", "unmanaged");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    VnLedgerRecord *other = vn_ledger_lookup_name(l, "vm-unmanaged");
    g_assert_nonnull(other);
    g_assert_false(other->foreign);
    for (guint i = 0; i < other->cells->len; i++)
        g_assert_cmpuint(g_array_index(other->cells, VnLedgerCell, i).node_os_id, >, 1);
}

static void
test_release(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-placed", "prepare", "begin", "placed");
    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    hook_ok(f, "vm-placed", "start", "begin", "placed");
    mark_running(f, "vm-placed");
    hook_ok(f, "vm-placed", "started", "begin", "placed");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpint(vn_ledger_lookup_name(l, "vm-placed")->state, ==, VN_LEDGER_STATE_RUNNING);
    hook_ok(f, "vm-placed", "stopped", "end", "placed");
    hook_ok(f, "vm-placed", "release", "end", "placed");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    g_assert_null(vn_ledger_lookup_name(l, "vm-placed"));
    g_assert_nonnull(vn_ledger_lookup_name(l, "vm-managed"));
    /* A broken XML at release still frees by name. */
    hook_ok(f, "vm-managed", "release", "end", "malformed");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
}

/* started with needs_apply: the helper runs detached, the hook returns
 * (stdout/stderr at EOF) long before the helper ends. */
static void
test_started_apply(Fixture *f, gconstpointer data)
{
    f->vnumactl = g_build_filename(f->state_dir, "fake-vnumactl", NULL);
    g_autofree gchar *done = g_build_filename(f->state_dir, "apply-done", NULL);
    g_autofree gchar *script =
        g_strdup_printf("#!/bin/sh\necho \"helper $*\"\nsleep 4\ntouch '%s'\n", done);
    g_assert_true(g_file_set_contents(f->vnumactl, script, -1, NULL));
    g_assert_cmpint(g_chmod(f->vnumactl, 0755), ==, 0);

    hook_ok(f, "vm-managed", "prepare", "begin", "managed");
    mark_running(f, "vm-managed");
    Run r = { 0 };
    run_hook(f, "vm-managed", "started", "begin", "managed", &r);
    g_assert_cmpint(r.status, ==, 0);
    /* back long before the helper's 4 s: it did not hold stdout/stderr */
    g_assert_cmpfloat(r.seconds, <, 3.0);
    g_assert_false(g_file_test(done, G_FILE_TEST_EXISTS));
    run_clear(&r);
    for (guint i = 0; i < 200 && !g_file_test(done, G_FILE_TEST_EXISTS); i++)
        g_usleep(50000);
    g_assert_true(g_file_test(done, G_FILE_TEST_EXISTS));
    g_autofree gchar *log = read_state_file(f, "apply.log");
    g_assert_cmpstr(log, ==, "helper apply vm-managed\n");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpint(vn_ledger_lookup_name(l, "vm-managed")->state, ==, VN_LEDGER_STATE_RUNNING);
}

/* started with no live pin due but [dataplane] processes named for the VM:
 * the helper is started to steer only its data path. */
static void
test_started_dataplane(Fixture *f, gconstpointer data)
{
    f->vnumactl = g_build_filename(f->state_dir, "fake-vnumactl", NULL);
    f->config = g_build_filename(f->state_dir, "dataplane.conf", NULL);
    g_autofree gchar *done = g_build_filename(f->state_dir, "apply-done", NULL);
    g_autofree gchar *script = g_strdup_printf("#!/bin/sh\necho \"helper $*\"\ntouch '%s'\n", done);
    g_assert_true(g_file_set_contents(f->vnumactl, script, -1, NULL));
    g_assert_cmpint(g_chmod(f->vnumactl, 0755), ==, 0);
    g_assert_true(g_file_set_contents(f->config,
                                      "[dataplane]\n"
                                      "vm-placed = pidfile:/run/vnuma-test-dp.pid\n",
                                      -1, NULL));

    hook_ok(f, "vm-placed", "prepare", "begin", "placed");
    mark_running(f, "vm-placed");
    hook_ok(f, "vm-placed", "started", "begin", "placed");
    for (guint i = 0; i < 200 && !g_file_test(done, G_FILE_TEST_EXISTS); i++)
        g_usleep(50000);
    g_autofree gchar *log = read_state_file(f, "apply.log");
    g_assert_cmpstr(log, ==, "helper apply --dataplane-only vm-placed\n");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "data path steering started in the background"));
}

static void
test_fail_open(Fixture *f, gconstpointer data)
{
    Run r = { 0 };
    run_hook(f, "vm-broken", "prepare", "begin", "malformed", &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.err, ==, "");
    g_assert_cmpfloat(r.seconds, <, 2.0);
    run_clear(&r);
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "\"decision\":\"error\""));

    static const gchar *const phases[][2] = {
        { "frobnicate", "begin" },
        { "prepare", "end" },
        { "attach", "begin" },
        { "", "" },
    };
    for (guint i = 0; i < G_N_ELEMENTS(phases); i++) {
        run_hook(f, "vm-placed", phases[i][0], phases[i][1], "placed", &r);
        g_assert_cmpint(r.status, ==, 0);
        g_assert_cmpstr(r.out, ==, "");
        g_assert_cmpstr(r.err, ==, "");
        run_clear(&r);
    }
    /* Empty stdin and a start phase are harmless too. */
    run_hook_xml(f, "vm-x", "prepare", "begin", "", &r);
    g_assert_cmpint(r.status, ==, 0);
    run_clear(&r);
    /* A broken config, or a missing topology file, is an internal error:
     * logged, the start goes on. */
    f->config = data_path("config/bad-syntax.conf");
    run_hook(f, "vm-placed", "prepare", "begin", "placed", &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.err, ==, "");
    run_clear(&r);
    g_free(history);
    history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "bad-syntax.conf"));
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
}

/* $VNUMA_TOPOLOGY names a file that crashes hwloc 2.9: the import runs
 * in a child, the hook logs the error and the VM starts. */
static void
test_fail_open_hwloc_crash(Fixture *f, gconstpointer data)
{
    f->topology = data_path("hwloc-crash/pu-without-complete-cpuset.xml");
    g_autofree gchar *expected =
        g_strdup_printf("%s: hwloc crashed reading it (signal 11)", f->topology);
    Run r = { 0 };
    run_hook(f, "vm-placed", "prepare", "begin", "placed", &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "");
    g_assert_cmpstr(r.err, ==, "");
    run_clear(&r);
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "\"decision\":\"error\""));
    g_assert_nonnull(strstr(history, expected));
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
}

static void
assert_one_line(const gchar *text, const gchar *prefix)
{
    if (!g_str_has_prefix(text, prefix))
        g_error("\"%s\" does not start with \"%s\"", text, prefix);
    g_assert_true(g_str_has_suffix(text, "\n"));
    g_assert_true(strchr(text, '\n') == text + strlen(text) - 1); /* one line */
}

/* <vcpu cpuset> alone (Nova's cpu_shared_set): an allowed set.  Managed
 * (the default manage = all), the VM is planned inside it as vnuma's own
 * VM, the set kept in its record; a set that leaves no room is refused
 * with the set named; opted-in, it is another manager's and counted as
 * taken. */
static void
test_prepare_allowed_set(Fixture *f, gconstpointer data)
{
    /* a hold the controller made without the set, on node 0: not taken */
    put_hold(f, "reservation:8", "instance-0000000b", 1,
             (const HoldCell[]){ { 0, 2, "0-1", 1048576 } });
    hook_ok(f, "instance-0000000b", "prepare", "begin", "nova-shared");
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_null(vn_ledger_lookup(l, "reservation:8"));
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "instance-0000000b");
    g_assert_nonnull(r);
    g_assert_false(r->foreign);
    g_assert_true(r->needs_apply);
    g_assert_cmpstr(r->allowed_cpus, ==, "2-3,6-7");
    g_assert_cmpuint(r->cells->len, ==, 1);
    const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, 0);
    g_assert_true(c->node_os_id == 1 || c->node_os_id == 3);
    g_assert_cmpstr(c->cpus, ==, c->node_os_id == 1 ? "2-3" : "6-7");
    g_autofree gchar *log = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(log, "\"decision\":\"planned\""));
    g_assert_nonnull(strstr(log, "lies outside the domain's <vcpu cpuset>"));

    /* 12 GiB inside CPUs 6-7, whose node has 8 GiB: refused, set named */
    g_autofree gchar *path = data_path("hook/nova-shared.xml");
    g_autofree gchar *text = NULL;
    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_autoptr(GString) big = g_string_new(text);
    g_string_replace(big, "cpuset='2-3,6-7'", "cpuset='6-7'", 1);
    g_string_replace(big, "1048576", "12582912", 1);
    g_string_replace(big, "instance-0000000b", "instance-0000000c", 0);
    g_string_replace(big, "0b0b0b0b", "0c0c0c0c", 1);
    f->config = data_path("hook/refuse.conf");
    Run run = { 0 };
    run_hook_xml(f, "instance-0000000c", "prepare", "begin", big->str, &run);
    g_assert_cmpint(run.status, ==, 1);
    assert_one_line(run.err, "vnuma: refusing to start instance-0000000c: no recorded placement; "
                             "no placement fits now: domain 'instance-0000000c' "
                             "(<vcpu cpuset='6-7'>): no placement for 2 vCPUs and 12.0 GiB on "
                             "this host now within the allowed CPU set");
    run_clear(&run);

    /* opted-in: not vnuma's, counted as taken where the set lies */
    g_free(f->config);
    f->config = data_path("hook/opted-in.conf");
    hook_ok(f, "instance-0000000b", "prepare", "begin", "nova-shared");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    r = vn_ledger_lookup_name(l, "instance-0000000b");
    g_assert_nonnull(r);
    g_assert_true(r->foreign);
    g_assert_null(r->allowed_cpus);
}

static void
test_refuse(Fixture *f, gconstpointer data)
{
    f->config = data_path("hook/refuse.conf");
    Run r = { 0 };
    run_hook(f, "vm-gone", "prepare", "begin", "gone-node", &r);
    g_assert_cmpint(r.status, ==, 1);
    assert_one_line(r.err, "vnuma: refusing to start vm-gone: recorded placement no longer fits");
    g_assert_nonnull(strstr(r.err, "node 9 does not exist"));
    g_assert_cmpstr(r.out, ==, "");
    run_clear(&r);
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0);
}

static void
test_replan_and_ignore(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-gone", "prepare", "begin", "gone-node"); /* default: replan */
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-gone");
    g_assert_true(r->needs_apply);
    /* no guest cells: the core chooses (vn_engine_cell_rule), one node holds it */
    g_assert_cmpuint(r->cells->len, ==, 1);
    g_assert_cmpuint(g_array_index(r->cells, VnLedgerCell, 0).node_os_id, !=, 9);

    f->config = data_path("hook/ignore.conf");
    hook_ok(f, "vm-gone", "prepare", "begin", "gone-node");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    r = vn_ledger_lookup_name(l, "vm-gone");
    g_assert_false(r->needs_apply);
    g_assert_cmpuint(g_array_index(r->cells, VnLedgerCell, 0).node_os_id, ==, 9);
}

/* The user re-cut the guest cells (3 recorded, 2 of their own sizes now)
 * and the recorded nodes are gone: the new plan takes the domain's cells,
 * guest ABI, not the recorded count. */
static void
test_replan_recut_cells(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-recut", "prepare", "begin", "recut-cells");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-recut");
    g_assert_nonnull(r);
    g_assert_true(r->needs_apply);
    g_assert_cmpuint(r->cells->len, ==, 2);
    const VnLedgerCell *c0 = &g_array_index(r->cells, VnLedgerCell, 0);
    const VnLedgerCell *c1 = &g_array_index(r->cells, VnLedgerCell, 1);
    g_assert_cmpuint(c0->vcpus, ==, 1);
    g_assert_cmpuint(c0->memory_kib, ==, 786432);
    g_assert_cmpuint(c1->vcpus, ==, 3);
    g_assert_cmpuint(c1->memory_kib, ==, 262144);
}

static void
test_strict(Fixture *f, gconstpointer data)
{
    f->config = data_path("hook/strict.conf");
    Run r = { 0 };
    run_hook(f, "vm-broken", "prepare", "begin", "malformed", &r);
    g_assert_cmpint(r.status, ==, 1);
    assert_one_line(r.err, "vnuma: cannot check the placement of vm-broken:");
    run_clear(&r);
    /* strict never turns the other phases into failures */
    hook_ok(f, "vm-broken", "release", "end", "malformed");
    hook_ok(f, "vm-broken", "reconnect", "begin", "malformed");
}

static void
test_reconnect(Fixture *f, gconstpointer data)
{
    mark_running(f, "vm-placed");
    hook_ok(f, "vm-placed", "reconnect", "begin", "placed");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-placed");
    g_assert_nonnull(r);
    g_assert_cmpint(r->state, ==, VN_LEDGER_STATE_RUNNING);
    hook_ok(f, "vm-unmanaged", "reconnect", "begin", "unmanaged");
    hook_ok(f, "vm-broken", "reconnect", "begin", "malformed");
}

static gchar *
copy_status(const Fixture *f, const gchar *name)
{
    g_autofree gchar *file = g_strconcat(name, ".xml", NULL);
    g_autofree gchar *rel = g_build_filename("hook", "run", file, NULL);
    g_autofree gchar *src = data_path(rel);
    gchar *dst = g_build_filename(f->run_dir, file, NULL);
    g_autofree gchar *text = NULL;
    g_assert_true(g_file_get_contents(src, &text, NULL, NULL));
    g_assert_true(g_file_set_contents(dst, text, -1, NULL));
    return dst;
}

/* No ledger: the first hook rebuilds it from the status XML of running
 * domains, and the running VM's node counts against the new one.
 * vm-live.xml has the metadata as libvirt writes it back after `vnumactl
 * apply` set it live (default namespace, double quotes). */
static void
test_rebuild(Fixture *f, gconstpointer data)
{
    g_autofree gchar *dst = copy_status(f, "vm-status");
    g_autofree gchar *live = copy_status(f, "vm-live");
    g_assert_nonnull(live);
    hook_ok(f, "vm-placed", "prepare", "begin", "placed");
    g_autoptr(VnLedger) l = snapshot(f);
    VnLedgerRecord *lr = vn_ledger_lookup_name(l, "vm-live");
    g_assert_nonnull(lr);
    g_assert_cmpint(lr->priority, ==, VN_PRIORITY_HIGH);
    g_assert_cmpstr(g_array_index(lr->cells, VnLedgerCell, 0).cpus, ==, "2-3");
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-status");
    g_assert_nonnull(r);
    g_assert_cmpint(r->state, ==, VN_LEDGER_STATE_RUNNING);
    g_assert_cmpuint(g_array_index(r->cells, VnLedgerCell, 0).node_os_id, ==, 3);
    g_assert_nonnull(vn_ledger_lookup_name(l, "vm-placed"));
    /* Once the domain's status file is gone, its record is reclaimed. */
    g_unlink(dst);
    hook_ok(f, "vm-placed", "started", "begin", "placed");
    g_clear_pointer(&l, vn_ledger_free);
    l = snapshot(f);
    g_assert_null(vn_ledger_lookup_name(l, "vm-status"));
}

/* A ledger that fails to load for any reason: the start goes on (exit 0,
 * nothing on stdout/stderr), the file is kept byte for byte as
 * ledger.json.corrupt-<time>, and a new ledger is rebuilt from the status
 * XML of the running domains plus this start's reservation. */
typedef struct {
    const gchar *path;
    const gchar *text;    /* or... */
    gchar *(*make)(void); /* ...built at run time */
} CorruptLedger;

static gchar *
deep_ledger(void)
{
    return g_strnfill(100000, '[');
}

static const CorruptLedger corrupt_ledgers[] = {
    { "/hook/ledger/corrupt/garbage", .text = "{\"garbage" },
    { "/hook/ledger/corrupt/deep", .make = deep_ledger },
    { "/hook/ledger/corrupt/trailing",
      .text = "{\"version\":1,\"generation\":1,\"domains\":[]}{\"x\":1}" },
    { "/hook/ledger/corrupt/duplicate",
      .text = "{\"version\":1,\"generation\":1,\"domains\":[],\"domains\":[]}" },
};

static void
test_corrupt_ledger(Fixture *f, gconstpointer data)
{
    const CorruptLedger *c = data;
    g_autofree gchar *made = c->make ? c->make() : NULL;
    const gchar *text = made ? made : c->text;
    g_autofree gchar *path = g_build_filename(f->state_dir, "ledger.json", NULL);
    g_autofree gchar *status = copy_status(f, "vm-status");
    g_assert_nonnull(status);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    gint64 before = g_get_real_time() / G_USEC_PER_SEC;
    hook_ok(f, "vm-placed", "prepare", "begin", "placed");
    gint64 after = g_get_real_time() / G_USEC_PER_SEC;

    g_autoptr(GDir) dir = g_dir_open(f->state_dir, 0, NULL);
    guint set_aside = 0;
    for (const gchar *name; (name = g_dir_read_name(dir));) {
        if (!g_str_has_prefix(name, "ledger.json.corrupt-"))
            continue;
        gint64 when = g_ascii_strtoll(name + strlen("ledger.json.corrupt-"), NULL, 10);
        g_assert_cmpint(when, >=, before);
        g_assert_cmpint(when, <=, after);
        g_autofree gchar *kept = read_state_file(f, name);
        g_assert_cmpstr(kept, ==, text);
        set_aside++;
    }
    g_assert_cmpuint(set_aside, ==, 1);
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_nonnull(vn_ledger_lookup_name(l, "vm-placed"));
    VnLedgerRecord *r = vn_ledger_lookup_name(l, "vm-status");
    g_assert_nonnull(r);
    g_assert_cmpint(r->state, ==, VN_LEDGER_STATE_RUNNING);
}

/* migrate/restore: nothing printed when the recorded placement fits or on
 * any error; a re-placed XML (same guest, pins for this host) otherwise. */
static void
test_filters(Fixture *f, gconstpointer data)
{
    hook_ok(f, "vm-placed", "migrate", "begin", "placed");
    hook_ok(f, "vm-placed", "restore", "begin", "placed");
    hook_ok(f, "vm-broken", "migrate", "begin", "malformed");
    /* a VM without vnuma metadata: left alone when only opted-in VMs are
     * managed, re-planned for this host under the default (all) */
    f->config = data_path("hook/opted-in.conf");
    hook_ok(f, "vm-unmanaged", "migrate", "begin", "unmanaged");
    g_clear_pointer(&f->config, g_free);
    Run plain = { 0 };
    run_hook(f, "vm-unmanaged", "migrate", "begin", "unmanaged", &plain);
    g_assert_cmpint(plain.status, ==, 0);
    g_assert_nonnull(strstr(plain.out, "<vcpupin vcpu='0'"));
    g_assert_null(strstr(plain.out, "<numa>"));
    run_clear(&plain);

    Run r = { 0 };
    run_hook(f, "vm-gone", "migrate", "begin", "gone-node", &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.err, ==, "");
    g_assert_nonnull(strstr(r.out, "<uuid>11111111-0000-4000-8000-000000000002</uuid>"));
    g_assert_null(strstr(r.out, "node='9'"));
    g_assert_nonnull(strstr(r.out, "<vcpupin vcpu='1'"));
    g_assert_null(strstr(r.out, "<numa>")); /* no guest NUMA added */
    /* fed back (as the next hook in qemu.d would see it): it fits now */
    Run again = { 0 };
    run_hook_xml(f, "vm-gone", "migrate", "begin", r.out, &again);
    g_assert_cmpint(again.status, ==, 0);
    g_assert_cmpstr(again.out, ==, "");
    run_clear(&again);
    run_clear(&r);

    /* 10 GiB without guest NUMA fits no single 8 GiB node; the guest (x86
     * without ACPI) sees no cells anyway: its memory is interleaved over two
     * nodes, still with no guest NUMA (its ABI stays) */
    g_autofree gchar *path = data_path("hook/managed.xml");
    g_autofree gchar *xml = NULL;
    g_assert_true(g_file_get_contents(path, &xml, NULL, NULL));
    g_autoptr(GString) big = g_string_new(xml);
    g_string_replace(big, "1048576", "10485760", 0);
    run_hook_xml(f, "vm-managed", "restore", "begin", big->str, &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_nonnull(strstr(r.out, "<memory mode='interleave' nodeset='"));
    g_assert_null(strstr(r.out, "<numa>"));
    run_clear(&r);
    /* with ACPI the guest would see cells it cannot gain: left as it was */
    g_string_replace(big, "</os>", "</os><features><acpi/></features>", 1);
    run_hook_xml(f, "vm-managed", "restore", "begin", big->str, &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "");
    run_clear(&r);
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_cmpuint(vn_ledger_records(l)->len, ==, 0); /* filters never reserve */
}

/* 50 hook processes planning managed VMs at once never overbook a node. */
static void
test_concurrent_prepares(Fixture *f, gconstpointer data)
{
    enum {
        N = 50
    };
    g_autofree gchar *hook = hook_path();
    g_autofree gchar *tmpl = NULL;
    g_autofree gchar *tmpl_path = data_path("hook/managed.xml");
    g_assert_true(g_file_get_contents(tmpl_path, &tmpl, NULL, NULL));
    GSubprocess *procs[N];
    for (guint i = 0; i < N; i++) {
        g_autofree gchar *name = g_strdup_printf("vm-%02u", i);
        g_autofree gchar *uuid = g_strdup_printf("22222222-0000-4000-8000-0000000000%02u", i);
        g_autoptr(GString) xml = g_string_new(tmpl);
        g_string_replace(xml, "vm-managed", name, 0);
        g_string_replace(xml, "11111111-0000-4000-8000-000000000003", uuid, 0);
        g_string_replace(xml, "1048576", "2097152", 0); /* 2 GiB */
        g_autofree gchar *file = g_strdup_printf("in-%02u.xml", i);
        g_autofree gchar *in = g_build_filename(f->run_dir, file, NULL);
        g_assert_true(g_file_set_contents(in, xml->str, -1, NULL));
        g_autoptr(GSubprocessLauncher) l = launcher(f);
        g_subprocess_launcher_set_flags(l, G_SUBPROCESS_FLAGS_NONE);
        g_subprocess_launcher_set_stdin_file_path(l, in);
        procs[i] = g_subprocess_launcher_spawn(l, NULL, hook, name, "prepare", "begin", "-", NULL);
        g_assert_nonnull(procs[i]);
    }
    for (guint i = 0; i < N; i++) {
        g_assert_true(g_subprocess_wait(procs[i], NULL, NULL));
        g_assert_cmpint(g_subprocess_get_exit_status(procs[i]), ==, 0);
        g_object_unref(procs[i]);
    }
    g_autofree gchar *topo_path = data_path("hwloc/hagrid.xml");
    g_autoptr(VnTopology) t = vn_topology_load_hwloc_xml(topo_path, NULL);
    g_autoptr(VnPolicy) pol = vn_policy_new_default(t);
    g_autoptr(VnLedger) l = snapshot(f);
    g_autoptr(VnLoad) load = vn_load_new(t);
    vn_ledger_to_load(l, t, pol, NULL, load);
    guint placed = vn_ledger_records(l)->len;
    g_assert_cmpuint(placed, >=, 6); /* 3 nodes with CPUs x 8 GiB */
    g_assert_cmpuint(placed, <, N);
    g_assert_cmpuint(vn_ledger_generation(l), ==, placed);
    for (guint i = 0; i < t->n_nodes; i++) {
        guint64 usable =
            t->nodes[i].mem_total_kib - t->nodes[i].mem_total_kib / 100 * pol->headroom_percent;
        g_assert_cmpuint(load->nodes[i].committed_memory_kib, <=, usable);
    }
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_auto(GStrv) lines = g_strsplit(history, "\n", -1);
    guint planned = 0;
    for (guint i = 0; lines[i]; i++)
        planned += strstr(lines[i], "\"decision\":\"planned\"") != NULL;
    g_assert_cmpuint(planned, ==, placed);
    g_assert_cmpuint(g_strv_length(lines), ==, N + 1);
}

/* [placement] defragment at prepare, on the ledger fixture
 * tests/data/ledger/defrag and its host (tests/data/hook/defrag-host.xml:
 * lstopo's export of "numa:4(memory=1GiB) core:2 pu:1"), the domain
 * tests/data/domain/split-512m.xml (the arithmetic: test-engine-defrag.c).
 * No node holds the 2-vCPU 512 MiB VM alone; moving small0 from node 0 to
 * node 3 lets node 0 hold it.  apply: small0's record is on node 3, marked
 * for a live apply started at once (the helper's log says so), and the VM
 * reserved whole on node 0; propose: the VM split over nodes 0 and 1,
 * small0 left on node 0, the decision names the move. */
static void
run_defrag_prepare(Fixture *f, const gchar *mode)
{
    g_autofree gchar *ledger_src = data_path("ledger/defrag/ledger.json");
    g_autofree gchar *ledger = g_build_filename(f->state_dir, "ledger.json", NULL);
    g_autofree gchar *text = NULL;
    g_autofree gchar *conf =
        g_strdup_printf("[placement]\ndefragment = %s\n[hook]\nmanage = all\n", mode);
    g_autofree gchar *script = NULL;
    g_autofree gchar *domain = data_path("domain/split-512m.xml");
    g_autofree gchar *xml = NULL;
    const gchar *const residents[] = { "small0", "mid0", "mid1", "mid2", "big3" };
    Run r = { 0 };

    f->topology = data_path("hook/defrag-host.xml");
    f->config = g_build_filename(f->state_dir, "defrag.conf", NULL);
    g_assert_true(g_file_set_contents(f->config, conf, -1, NULL));
    f->vnumactl = g_build_filename(f->state_dir, "fake-vnumactl", NULL);
    script = g_strdup("#!/bin/sh\necho \"helper $*\"\n");
    g_assert_true(g_file_set_contents(f->vnumactl, script, -1, NULL));
    g_assert_cmpint(g_chmod(f->vnumactl, 0755), ==, 0);
    g_assert_true(g_file_get_contents(ledger_src, &text, NULL, NULL));
    g_assert_true(g_file_set_contents(ledger, text, -1, NULL));
    for (guint i = 0; i < G_N_ELEMENTS(residents); i++)
        mark_running(f, residents[i]);
    g_assert_true(g_file_get_contents(domain, &xml, NULL, NULL));
    run_hook_xml(f, "vnt-split", "prepare", "begin", xml, &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "");
    g_assert_cmpstr(r.err, ==, "");
    run_clear(&r);
}

static guint
record_node(const VnLedger *l, const gchar *vm, guint cell)
{
    const VnLedgerRecord *r = vn_ledger_lookup_name((VnLedger *)l, vm);
    g_assert_nonnull(r);
    g_assert_cmpuint(cell, <, r->cells->len);
    return g_array_index(r->cells, VnLedgerCell, cell).node_os_id;
}

static void
test_prepare_defragment_apply(Fixture *f, gconstpointer data)
{
    run_defrag_prepare(f, "apply");
    g_autoptr(VnLedger) l = snapshot(f);
    const VnLedgerRecord *vm = vn_ledger_lookup_name(l, "vnt-split");
    const VnLedgerRecord *moved = vn_ledger_lookup_name(l, "small0");
    g_assert_nonnull(vm);
    g_assert_cmpuint(vm->cells->len, ==, 1);
    g_assert_cmpuint(record_node(l, "vnt-split", 0), ==, 0);
    g_assert_true(vm->needs_apply);
    g_assert_cmpuint(record_node(l, "small0", 0), ==, 3);
    g_assert_true(moved->needs_apply);
    g_assert_cmpint(moved->state, ==, VN_LEDGER_STATE_RUNNING);
    /* the others stay where they were, nothing to apply */
    g_assert_cmpuint(record_node(l, "mid0", 0), ==, 0);
    g_assert_false(vn_ledger_lookup_name(l, "mid0")->needs_apply);
    g_autofree gchar *log = NULL;
    for (guint i = 0; i < 200; i++) {
        g_free(log);
        log = read_state_file(f, "apply.log");
        if (*log)
            break;
        g_usleep(50000);
    }
    g_assert_cmpstr(log, ==, "helper apply small0\n");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "planned on one node after moving small0 node 0 -> 3"));
}

static void
test_prepare_defragment_propose(Fixture *f, gconstpointer data)
{
    run_defrag_prepare(f, "propose");
    g_autoptr(VnLedger) l = snapshot(f);
    const VnLedgerRecord *vm = vn_ledger_lookup_name(l, "vnt-split");
    g_assert_nonnull(vm);
    g_assert_cmpuint(vm->cells->len, ==, 2);
    g_assert_cmpuint(record_node(l, "small0", 0), ==, 0);
    g_assert_false(vn_ledger_lookup_name(l, "small0")->needs_apply);
    g_usleep(200000);
    g_autofree gchar *log = read_state_file(f, "apply.log");
    g_assert_cmpstr(log, ==, "");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(
        strstr(history, "defragment = propose: moving small0 node 0 -> 3 would let it fit node 0"));
}

/* [placement] consolidate at a VM's stop, on the ledger fixture
 * tests/data/ledger/consolidate and the host of tests/data/hook/defrag-host.xml
 * (4 nodes of 1 GiB, 972 MiB usable each by the default policy): `big`
 * (2 x 256 MiB guest cells, 274 MiB charged each) is split over nodes 0
 * and 1, next to `filler` (512 MiB, 548 charged) on node 0 and `mid1`
 * (548) on node 1; nodes 2 and 3 hold 677 MiB each.  No node holds big's
 * 548 MiB while filler runs; once filler stops node 0 does, so big's cell
 * 1 (256 MiB) moves there. */
typedef enum {
    CONSOLIDATE_FILLER_RUNNING, /* filler's status file there: found, removed */
    CONSOLIDATE_FILLER_GONE,    /* libvirt removed it: reclaimed at open */
} ConsolidateStop;

static void
run_consolidate_release(Fixture *f, const gchar *mode, ConsolidateStop stop, const gchar *edit)
{
    g_autofree gchar *ledger_src = data_path("ledger/consolidate/ledger.json");
    g_autofree gchar *ledger = g_build_filename(f->state_dir, "ledger.json", NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GString) edited = NULL;
    g_autofree gchar *conf =
        mode ? g_strdup_printf("[placement]\nconsolidate = %s\n", mode) : g_strdup("[placement]\n");
    const gchar *const residents[] = { "big", "mid1", "mid2", "mid3" };
    const gchar *xml = "<domain type='kvm'><name>filler</name>"
                       "<uuid>0d3f6a10-7c1e-4b7a-9f00-000000000102</uuid>"
                       "<memory unit='KiB'>524288</memory><vcpu>1</vcpu>"
                       "<os><type>hvm</type></os></domain>";
    Run r = { 0 };

    f->topology = data_path("hook/defrag-host.xml");
    f->config = g_build_filename(f->state_dir, "consolidate.conf", NULL);
    g_assert_true(g_file_set_contents(f->config, conf, -1, NULL));
    f->vnumactl = g_build_filename(f->state_dir, "fake-vnumactl", NULL);
    g_assert_true(g_file_set_contents(f->vnumactl, "#!/bin/sh\necho \"helper $*\"\n", -1, NULL));
    g_assert_cmpint(g_chmod(f->vnumactl, 0755), ==, 0);
    g_assert_true(g_file_get_contents(ledger_src, &text, NULL, NULL));
    edited = g_string_new(text);
    /* big's record made dedicated or hugepage-backed */
    if (edit)
        g_assert_cmpuint(g_string_replace(edited, "\"name\" : \"big\",", edit, 1), ==, 1);
    g_assert_true(g_file_set_contents(ledger, edited->str, -1, NULL));
    for (guint i = 0; i < G_N_ELEMENTS(residents); i++)
        mark_running(f, residents[i]);
    if (stop == CONSOLIDATE_FILLER_RUNNING)
        mark_running(f, "filler");
    run_hook_xml(f, "filler", "release", "end", xml, &r);
    g_assert_cmpint(r.status, ==, 0);
    g_assert_cmpstr(r.out, ==, "");
    g_assert_cmpstr(r.err, ==, "");
    run_clear(&r);
}

/* apply.log once the detached helper wrote it (or "" after 10 s). */
static gchar *
wait_apply_log(const Fixture *f)
{
    gchar *log = NULL;
    for (guint i = 0; i < 200; i++) {
        g_free(log);
        log = read_state_file(f, "apply.log");
        if (*log)
            break;
        g_usleep(50000);
    }
    return log;
}

static void
assert_big_unchanged(const VnLedger *l)
{
    const VnLedgerRecord *big = vn_ledger_lookup_name((VnLedger *)l, "big");
    g_assert_nonnull(big);
    g_assert_cmpuint(big->cells->len, ==, 2);
    g_assert_cmpuint(record_node(l, "big", 0), ==, 0);
    g_assert_cmpuint(record_node(l, "big", 1), ==, 1);
    g_assert_false(big->needs_apply);
}

static void
test_release_consolidate_apply(Fixture *f, gconstpointer data)
{
    /* NULL: the default, apply */
    run_consolidate_release(f, NULL, GPOINTER_TO_INT(data), NULL);
    g_autoptr(VnLedger) l = snapshot(f);
    const VnLedgerRecord *big = vn_ledger_lookup_name(l, "big");
    g_assert_null(vn_ledger_lookup_name(l, "filler"));
    g_assert_nonnull(big);
    /* its guest cells kept (ids, sizes), both on node 0 now */
    g_assert_cmpuint(big->cells->len, ==, 2);
    for (guint i = 0; i < 2; i++) {
        const VnLedgerCell *c = &g_array_index(big->cells, VnLedgerCell, i);
        g_assert_cmpuint(c->id, ==, i);
        g_assert_cmpuint(c->node_os_id, ==, 0);
        g_assert_cmpuint(c->vcpus, ==, 1);
        g_assert_cmpuint(c->memory_kib, ==, 262144);
        g_assert_cmpstr(c->cpus, ==, "0-1");
    }
    g_assert_true(big->needs_apply);
    g_assert_cmpint(big->state, ==, VN_LEDGER_STATE_RUNNING);
    g_assert_cmpuint(record_node(l, "mid1", 0), ==, 1);
    g_assert_false(vn_ledger_lookup_name(l, "mid1")->needs_apply);
    g_autofree gchar *log = wait_apply_log(f);
    g_assert_cmpstr(log, ==, "helper apply big\n");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "consolidated big from nodes 0,1 onto node 0, 256 MiB"));
}

static void
test_release_consolidate_propose(Fixture *f, gconstpointer data)
{
    run_consolidate_release(f, "propose", CONSOLIDATE_FILLER_RUNNING, NULL);
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_null(vn_ledger_lookup_name(l, "filler"));
    assert_big_unchanged(l);
    g_usleep(200000);
    g_autofree gchar *log = read_state_file(f, "apply.log");
    g_assert_cmpstr(log, ==, "");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "consolidate = propose: would consolidate big from nodes 0,1 "
                                     "onto node 0, 256 MiB"));
}

/* off, and a split VM vnuma must not move (dedicated, hugepages) with the
 * default apply: the filler's record goes, nothing else changes. */
static void
test_release_consolidate_none(Fixture *f, gconstpointer data)
{
    const gchar *edit = data;
    run_consolidate_release(f, edit ? NULL : "off", CONSOLIDATE_FILLER_RUNNING, edit);
    g_autoptr(VnLedger) l = snapshot(f);
    g_assert_null(vn_ledger_lookup_name(l, "filler"));
    assert_big_unchanged(l);
    g_usleep(200000);
    g_autofree gchar *log = read_state_file(f, "apply.log");
    g_assert_cmpstr(log, ==, "");
    g_autofree gchar *history = read_state_file(f, "history.log");
    g_assert_nonnull(strstr(history, "\"decision\":\"released\""));
    g_assert_null(strstr(history, "consolidate"));
}

#define ADD(path, fn) g_test_add(path, Fixture, NULL, fixture_set_up, fn, fixture_tear_down)

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_autofree gchar *hook = hook_path();
    if (!g_file_test(hook, G_FILE_TEST_IS_EXECUTABLE)) {
        g_printerr("no hook binary at %s\n", hook);
        return 77;
    }
    ADD("/hook/prepare/recorded", test_prepare_recorded);
    ADD("/hook/prepare/managed", test_prepare_managed);
    ADD("/hook/prepare/unmanaged", test_prepare_unmanaged);
    ADD("/hook/prepare/foreign", test_prepare_foreign);
    ADD("/hook/prepare/allowed-set", test_prepare_allowed_set);
    g_test_add("/hook/prepare/held-by-uuid", Fixture, "11111111-0000-4000-8000-000000000003",
               fixture_set_up, test_prepare_held, fixture_tear_down);
    ADD("/hook/prepare/warns-guest-view", test_prepare_warns_guest_view);
    ADD("/hook/prepare/held", test_prepare_held);
    ADD("/hook/prepare/held-uneven", test_prepare_held_uneven);
    ADD("/hook/prepare/refuse", test_refuse);
    ADD("/hook/prepare/replan-ignore", test_replan_and_ignore);
    ADD("/hook/prepare/replan-recut-cells", test_replan_recut_cells);
    ADD("/hook/prepare/strict", test_strict);
    ADD("/hook/prepare/defragment-apply", test_prepare_defragment_apply);
    ADD("/hook/prepare/defragment-propose", test_prepare_defragment_propose);
    ADD("/hook/prepare/concurrent", test_concurrent_prepares);
    ADD("/hook/release", test_release);
    g_test_add("/hook/release/consolidate-apply", Fixture,
               GINT_TO_POINTER(CONSOLIDATE_FILLER_RUNNING), fixture_set_up,
               test_release_consolidate_apply, fixture_tear_down);
    g_test_add("/hook/release/consolidate-apply-reclaimed", Fixture,
               GINT_TO_POINTER(CONSOLIDATE_FILLER_GONE), fixture_set_up,
               test_release_consolidate_apply, fixture_tear_down);
    ADD("/hook/release/consolidate-propose", test_release_consolidate_propose);
    ADD("/hook/release/consolidate-off", test_release_consolidate_none);
    g_test_add("/hook/release/consolidate-never-dedicated", Fixture,
               "\"name\" : \"big\", \"dedicated\" : true,", fixture_set_up,
               test_release_consolidate_none, fixture_tear_down);
    g_test_add("/hook/release/consolidate-never-hugepages", Fixture,
               "\"name\" : \"big\", \"hugepage_kib\" : 2048,", fixture_set_up,
               test_release_consolidate_none, fixture_tear_down);
    ADD("/hook/started/apply-detached", test_started_apply);
    ADD("/hook/started/dataplane-detached", test_started_dataplane);
    ADD("/hook/fail-open", test_fail_open);
    ADD("/hook/fail-open/hwloc-crash", test_fail_open_hwloc_crash);
    ADD("/hook/reconnect", test_reconnect);
    ADD("/hook/ledger/rebuild", test_rebuild);
    for (gsize i = 0; i < G_N_ELEMENTS(corrupt_ledgers); i++)
        g_test_add(corrupt_ledgers[i].path, Fixture, &corrupt_ledgers[i], fixture_set_up,
                   test_corrupt_ledger, fixture_tear_down);
    ADD("/hook/filters", test_filters);
    return g_test_run();
}
