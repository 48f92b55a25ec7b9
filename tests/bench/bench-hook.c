/* bench-hook HOOK TOPOLOGY.xml [RUNS]: wall time of the hook's `prepare
 * begin` (process start, config, topology, ledger read + lock + write,
 * plan) with 100 reservations in the ledger, as libvirt would run it.
 * Prints the median and the 90th percentile in milliseconds for a domain
 * with a recorded placement (re-validated) and one that is planned.
 * The target: median <= 10 ms on a 16-node topology.
 * With valgrind on PATH, one more run of each case under callgrind counts
 * the instructions it executes (repeatable on a loaded machine, unlike the
 * time); the target: <= 10 M.  $VN_BENCH_CALLGRIND_DIR keeps the
 * callgrind.out files there for callgrind_annotate. */
#include <fcntl.h>
#include <string.h>
#include <spawn.h>
#include <sys/wait.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "vn-ledger.h"

extern char **environ;

#define N_RESERVATIONS 100

static void
fill_ledger(const gchar *dir)
{
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    g_assert_nonnull(l);
    for (guint i = 0; i < N_RESERVATIONS; i++) {
        g_autofree gchar *uuid = g_strdup_printf("33333333-0000-4000-8000-%012u", i);
        g_autofree gchar *name = g_strdup_printf("bench-%03u", i);
        g_autofree gchar *cpus = g_strdup_printf("%u-%u", (i % 16) * 16, (i % 16) * 16 + 15);
        VnLedgerRecord *r = vn_ledger_record_new(uuid, name);
        r->state = VN_LEDGER_STATE_RESERVED; /* no status XML needed to survive */
        r->time = g_get_real_time() / G_USEC_PER_SEC;
        vn_ledger_record_add_cell(r, 0, i % 16, 4, cpus, 4 * 1024 * 1024);
        vn_ledger_put(l, r);
    }
    g_assert_true(vn_ledger_commit(l, NULL));
}

static gchar *
write_domain(const gchar *dir, const gchar *name, const gchar *meta)
{
    g_autofree gchar *file = g_strconcat(name, ".xml", NULL);
    gchar *path = g_build_filename(dir, file, NULL);
    g_autofree gchar *xml = g_strdup_printf(
        "<domain type='qemu'><name>%s</name>"
        "<uuid>44444444-0000-4000-8000-00000000000%c</uuid>"
        "<memory unit='KiB'>8388608</memory><vcpu>8</vcpu>"
        "<os><type arch='x86_64' machine='pc'>hvm</type></os>"
        "<metadata><vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes'>"
        "%s</vnuma:vnuma></metadata></domain>",
        name, meta[0] ? '1' : '2', meta);
    g_assert_true(g_file_set_contents(path, xml, -1, NULL));
    return path;
}

/* Runs argv (the hook, or valgrind running it) with `input` on stdin. */
static gdouble
run_argv(char **argv, const gchar *input, gboolean quiet)
{
    posix_spawn_file_actions_t fa;
    posix_spawn_file_actions_init(&fa);
    posix_spawn_file_actions_addopen(&fa, 0, input, O_RDONLY, 0);
    posix_spawn_file_actions_addopen(&fa, 1, "/dev/null", O_WRONLY, 0);
    if (quiet)
        posix_spawn_file_actions_addopen(&fa, 2, "/dev/null", O_WRONLY, 0);
    gint64 t0 = g_get_monotonic_time();
    pid_t pid;
    int status;
    g_assert_cmpint(posix_spawn(&pid, argv[0], &fa, NULL, argv, environ), ==, 0);
    g_assert_cmpint(waitpid(pid, &status, 0), ==, pid);
    gdouble ms = (g_get_monotonic_time() - t0) / 1000.0;
    posix_spawn_file_actions_destroy(&fa);
    g_assert_true(WIFEXITED(status) && WEXITSTATUS(status) == 0);
    return ms;
}

static gdouble
run_once(const gchar *hook, const gchar *vm, const gchar *input)
{
    char *argv[] = { (char *)hook, (char *)vm, "prepare", "begin", "-", NULL };
    return run_argv(argv, input, FALSE);
}

/* Instructions of one run under callgrind ("summary:" of its output), 0
 * when valgrind is missing. */
