/* test-autonuma.c: AutoNUMA read from /proc (vn-autonuma.h) on real files
 * of this machine and the status sysroot fixture, the placed VMs' view
 * (vn-autonuma-report.h), and the decision (vn-autonuma-plan.h) on real
 * hosts' topologies. */
#include <glib/gstdio.h>
#include <string.h>
#include "vn-autonuma-plan.h"
#include "vn-autonuma-report.h"
#include "vn-autonuma.h"
#include "vn-ledger.h"
#include "vn-test-fixture.h"

static gchar *
fixture(const gchar *name)
{
    g_autofree gchar *path = vn_test_data_path("autonuma", name, NULL);
    gchar *text = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    return text;
}

/* ---- the reader ------------------------------------------------------- */

static void
test_mode_real(void)
{
    g_autofree gchar *text = fixture("numa_balancing-6.18");
    g_autoptr(GError) error = NULL;
    gint mode = -1;

    g_assert_true(vn_autonuma_mode_parse(text, "numa_balancing-6.18", &mode, &error));
    g_assert_no_error(error);
    g_assert_cmpint(mode, ==, 0);
    g_assert_cmpstr(vn_autonuma_mode_describe(3), ==, "normal balancing and tiering promotion");
    g_assert_cmpstr(vn_autonuma_mode_describe(-1), ==, "unknown");
}

static void
test_mode_bad(void)
{
    static const gchar *const bad[] = { "4\n", "x", "", "-1", "1 2" };

    for (gsize i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(GError) error = NULL;
        gint mode = 7;

        g_assert_false(vn_autonuma_mode_parse(bad[i], "sysctl", &mode, &error));
        g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE);
        g_assert_true(g_str_has_prefix(error->message, "sysctl: \""));
        g_assert_cmpint(mode, ==, 7);
    }
}

/* Written in place below the sysroot, read back; a missing file and one
 * that cannot be written name the file. */
static void
test_mode_write(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-autonuma-XXXXXX", NULL);
    g_autofree gchar *file = vn_test_write_file(root, "proc/sys/kernel/numa_balancing", "1\n");
    g_autofree gchar *dir_root = g_dir_make_tmp("vn-autonuma-XXXXXX", NULL);
    g_autofree gchar *dir = g_build_filename(dir_root, "proc/sys/kernel/numa_balancing", NULL);
    g_autoptr(GError) error = NULL;
    gint mode = -1;

    g_assert_nonnull(file);
    g_assert_true(vn_autonuma_mode_write(root, 2, &error));
    g_assert_no_error(error);
    g_assert_true(vn_autonuma_mode_read(root, &mode, &error));
    g_assert_cmpint(mode, ==, 2);

    g_assert_false(vn_autonuma_mode_read(dir_root, &mode, &error));
    g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ);
    g_assert_nonnull(strstr(error->message, "proc/sys/kernel/numa_balancing"));
    g_clear_error(&error);

    g_assert_cmpint(g_mkdir_with_parents(dir, 0755), ==, 0);
    g_assert_false(vn_autonuma_mode_write(dir_root, 0, &error));
    g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_WRITE);
    g_assert_true(g_str_has_prefix(error->message, "cannot write 0 to "));
    g_assert_nonnull(strstr(error->message, dir));
    vn_test_remove_tree(root);
    vn_test_remove_tree(dir_root);
}

static void
test_vmstat_real(void)
{
    g_autofree gchar *text = fixture("vmstat-6.18");
    g_autoptr(GError) error = NULL;
    VnAutonumaCounters c;

    g_assert_true(vn_autonuma_vmstat_parse(text, "vmstat-6.18", &c, &error));
    g_assert_no_error(error);
    /* one node, balancing off: the kernel counted nothing */
    g_assert_cmpuint(c.hint_faults, ==, 0);
    g_assert_cmpuint(c.pages_migrated, ==, 0);
    g_assert_true(c.tiering);
}

