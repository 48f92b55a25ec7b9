/* test-source.c: the shared topology source options (vn-source.h) and the
 * sample tools/vnuma.conf. */
#include <errno.h>
#include <glib/gstdio.h>
#include <string.h>
#include <sys/inotify.h>
#include <unistd.h>

#include "vn-cpulist.h"
#include "vn-ledger.h"
#include "vn-source.h"
#include "vn-test-fixture.h"

#define SYNTHETIC "pack:2 numa:1(memory=16GiB) core:2 pu:2"
/* the host of the ledger fixture tests/data/ledger/defrag */
#define SYNTHETIC_4x1G ((gchar *)"numa:4(memory=1GiB) core:2 pu:1")

/* Parses `args` (a command line without the program name) with the
 * option group into `o`. */
static void
parse(VnSourceOptions *o, const gchar *args)
{
    g_autoptr(GOptionContext) context = g_option_context_new(NULL);
    g_autoptr(GError) error = NULL;
    g_autofree gchar *line = g_strdup_printf("vnumactl %s", args);
    g_auto(GStrv) argv = NULL;

    g_assert_true(g_shell_parse_argv(line, NULL, &argv, NULL));
    g_option_context_add_group(context, vn_source_option_group(o));
    g_assert_true(g_option_context_parse_strv(context, &argv, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(g_strv_length(argv), ==, 1);
}

static void
test_source_options(void)
{
    VnSourceOptions o = { 0 };

    parse(&o, "--topology a.xml --load l.json --config c.conf --sysroot /s");
    g_assert_cmpstr(o.topology_file, ==, "a.xml");
    g_assert_null(o.synthetic);
    g_assert_null(o.capabilities);
    g_assert_cmpstr(o.load_file, ==, "l.json");
    g_assert_cmpstr(o.config_file, ==, "c.conf");
    g_assert_cmpstr(o.sysroot, ==, "/s");
    vn_source_options_clear(&o);
    g_assert_null(o.topology_file);
    g_assert_null(o.sysroot);

    parse(&o, "--synthetic 'pack:2 pu:2' --capabilities caps.xml");
    g_assert_cmpstr(o.synthetic, ==, "pack:2 pu:2");
    g_assert_cmpstr(o.capabilities, ==, "caps.xml");
    vn_source_options_clear(&o);
}

static void
test_source_conflict(void)
{
    VnSourceOptions o = { .topology_file = (gchar *)"a.xml", .synthetic = (gchar *)"pu:2" };
    g_autoptr(GError) error = NULL;
    VnTopology *t = NULL;

    g_assert_false(vn_source_load(&o, &t, NULL, NULL, &error));
    g_assert_error(error, VN_SOURCE_ERROR, VN_SOURCE_ERROR_CONFLICT);
    g_assert_null(t);
}

/* A captured host replays exactly: sysfs memory and CPU busy from the
 * sysroot, committed load from the file, policy from the config. */
static void
test_source_replay(void)
{
    g_autofree gchar *sysroot = vn_test_data_path("sysroot", "two-node-busy", NULL);
    g_autofree gchar *load_file = vn_test_data_path("load", "cli-two-node.json", NULL);
    g_autofree gchar *config_file = vn_test_data_path("config", "cli-reserved.conf", NULL);
    VnSourceOptions o = { .synthetic = (gchar *)SYNTHETIC,
                          .sysroot = sysroot,
                          .load_file = load_file,
                          .config_file = config_file };
    g_auto(VnTestSource) s = { 0 };

    vn_test_source_load(&o, &s);
    g_assert_cmpuint(s.t->n_nodes, ==, 2);
    g_assert_cmpuint(s.t->nodes[0].mem_free_kib, ==, 3145728);
    g_assert_cmpuint(s.t->nodes[1].mem_free_kib, ==, 12582912);
    /* node 0: busy since boot from proc/stat; node 1: the file's 0.75 */
    g_assert_cmpfloat_with_epsilon(s.load->nodes[0].cpu_busy, 4720.0 / 29060.0, 1e-12);
    g_assert_cmpfloat_with_epsilon(s.load->nodes[1].cpu_busy, 0.75, 1e-12);
    g_assert_cmpuint(s.load->nodes[0].committed_vcpus, ==, 12);
    g_assert_cmpuint(s.load->nodes[1].committed_memory_kib, ==, 2048 * 1024);
    g_assert_cmpuint(vn_bitmap_count(s.load->dedicated_cpus), ==, 2);
    g_assert_cmpstr(s.config->path, ==, config_file);
    g_assert_true(vn_bitmap_test(s.config->policy->reserved_cpus, 4));
}

/* Without a sysroot a file topology is not measured; without ret_load and
 * ret_config neither is read. */
static void
test_source_plain(void)
{
    g_autofree gchar *load_file = vn_test_data_path("load", "bad-negative.json", NULL);
    VnSourceOptions o = { .synthetic = (gchar *)SYNTHETIC,
                          .load_file = load_file,
                          .config_file = (gchar *)"/nonexistent/vnuma.conf" };
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(GError) error = NULL;

    g_assert_true(vn_source_load(&o, &t, NULL, NULL, &error));
    g_assert_no_error(error);
    g_assert_cmpuint(t->nodes[0].mem_free_kib, ==, G_MAXUINT64);
}

static void
test_source_env_topology(void)
{
    g_autofree gchar *xml = vn_test_data_path("hwloc", "64amd64-4p2n4ca2co.xml", NULL);
    g_autofree gchar *config_file = vn_test_data_path("config", "empty.conf", NULL);
    VnSourceOptions o = { .config_file = config_file };
    g_auto(VnTestSource) s = { 0 };

    g_setenv("VNUMA_TOPOLOGY", xml, TRUE);
    vn_test_source_load(&o, &s);
    g_unsetenv("VNUMA_TOPOLOGY");
    g_assert_cmpuint(s.t->n_nodes, ==, 8);
    g_assert_nonnull(strstr(s.t->source, "64amd64-4p2n4ca2co.xml"));
    /* a file is not the live host: nothing measured */
    g_assert_cmpfloat(s.load->nodes[0].cpu_busy, <, 0.0);
}

/* Errors from the config and the load file come through unchanged. */
static void
test_source_errors(void)
{
    g_autofree gchar *bad_config = vn_test_data_path("config", "bad-size.conf", NULL);
    g_autofree gchar *bad_load = vn_test_data_path("load", "bad-negative.json", NULL);
    g_autofree gchar *empty = vn_test_data_path("config", "empty.conf", NULL);
    VnSourceOptions o = { .synthetic = (gchar *)SYNTHETIC, .config_file = bad_config };
    VnTopology *t = NULL;
    VnLoad *load = NULL;
    VnConfig *config = NULL;
    g_autoptr(GError) error = NULL;

    g_assert_false(vn_source_load(&o, &t, &load, &config, &error));
    g_assert_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID);
    g_clear_error(&error);

    o.config_file = empty;
    o.load_file = bad_load;
    g_assert_false(vn_source_load(&o, &t, &load, &config, &error));
    g_assert_nonnull(strstr(error->message, "bad-negative.json"));
    g_assert_null(t);
    g_assert_null(load);
    g_assert_null(config);
}

/* Writes a ledger holding one running 2-vCPU, 1 GiB VM on `t`'s first
 * node into `state_dir`. */
static void
write_ledger(const gchar *state_dir, const VnTopology *t)
{
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *cpus = vn_cpulist_format(t->nodes[0].cpus);
    VnLedgerRecord *r = vn_ledger_record_new("2f1d3a52-7c29-4b53-9f07-3f0e3a2f6c11", "vm1");

    r->state = VN_LEDGER_STATE_RUNNING;
    vn_ledger_record_add_cell(r, 0, t->nodes[0].os_id, 2, cpus, 1024 * 1024);
    ledger = vn_ledger_open(state_dir, &error);
    g_assert_no_error(error);
    vn_ledger_put(ledger, r);
    g_assert_true(vn_ledger_commit(ledger, &error));
    g_assert_no_error(error);
}

/* The live host's load includes the VMs of its ledger; a topology file,
 * being another host, does not. */
static void
test_source_ledger(void)
{
    g_autofree gchar *config_file = vn_test_data_path("config", "empty.conf", NULL);
    g_autofree gchar *xml = vn_test_data_path("hwloc", "64amd64-4p2n4ca2co.xml", NULL);
    g_autofree gchar *state_dir = g_dir_make_tmp("vnuma-state-XXXXXX", NULL);
    VnSourceOptions live = { .config_file = config_file };
    VnSourceOptions file = { .config_file = config_file, .topology_file = xml };
    g_autoptr(VnTopology) t = NULL;
    g_auto(VnTestSource) s = { 0 };
    g_auto(VnTestSource) fs = { 0 };
    g_autoptr(GError) error = NULL;
    g_autofree gchar *ledger_file = g_build_filename(state_dir, "ledger.json", NULL);
    g_autofree gchar *lock_file = g_build_filename(state_dir, "ledger.lock", NULL);

    g_assert_nonnull(state_dir);
    g_setenv("VNUMA_STATE_DIR", state_dir, TRUE);
    g_assert_true(vn_source_load(&live, &t, NULL, NULL, &error));
    g_assert_no_error(error);
    write_ledger(state_dir, t);
    g_clear_pointer(&t, vn_topology_free);

    vn_test_source_load(&live, &s);
    g_assert_cmpstr(s.config->state_dir, ==, state_dir);
    g_assert_cmpuint(s.load->nodes[0].committed_vcpus, ==, 2);
    g_assert_cmpuint(s.load->nodes[0].committed_memory_kib, ==,
                     1024 * 1024 + vn_policy_overhead_kib(s.config->policy, 1024 * 1024));

    vn_test_source_load(&file, &fs);
    g_assert_cmpuint(fs.load->nodes[0].committed_vcpus, ==, 0);
    g_assert_cmpuint(fs.load->nodes[0].committed_memory_kib, ==, 0);

    g_unsetenv("VNUMA_STATE_DIR");
    g_unlink(ledger_file);
    g_unlink(lock_file);
    g_rmdir(state_dir);
}

/* A ledger named by state_dir (`plan --state-dir`) is the load of any
 * topology, another host's too, and the ledger vn_source_load_with_ledger()
 * gives; the fixture tests/data/ledger/defrag on 4 nodes of 1 GiB: node 0
 * holds small0 (1 vCPU, 128 MiB) and mid0 (1 vCPU, 320 MiB), each charged
 * the default overhead 32 MiB + 8 MiB for its started GiB: 131072 + 40960
 * + 327680 + 40960 = 540672 KiB.  A state_dir that is no directory is an
 * error naming it, not an empty ledger. */
static void
test_source_state_dir(void)
{
    g_autofree gchar *config_file = vn_test_data_path("config", "empty.conf", NULL);
    g_autofree gchar *dir = vn_test_data_path("ledger", "defrag", NULL);
    g_autofree gchar *missing = vn_test_data_path("ledger", "defrag", "no-such-dir", NULL);
    VnSourceOptions o = { .config_file = config_file,
                          .synthetic = SYNTHETIC_4x1G,
                          .state_dir = dir };
    g_auto(VnTestSource) s = { 0 };
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(GError) error = NULL;

    vn_test_source_load_with_ledger(&o, &s, &ledger);
    g_assert_cmpuint(s.load->nodes[0].committed_vcpus, ==, 2);
    g_assert_cmpuint(s.load->nodes[0].committed_memory_kib, ==, 540672);
    g_assert_cmpuint(vn_ledger_generation(ledger), ==, 9);
    g_assert_cmpuint(vn_ledger_records(ledger)->len, ==, 5);
    g_clear_pointer(&ledger, vn_ledger_free);
    vn_test_source_clear(&s);

    o.state_dir = NULL;
    vn_test_source_load_with_ledger(&o, &s, &ledger);
    g_assert_cmpuint(s.load->nodes[0].committed_memory_kib, ==, 0);
    g_assert_null(ledger);
    vn_test_source_clear(&s);

    o.state_dir = missing;
    g_assert_false(vn_source_load_with_ledger(&o, &s.t, &s.load, &s.config, &ledger, &error));
    g_assert_error(error, VN_SOURCE_ERROR, VN_SOURCE_ERROR_STATE_DIR);
    g_assert_nonnull(strstr(error->message, missing));
    g_assert_null(s.t);
    g_assert_null(ledger);
}

/* How many times `name` in the directory inotify watches on `fd` was
 * opened since the last call (events already queued: read without
 * waiting). */
static guint
count_opens(int fd, const gchar *name)
{
    gchar buf[4096] __attribute__((aligned(__alignof__(struct inotify_event))));
    guint opens = 0;
    ssize_t n;

    while ((n = read(fd, buf, sizeof(buf))) > 0) {
        for (gchar *p = buf; p < buf + n;) {
            const struct inotify_event *e = (const struct inotify_event *)p;
            if ((e->mask & IN_OPEN) && e->len > 0 && g_str_equal(e->name, name))
                opens++;
            p += sizeof(*e) + e->len;
        }
    }
    g_assert_cmpint(errno, ==, EAGAIN);
    return opens;
}

/* `plan`, `define` and `place` with defragmentation want the ledger's load
 * and its movable VMs: read once, they are one generation, whatever the
 * hook writes meanwhile.  The kernel counts the opens (inotify) of a copy
 * of the fixture ledger: one (the load's, then the VMs' read, as the CLI
 * did before, counts two), and the load and the VMs are the fixture's, as
 * in test_source_state_dir. */
static void
test_source_one_ledger_read(void)
{
    g_autofree gchar *config_file = vn_test_data_path("config", "empty.conf", NULL);
    g_autofree gchar *fixture = vn_test_data_path("ledger", "defrag", "ledger.json", NULL);
    g_autofree gchar *dir = g_dir_make_tmp("vnuma-source-XXXXXX", NULL);
    g_autofree gchar *text = NULL;
    g_autofree gchar *copy = NULL;
    VnSourceOptions o = { .config_file = config_file,
                          .synthetic = SYNTHETIC_4x1G,
                          .state_dir = dir };
    g_auto(VnTestSource) s = { 0 };
    g_autoptr(VnLedger) ledger = NULL;
    int fd = inotify_init1(IN_NONBLOCK | IN_CLOEXEC);

    g_assert_nonnull(dir);
    g_assert_cmpint(fd, >=, 0);
    g_assert_true(g_file_get_contents(fixture, &text, NULL, NULL));
    copy = vn_test_write_file(dir, "ledger.json", text);
    /* closes too: the kernel merges an event into an identical last one */
    g_assert_cmpint(inotify_add_watch(fd, dir, IN_OPEN | IN_CLOSE), >=, 0);

    vn_test_source_load_with_ledger(&o, &s, &ledger);
    g_assert_cmpuint(count_opens(fd, "ledger.json"), ==, 1);
    g_assert_cmpuint(vn_ledger_generation(ledger), ==, 9);
    g_assert_cmpuint(vn_ledger_records(ledger)->len, ==, 5);
    g_assert_cmpuint(s.load->nodes[0].committed_vcpus, ==, 2);
    g_assert_cmpuint(s.load->nodes[0].committed_memory_kib, ==, 540672);

    /* without the ledger asked for, the load still reads it, once */
    vn_test_source_clear(&s);
    vn_test_source_load(&o, &s);
    g_assert_cmpuint(count_opens(fd, "ledger.json"), ==, 1);
    g_assert_cmpuint(s.load->nodes[0].committed_memory_kib, ==, 540672);
    close(fd);
    vn_test_remove_tree(dir);
}

/* The sample configuration loads, and every documented default, once
 * uncommented, is the default the code uses. */
static void
test_sample_config(void)
{
    const gchar *root = g_getenv("VN_SOURCE_ROOT");
    g_autofree gchar *sample = NULL, *text = NULL, *uncommented = NULL, *tmp = NULL;
    g_autoptr(GRegex) regex = NULL;
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) as_shipped = NULL, spelled_out = NULL, defaults = vn_config_new_default(t);
    g_autoptr(GError) error = NULL;
    gint fd;

    if (!root) {
        g_test_skip("VN_SOURCE_ROOT is not set");
        return;
    }
    sample = g_build_filename(root, "tools", "vnuma.conf", NULL);
    as_shipped = vn_config_load(sample, t, &error);
    g_assert_no_error(error);

    g_assert_true(g_file_get_contents(sample, &text, NULL, NULL));
    regex = g_regex_new("^#([a-z_]+ =.*)$", G_REGEX_MULTILINE, 0, NULL);
    uncommented = g_regex_replace(regex, text, -1, 0, "\\1", 0, NULL);
    g_assert_nonnull(strstr(uncommented, "\nheadroom_percent = 5\n"));
    fd = g_file_open_tmp("vnuma-sample-XXXXXX.conf", &tmp, &error);
    g_assert_no_error(error);
    close(fd);
    g_assert_true(g_file_set_contents(tmp, uncommented, -1, NULL));
    spelled_out = vn_config_load(tmp, t, &error);
    g_unlink(tmp);
    g_assert_no_error(error);

    for (guint i = 0; i < 2; i++) {
        const VnConfig *c = i ? spelled_out : as_shipped;
        const VnPolicy *p = c->policy, *d = defaults->policy;

        g_assert_true(vn_bitmap_equal(p->reserved_cpus, d->reserved_cpus));
        g_assert_cmpuint(p->reserved_memory_kib, ==, d->reserved_memory_kib);
        g_assert_cmpuint(p->overhead_base_kib, ==, d->overhead_base_kib);
        g_assert_cmpuint(p->overhead_per_gib_kib, ==, d->overhead_per_gib_kib);
        g_assert_cmpuint(p->headroom_percent, ==, d->headroom_percent);
        g_assert_cmpfloat(p->cpu_overcommit, ==, d->cpu_overcommit);
        g_assert_cmpint(c->memory_mode, ==, defaults->memory_mode);
        g_assert_cmpint(c->hook_manage, ==, defaults->hook_manage);
        g_assert_cmpint(c->hook_on_conflict, ==, defaults->hook_on_conflict);
        g_assert_cmpint(c->hook_strict, ==, defaults->hook_strict);
        g_assert_cmpstr(c->state_dir, ==, defaults->state_dir);
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_unsetenv("VNUMA_TOPOLOGY");
    g_unsetenv("VNUMA_CONFIG");
    g_unsetenv("VNUMA_STATE_DIR");
    g_test_add_func("/plugin/source/options", test_source_options);
    g_test_add_func("/plugin/source/conflict", test_source_conflict);
    g_test_add_func("/plugin/source/replay", test_source_replay);
    g_test_add_func("/plugin/source/plain", test_source_plain);
    g_test_add_func("/plugin/source/env-topology", test_source_env_topology);
    g_test_add_func("/plugin/source/errors", test_source_errors);
    g_test_add_func("/plugin/source/ledger", test_source_ledger);
    g_test_add_func("/plugin/source/state-dir", test_source_state_dir);
    g_test_add_func("/plugin/source/one-ledger-read", test_source_one_ledger_read);
    g_test_add_func("/plugin/source/sample-config", test_sample_config);
    return g_test_run();
}