static guint64
count_instructions(const gchar *valgrind, const gchar *dir, const gchar *hook, const gchar *vm,
                   const gchar *input)
{
    const gchar *keep = g_getenv("VN_BENCH_CALLGRIND_DIR");
    g_autofree gchar *base = g_strconcat("callgrind.out.", vm, NULL);
    g_autofree gchar *out = g_build_filename(keep && *keep ? keep : dir, base, NULL);
    g_autofree gchar *out_opt = g_strconcat("--callgrind-out-file=", out, NULL);
    char *argv[] = { (char *)valgrind,
                     "--tool=callgrind",
                     out_opt,
                     (char *)hook,
                     (char *)vm,
                     "prepare",
                     "begin",
                     "-",
                     NULL };
    run_argv(argv, input, TRUE);
    g_autofree gchar *text = NULL;
    g_assert_true(g_file_get_contents(out, &text, NULL, NULL));
    const gchar *summary = strstr(text, "\nsummary: ");
    g_assert_nonnull(summary);
    return g_ascii_strtoull(summary + strlen("\nsummary: "), NULL, 10);
}

static gint
cmp_double(gconstpointer a, gconstpointer b)
{
    gdouble x = *(const gdouble *)a, y = *(const gdouble *)b;
    return x < y ? -1 : x > y;
}

static void
bench(const gchar *label, const gchar *hook, const gchar *vm, const gchar *input, guint runs,
      const gchar *valgrind, const gchar *dir)
{
    g_autoptr(GArray) t = g_array_new(FALSE, FALSE, sizeof(gdouble));
    for (guint i = 0; i < runs; i++) {
        gdouble ms = run_once(hook, vm, input);
        g_array_append_val(t, ms);
    }
    g_array_sort(t, cmp_double);
    g_autofree gchar *count =
        valgrind ? g_strdup_printf("%6.2f M instructions",
                                   count_instructions(valgrind, dir, hook, vm, input) / 1e6)
                 : g_strdup("(instructions not counted: no valgrind)");
    g_print("%-28s median %6.2f ms   p90 %6.2f ms   %s   (%u runs, %u reservations)\n", label,
            g_array_index(t, gdouble, runs / 2), g_array_index(t, gdouble, runs * 9 / 10), count,
            runs, N_RESERVATIONS);
}

int
main(int argc, char **argv)
{
    if (argc < 3) {
        g_printerr("usage: %s HOOK TOPOLOGY.xml [RUNS]\n", argv[0]);
        return 2;
    }
    guint runs = argc > 3 ? (guint)g_ascii_strtoull(argv[3], NULL, 10) : 51;
    g_autofree gchar *dir = g_dir_make_tmp("vn-bench-hook-XXXXXX", NULL);
    g_autofree gchar *run_dir = g_build_filename(dir, "run", NULL);
    g_autofree gchar *state = g_build_filename(dir, "state", NULL);
    g_mkdir(run_dir, 0755);
    g_setenv("VNUMA_STATE_DIR", state, TRUE);
    g_setenv("VNUMA_LIBVIRT_RUN_DIR", run_dir, TRUE);
    g_setenv("VNUMA_TOPOLOGY", argv[2], TRUE);
    g_autofree gchar *conf = g_build_filename(dir, "vnuma.conf", NULL);
    g_assert_true(g_file_set_contents(conf, "", 0, NULL));
    g_setenv("VNUMA_CONFIG", conf, TRUE);
    g_setenv("VNUMA_VNUMACTL", "/nonexistent", TRUE);
    fill_ledger(state);
    g_autofree gchar *placed =
        write_domain(dir, "bench-placed",
                     "<vnuma:placement version='1' memory-mode='restrictive'>"
                     "<vnuma:cell id='0' node='5' vcpus='0-7' cpus='80-95' memory-kib='8388608'/>"
                     "</vnuma:placement>");
    g_autofree gchar *managed = write_domain(dir, "bench-managed", "");
    g_autofree gchar *valgrind = g_find_program_in_path("valgrind");
    bench("prepare, recorded placement", argv[1], "bench-placed", placed, runs, valgrind, dir);
    bench("prepare, planned", argv[1], "bench-managed", managed, runs, valgrind, dir);
    /* the runs measured the real path, not an early error */
    g_autoptr(VnLedger) l = vn_ledger_snapshot(state, NULL);
    if (!l || !vn_ledger_lookup_name(l, "bench-placed") ||
        !vn_ledger_lookup_name(l, "bench-managed")) {
        g_printerr("bench-hook: the hook did not reserve; see %s/history.log\n", state);
        return 1;
    }
    g_autofree gchar *cmd = g_strdup_printf("rm -rf '%s'", dir);
    return system(cmd) == 0 ? 0 : 1;
}