static void
test_vmstat_fixture(void)
{
    g_autofree gchar *root = vn_test_data_path("status", "sysroot", NULL);
    g_autoptr(GError) error = NULL;
    VnAutonumaCounters c;
    gint mode;

    g_assert_true(vn_autonuma_vmstat_read(root, &c, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(c.hint_faults, ==, 152340);
    g_assert_cmpuint(c.hint_faults_local, ==, 120110);
    g_assert_cmpuint(c.pages_migrated, ==, 30882);
    g_assert_cmpuint(c.pte_updates, ==, 183210);
    g_assert_cmpuint(c.promoted, ==, 0);
    g_assert_true(vn_autonuma_mode_read(root, &mode, &error));
    g_assert_cmpint(mode, ==, 1);
}

/* A kernel without NUMA balancing has no numa_* lines; a malformed line
 * is named. */
static void
test_vmstat_bad(void)
{
    g_autofree gchar *text = fixture("vmstat-6.18");
    g_autoptr(GRegex) re = g_regex_new("^numa_hint_faults .*\\n", G_REGEX_MULTILINE, 0, NULL);
    g_autofree gchar *cut = g_regex_replace_literal(re, text, -1, 0, "", 0, NULL);
    g_autoptr(GError) error = NULL;
    VnAutonumaCounters c = { .hint_faults = 9 };

    g_assert_false(vn_autonuma_vmstat_parse(cut, "vmstat", &c, &error));
    g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE);
    g_assert_cmpstr(error->message, ==,
                    "vmstat: no \"numa_hint_faults\" line (a kernel without NUMA balancing)");
    g_assert_cmpuint(c.hint_faults, ==, 9);
    g_clear_error(&error);
    g_assert_false(vn_autonuma_vmstat_parse("nr_free_pages 1\nnuma_pages_migrated many\n", "vmstat",
                                            &c, &error));
    g_assert_cmpstr(error->message, ==, "vmstat: line 2: malformed \"numa_pages_migrated many\"");
}

static void
test_sched_real(void)
{
    g_autofree gchar *leader = fixture("sched-6.18-task-leader");
    g_autofree gchar *thread = fixture("sched-6.18-task-thread");
    g_autoptr(GError) error = NULL;
    VnAutonumaTask t = { 0 };

    g_assert_true(vn_autonuma_sched_parse(leader, "leader", &t, &error));
    g_assert_true(vn_autonuma_sched_parse(thread, "thread", &t, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(t.threads, ==, 2);
    g_assert_cmpuint(t.numa_faults, ==, 0);
    g_assert_cmpuint(t.pages_migrated, ==, 0);
}

static void
test_sched_bad(void)
{
    g_autoptr(GError) error = NULL;
    VnAutonumaTask t = { 0 };

    g_assert_false(
        vn_autonuma_sched_parse("se.exec_start : 1.0\nprio : 120\n", "sched", &t, &error));
    g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_PARSE);
    g_assert_true(g_str_has_prefix(error->message, "sched: no total_numa_faults"));
    g_clear_error(&error);
    g_assert_false(vn_autonuma_sched_parse("numa_pages_migrated : -\ntotal_numa_faults : 3\n",
                                           "sched", &t, &error));
    g_assert_cmpstr(error->message, ==, "sched: line 1: malformed \"numa_pages_migrated : -\"");
    g_assert_cmpuint(t.threads, ==, 0);
}

/* QEMU's three threads in the fixture: their sums. */
static void
test_task_fixture(void)
{
    g_autofree gchar *root = vn_test_data_path("status", "sysroot", NULL);
    g_autoptr(GError) error = NULL;
    VnAutonumaTask t;

    g_assert_true(vn_autonuma_task_read(root, 4242, &t, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(t.threads, ==, 3);
    g_assert_cmpuint(t.numa_faults, ==, 40 + 1810 + 900);
    g_assert_cmpuint(t.pages_migrated, ==, 12 + 2048 + 1024);
    g_assert_false(vn_autonuma_task_read(root, 4243, &t, &error));
    g_assert_error(error, VN_AUTONUMA_ERROR, VN_AUTONUMA_ERROR_READ);
}

/* Without a task directory (a capture of the process alone): its sched. */
static void
test_task_leader_only(void)
{
    g_autofree gchar *root = g_dir_make_tmp("vn-autonuma-XXXXXX", NULL);
    g_autofree gchar *text = fixture("sched-6.18-task-thread");
    g_autofree gchar *file = vn_test_write_file(root, "proc/77/sched", text);
    g_autoptr(GError) error = NULL;
    VnAutonumaTask t;

    g_assert_nonnull(file);
    g_assert_true(vn_autonuma_task_read(root, 77, &t, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(t.threads, ==, 1);
    vn_test_remove_tree(root);
}

static void
test_rates(void)
{
    VnAutonumaCounters before = { .hint_faults = 100, .pages_migrated = 10 };
    VnAutonumaCounters after = { .hint_faults = 400,
                                 .hint_faults_local = 30,
                                 .pages_migrated = 70 };
    VnAutonumaRates r;

    g_assert_true(vn_autonuma_rates(&before, &after, 2.0, &r));
    g_assert_cmpfloat(r.hint_faults, ==, 150.0);
    g_assert_cmpfloat(r.hint_faults_local, ==, 15.0);
    g_assert_cmpfloat(r.pages_migrated, ==, 30.0);
    /* a reboot between the reads, or no time */
    g_assert_false(vn_autonuma_rates(&after, &before, 2.0, &r));
    g_assert_false(vn_autonuma_rates(&before, &after, 0.0, &r));
}

/* The ledger of the status fixture: db restrictive on node 1, web strict
 * over nodes 0 and 1, both bound; normal balancing warns of db. */
static void
test_view_fixture(void)
{
    g_autofree gchar *root = vn_test_data_path("status", "sysroot", NULL);
    g_autofree gchar *state = vn_test_data_path("status", "state", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) ledger = vn_ledger_snapshot(state, &error);
    g_autoptr(VnAutonumaView) v = NULL;
    const VnAutonumaVm *db, *web;
    const VnAutonumaVmView *dbv, *webv;

    g_assert_no_error(error);
    v = vn_autonuma_view_new(root, "/run/libvirt/qemu", vn_ledger_records(ledger));
    g_assert_cmpint(v->mode, ==, 1);
    g_assert_cmpuint(v->inputs->len, ==, 2);
    db = &g_array_index(v->inputs, VnAutonumaVm, 0);
    web = &g_array_index(v->inputs, VnAutonumaVm, 1);
    dbv = v->vms->pdata[0];
    webv = v->vms->pdata[1];
    g_assert_cmpstr(db->name, ==, "db");
    g_assert_true(db->mode_known);
    g_assert_cmpint(db->mode, ==, VN_MEMORY_MODE_RESTRICTIVE);
    g_assert_cmpuint(db->n_nodes, ==, 1);
    g_assert_false(dbv->measured);
    g_assert_nonnull(strstr(dbv->not_measured, "db.pid"));
    g_assert_cmpint(web->mode, ==, VN_MEMORY_MODE_STRICT);
    g_assert_cmpuint(web->n_nodes, ==, 2);
    g_assert_true(webv->measured);
    g_assert_cmpuint(webv->task.numa_faults, ==, 2750);
    g_assert_nonnull(v->warning);
    g_assert_nonnull(strstr(v->warning, "restrictive VM db "));
}

/* ---- the decision ----------------------------------------------------- */

static GArray *
vms_new(void)
{
    return g_array_new(FALSE, TRUE, sizeof(VnAutonumaVm));
}

static void
add_vm(GArray *vms, const gchar *name, gint mode, guint n_nodes)
{
    VnAutonumaVm vm = { .name = name,
                        .mode_known = mode >= 0,
                        .mode = mode >= 0 ? (VnMemoryMode)mode : VN_MEMORY_MODE_AUTO,
                        .n_nodes = n_nodes };
    g_array_append_val(vms, vm);
}

static void
test_bound(void)
{
    g_autoptr(GArray) vms = vms_new();

    add_vm(vms, "strict-split", VN_MEMORY_MODE_STRICT, 2);
    add_vm(vms, "strict-one", VN_MEMORY_MODE_STRICT, 1);
    add_vm(vms, "restrictive-one", VN_MEMORY_MODE_RESTRICTIVE, 1);
    add_vm(vms, "restrictive-split", VN_MEMORY_MODE_RESTRICTIVE, 2);
    add_vm(vms, "unknown", -1, 1);
    g_assert_true(vn_autonuma_vm_bound(&g_array_index(vms, VnAutonumaVm, 0)));
    g_assert_true(vn_autonuma_vm_bound(&g_array_index(vms, VnAutonumaVm, 1)));
    g_assert_true(vn_autonuma_vm_bound(&g_array_index(vms, VnAutonumaVm, 2)));
    g_assert_false(vn_autonuma_vm_bound(&g_array_index(vms, VnAutonumaVm, 3)));
    g_assert_false(vn_autonuma_vm_bound(&g_array_index(vms, VnAutonumaVm, 4)));
}

static void
test_off(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-qemu-kvm.xml");
    g_autoptr(GArray) vms = vms_new();
    g_autoptr(GArray) none = vms_new();

    add_vm(vms, "web", VN_MEMORY_MODE_STRICT, 2);
    add_vm(vms, "db", VN_MEMORY_MODE_RESTRICTIVE, 1);
    {
        g_auto(VnAutonumaDecision) d = { 0 };
        vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 1, -1, vms, t, &d);
        g_assert_cmpint(d.value, ==, 0);
        g_assert_false(d.refused);
        g_assert_nonnull(strstr(d.reason, "every placed VM (2) is bound"));
    }
    {
        g_auto(VnAutonumaDecision) d = { 0 };
        vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 0, 1, vms, t, &d);
        g_assert_cmpint(d.value, ==, -1); /* already */
        g_assert_false(d.refused);
    }
    /* never alone: no placed VM, nothing to bind */
    {
        g_auto(VnAutonumaDecision) d = { 0 };
        vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 1, -1, none, t, &d);
        g_assert_cmpint(d.value, ==, -1);
        g_assert_true(d.refused);
        g_assert_true(g_str_has_prefix(d.reason, "off refused: no placed VM"));
    }
    add_vm(vms, "batch", VN_MEMORY_MODE_RESTRICTIVE, 2);
    {
        g_auto(VnAutonumaDecision) d = { 0 };
        vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 1, -1, vms, t, &d);
        g_assert_cmpint(d.value, ==, -1);
        g_assert_true(d.refused);
        g_assert_cmpstr(d.reason, ==,
                        "off refused: VM batch is restrictive over 2 nodes: AutoNUMA moves its "
                        "pages");
        g_assert_cmpstr(d.refusal, ==, d.reason);
    }
    /* vnumad had set 0: the value it found comes back */
    {
        g_auto(VnAutonumaDecision) d = { 0 };
        vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 0, 1, vms, t, &d);
        g_assert_cmpint(d.value, ==, 1);
        g_assert_true(d.refused);
        g_assert_true(g_str_has_suffix(d.reason, ": restoring 1, the value found at start"));
        g_assert_true(g_str_has_prefix(d.reason, d.refusal));
    }
}

static void
test_off_unknown(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-qemu-kvm.xml");
    g_autoptr(GArray) vms = vms_new();
    g_auto(VnAutonumaDecision) d = { 0 };
    g_auto(VnAutonumaDecision) unreadable = { 0 };

    add_vm(vms, "foreign", -1, 1);
    vn_autonuma_decide(VN_NUMA_BALANCING_OFF, 1, -1, vms, t, &d);
    g_assert_cmpint(d.value, ==, -1);
    g_assert_cmpstr(d.reason, ==, "off refused: VM foreign has no memory mode recorded by vnuma");
    vn_autonuma_decide(VN_NUMA_BALANCING_OFF, -1, -1, vms, t, &unreadable);
    g_assert_cmpint(unreadable.value, ==, -1);
    g_assert_true(unreadable.refused);
}

static void
test_leave(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("caps", "caps-qemu-kvm.xml");
    g_autoptr(GArray) vms = vms_new();
    g_auto(VnAutonumaDecision) back = { 0 };
    g_auto(VnAutonumaDecision) nothing = { 0 };

    vn_autonuma_decide(VN_NUMA_BALANCING_LEAVE, 0, 1, vms, t, &back);
    g_assert_cmpint(back.value, ==, 1);
    g_assert_false(back.refused);
    g_assert_cmpstr(back.reason, ==, "leave: restoring 1, the value found at start");
    vn_autonuma_decide(VN_NUMA_BALANCING_LEAVE, 3, -1, vms, t, &nothing);
    g_assert_cmpint(nothing.value, ==, -1);
    g_assert_false(nothing.refused);
}

/* kmem-tier: node 1 in memory_tier22 below the CPU node's memory_tier4. */
static void
test_tiering(void)
{
    g_autoptr(VnTopology) kmem = vn_test_load_topology("sysroot", "kmem-tier");
    g_autoptr(VnTopology) dram = vn_test_load_topology("caps", "caps-qemu-kvm.xml");
    g_autoptr(GArray) vms = vms_new();
    g_auto(VnAutonumaDecision) d = { 0 };
    g_auto(VnAutonumaDecision) refused = { 0 };
    g_auto(VnAutonumaDecision) back = { 0 };

    vn_autonuma_decide(VN_NUMA_BALANCING_TIERING, 1, -1, vms, kmem, &d);
    g_assert_cmpint(d.value, ==, 2);
    g_assert_nonnull(strstr(d.reason, "node 1 is a slow tier (kernel memory_tier22"));
    vn_autonuma_decide(VN_NUMA_BALANCING_TIERING, 1, -1, vms, dram, &refused);
    g_assert_cmpint(refused.value, ==, -1);
    g_assert_true(refused.refused);
    g_assert_cmpstr(refused.reason, ==,
                    "tiering refused: no node of this host is a slow memory tier");
    vn_autonuma_decide(VN_NUMA_BALANCING_TIERING, 2, 1, vms, dram, &back);
    g_assert_cmpint(back.value, ==, 1);
}

/* Slow memory the kernel keeps in its top tier (6.1: a CPU-less node from
 * the firmware) is promoted from by nobody. */
static void
test_tiering_top_tier(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("sysroot", "kmem-tier");
    g_autofree gchar *why = NULL;

    t->nodes[1].kernel_tier = t->nodes[0].kernel_tier;
    g_assert_false(vn_autonuma_has_slow_tier(t, &why));
    g_assert_cmpstr(why, ==,
                    "node 1 is slow memory but in the kernel's top tier (memory_tier4): nothing "
                    "is promoted from it");
}

static void
test_warning(void)
{
    g_autoptr(GArray) vms = vms_new();
    g_autoptr(GArray) strict = vms_new();
    g_autofree gchar *w1 = NULL, *w3 = NULL, *w2 = NULL, *ws = NULL;

    add_vm(vms, "db", VN_MEMORY_MODE_RESTRICTIVE, 1);
    add_vm(vms, "web", VN_MEMORY_MODE_STRICT, 2);
    add_vm(vms, "batch", VN_MEMORY_MODE_RESTRICTIVE, 2);
    add_vm(strict, "web", VN_MEMORY_MODE_STRICT, 2);
    w1 = vn_autonuma_warning(1, vms);
    w3 = vn_autonuma_warning(3, vms);
    w2 = vn_autonuma_warning(2, vms);
    ws = vn_autonuma_warning(1, strict);
    g_assert_nonnull(w1);
    g_assert_true(g_str_has_prefix(
        w1, "kernel.numa_balancing=1: AutoNUMA scans and may move the pages of the restrictive "
            "VMs db, batch (strict pages it leaves alone)"));
    g_assert_nonnull(w3);
    g_assert_null(w2);
    g_assert_null(ws);
    g_assert_null(vn_autonuma_warning(-1, vms));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/autonuma/mode/real", test_mode_real);
    g_test_add_func("/autonuma/mode/bad", test_mode_bad);
    g_test_add_func("/autonuma/mode/write", test_mode_write);
    g_test_add_func("/autonuma/vmstat/real", test_vmstat_real);
    g_test_add_func("/autonuma/vmstat/fixture", test_vmstat_fixture);
    g_test_add_func("/autonuma/vmstat/bad", test_vmstat_bad);
    g_test_add_func("/autonuma/sched/real", test_sched_real);
    g_test_add_func("/autonuma/sched/bad", test_sched_bad);
    g_test_add_func("/autonuma/task/fixture", test_task_fixture);
    g_test_add_func("/autonuma/task/leader-only", test_task_leader_only);
    g_test_add_func("/autonuma/rates", test_rates);
    g_test_add_func("/autonuma/view/fixture", test_view_fixture);
    g_test_add_func("/autonuma/decide/bound", test_bound);
    g_test_add_func("/autonuma/decide/off", test_off);
    g_test_add_func("/autonuma/decide/off-unknown", test_off_unknown);
    g_test_add_func("/autonuma/decide/leave", test_leave);
    g_test_add_func("/autonuma/decide/tiering", test_tiering);
    g_test_add_func("/autonuma/decide/tiering-top-tier", test_tiering_top_tier);
    g_test_add_func("/autonuma/warning", test_warning);
    return g_test_run();
}
