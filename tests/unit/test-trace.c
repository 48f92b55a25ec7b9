/* test-trace.c: VM traces as CSV, and the Azure-mix generator. */
#include "vn-trace-file.h"

#include <math.h>
#include <string.h>

#define GIB (G_GUINT64_CONSTANT(1024) * 1024)

static void
test_parse(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTrace) t = vn_trace_parse("# a comment\n"
                                          " time_s , vm,vcpus,memory_mib,duration_s\r\n"
                                          "\n"
                                          "0,web1,2,4096,3600\n"
                                          "12.5, db ,8,65536,1e5\n",
                                          "t.csv", &error);
    const VnTraceVm *vm;

    g_assert_no_error(error);
    g_assert_cmpuint(t->vms->len, ==, 2);
    vm = &g_array_index(t->vms, VnTraceVm, 1);
    g_assert_cmpstr(vm->name, ==, "db");
    g_assert_cmpfloat(vm->time_s, ==, 12.5);
    g_assert_cmpuint(vm->vcpus, ==, 8);
    g_assert_cmpuint(vm->memory_kib, ==, 64 * GIB);
    g_assert_cmpfloat(vm->duration_s, ==, 1e5);
}

/* Each bad input: one error naming file, line and column. */
static void
test_parse_errors(void)
{
    const struct {
        const gchar *text;
        gint code;
        const gchar *message;
    } cases[] = {
        { "time,vm\n0,a,1,1,1\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:1:1: header must be 'time_s,vm,vcpus,memory_mib,duration_s'" },
        { VN_TRACE_CSV_HEADER "\n", VN_TRACE_FILE_ERROR_EMPTY,
          "t.csv: no VMs (expected a header 'time_s,vm,vcpus,memory_mib,duration_s' and one line "
          "per VM)" },
        { "", VN_TRACE_FILE_ERROR_EMPTY, NULL },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2: 4 fields, expected 5 (time_s,vm,vcpus,memory_mib,duration_s)" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,5,6\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2: more than 5 fields (expected time_s,vm,vcpus,memory_mib,duration_s)" },
        { VN_TRACE_CSV_HEADER "\n-1,a,1,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:1: time_s: '-1' is not a number of seconds >= 0" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,5\n1,b,x,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:3:5: vcpus: 'x' is not a whole number from 1 to 4096" },
        { VN_TRACE_CSV_HEADER "\n0,a,0,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:5: vcpus: '0' is not a whole number from 1 to 4096" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1.5G,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:7: memory_mib: '1.5G' is not a whole number from 1 to 1073741824" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,0\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:12: duration_s: '0' is not a number of seconds > 0" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,inf\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:12: duration_s: 'inf' is not a number of seconds > 0" },
        { VN_TRACE_CSV_HEADER "\n0,,1,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:3: vm: a name is required" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,5\n0,a,1,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:3:3: vm: 'a' appears twice" },
        /* found by fuzz-trace-csv: a time past 64-bit seconds reached the
         * replay's clock (undefined conversion) */
        { VN_TRACE_CSV_HEADER "\n340555555555555555555555555555555555513159,a,4,2,1336\n",
          VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:1: time_s: '340555555555555555555555555555555555513159' seconds is more than "
          "1e+12" },
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,2e12\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:2:12: duration_s: '2e12' seconds is more than 1e+12" },
        /* found by fuzz-trace-csv: the name's bytes were quoted on */
        { VN_TRACE_CSV_HEADER "\n0,a,1,1024,5\n0,caf\xe9,1,1024,5\n", VN_TRACE_FILE_ERROR_SYNTAX,
          "t.csv:3:6: not UTF-8 text" },
    };

    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnTrace) t = vn_trace_parse(cases[i].text, "t.csv", &error);
        g_assert_null(t);
        g_assert_error(error, VN_TRACE_FILE_ERROR, cases[i].code);
        if (cases[i].message)
            g_assert_cmpstr(error->message, ==, cases[i].message);
        g_assert_null(strchr(error->message, '\n'));
        g_assert_true(g_utf8_validate(error->message, -1, NULL));
    }
}

static void
test_missing_file(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTrace) t = vn_trace_load_file("/nonexistent/trace.csv", &error);

    g_assert_null(t);
    g_assert_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_READ);
    g_assert_nonnull(strstr(error->message, "/nonexistent/trace.csv"));
}

/* A fixed seed names a trace; its CSV reads back to the same trace. */
static void
test_generate_reproducible(void)
{
    g_autoptr(VnTrace) a =
        vn_trace_generate(500, 42, 24, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    g_autoptr(VnTrace) b =
        vn_trace_generate(500, 42, 24, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    g_autoptr(VnTrace) c =
        vn_trace_generate(500, 43, 24, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    g_autofree gchar *ca = vn_trace_format(a);
    g_autofree gchar *cb = vn_trace_format(b);
    g_autofree gchar *cc = vn_trace_format(c);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTrace) back = vn_trace_parse(ca, "generated", &error);
    g_autofree gchar *cback = NULL;

    g_assert_cmpstr(ca, ==, cb);
    g_assert_cmpstr(ca, !=, cc);
    g_assert_no_error(error);
    cback = vn_trace_format(back);
    g_assert_cmpstr(ca, ==, cback);
    for (guint i = 1; i < a->vms->len; i++)
        g_assert_cmpfloat(g_array_index(a->vms, VnTraceVm, i - 1).time_s, <=,
                          g_array_index(a->vms, VnTraceVm, i).time_s);
    g_assert_cmpfloat(g_array_index(a->vms, VnTraceVm, a->vms->len - 1).time_s, <, 24 * 3600);
}

/* The published mix, within sampling error (20,000 VMs: +-1.5 points is
 * more than 4 standard deviations). */
static void
test_generate_mix(void)
{
    g_autoptr(VnTrace) t =
        vn_trace_generate(20000, 1, 720, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    guint small = 0, mid = 0, large = 0, wide = 0, huge = 0, mem8 = 0, h2 = 0, d1 = 0;
    gdouble n = t->vms->len;

    for (guint i = 0; i < t->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(t->vms, VnTraceVm, i);
        small += vm->vcpus <= 2;
        mid += vm->vcpus >= 3 && vm->vcpus <= 4;
        large += vm->vcpus >= 5 && vm->vcpus <= 8;
        wide += vm->vcpus >= 9 && vm->vcpus <= 24;
        huge += vm->vcpus > 24;
        mem8 += vm->memory_kib <= 8 * GIB;
        h2 += vm->duration_s <= 2 * 3600;
        d1 += vm->duration_s <= 86400;
        g_assert_cmpfloat(vm->duration_s, >=, 60);
        g_assert_cmpfloat(vm->duration_s, <=, 30 * 86400);
    }
    g_assert_cmpfloat(fabs(small / n - 0.58), <, 0.015);
    g_assert_cmpfloat(fabs(mid / n - 0.23), <, 0.015);
    g_assert_cmpfloat(fabs(large / n - 0.12), <, 0.015);
    g_assert_cmpfloat(fabs(wide / n - 0.055), <, 0.01);
    g_assert_cmpfloat(fabs(huge / n - 0.015), <, 0.005);
    g_assert_cmpfloat(fabs(mem8 / n - 0.61), <, 0.015);
    g_assert_cmpfloat(fabs(h2 / n - 0.72), <, 0.015);
    g_assert_cmpfloat(fabs(d1 / n - 0.90), <, 0.015);
}

/* The stress mixes keep a seed's arrivals, and stay in their ranges:
 * small never above 8 vCPUs, large never below 4; short lifetimes all
 * within 2 h, long ones all beyond. */
static void
test_generate_stress_mixes(void)
{
    g_autoptr(VnTrace) azure =
        vn_trace_generate(2000, 5, 100, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    g_autoptr(VnTrace) small =
        vn_trace_generate(2000, 5, 100, VN_TRACE_SIZE_SMALL, VN_TRACE_LIFETIME_SHORT, 0);
    g_autoptr(VnTrace) large =
        vn_trace_generate(2000, 5, 100, VN_TRACE_SIZE_LARGE, VN_TRACE_LIFETIME_LONG, 0);
    guint mix;
    guint wide = 0;

    for (guint i = 0; i < azure->vms->len; i++) {
        const VnTraceVm *a = &g_array_index(azure->vms, VnTraceVm, i);
        const VnTraceVm *s = &g_array_index(small->vms, VnTraceVm, i);
        const VnTraceVm *l = &g_array_index(large->vms, VnTraceVm, i);
        g_assert_cmpfloat(a->time_s, ==, s->time_s);
        g_assert_cmpfloat(a->time_s, ==, l->time_s);
        g_assert_cmpuint(s->vcpus, <=, 8);
        g_assert_cmpuint(l->vcpus, >=, 4);
        g_assert_cmpfloat(s->duration_s, <=, 7200);
        g_assert_cmpfloat(l->duration_s, >=, 7200);
        wide += l->vcpus >= 16;
    }
    /* 40 % of the large mix has 16 vCPUs or more */
    g_assert_cmpfloat(fabs(wide / 2000.0 - 0.40), <, 0.045);
    g_assert_true(vn_trace_mix_from_string(vn_trace_size_mix_names(), "large", &mix));
    g_assert_cmpuint(mix, ==, VN_TRACE_SIZE_LARGE);
    g_assert_true(vn_trace_mix_from_string(vn_trace_lifetime_mix_names(), "short", &mix));
    g_assert_cmpuint(mix, ==, VN_TRACE_LIFETIME_SHORT);
    g_assert_false(vn_trace_mix_from_string(vn_trace_size_mix_names(), "huge", &mix));
    g_assert_false(vn_trace_mix_from_string(vn_trace_lifetime_mix_names(), NULL, &mix));
}

/* A memory cap truncates the mix: every VM at most the cap, the arrivals
 * of the uncapped trace kept, the sizes under the cap in the published
 * proportions; a cap below the smallest VM is no cap.  Under 8 GiB the
 * Azure mix holds 2 GiB = 1x2 (.35 x .3 = .105), 4 GiB = 1x4 + 2x2
 * (.175 + .069 = .244), 8 GiB = 1x8 + 2x4 + 4x2 (.07 + .115 + .069 =
 * .254): of .603, 17.4 %, 40.5 % and 42.1 % (2,000 VMs: +-4 points). */
static void
test_generate_capped(void)
{
    g_autoptr(VnTrace) full =
        vn_trace_generate(2000, 9, 100, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 0);
    g_autoptr(VnTrace) capped =
        vn_trace_generate(2000, 9, 100, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, 8 * GIB);
    g_autoptr(VnTrace) tiny =
        vn_trace_generate(2000, 9, 100, VN_TRACE_SIZE_AZURE, VN_TRACE_LIFETIME_AZURE, GIB);
    g_autofree gchar *cfull = vn_trace_format(full);
    g_autofree gchar *ctiny = vn_trace_format(tiny);
    guint n2 = 0, n4 = 0, n8 = 0, over = 0;
    gdouble n = capped->vms->len;

    g_assert_cmpuint(vn_trace_smallest_vm_kib(), ==, 2 * GIB);
    g_assert_cmpstr(cfull, ==, ctiny);
    for (guint i = 0; i < capped->vms->len; i++) {
        const VnTraceVm *c = &g_array_index(capped->vms, VnTraceVm, i);
        const VnTraceVm *f = &g_array_index(full->vms, VnTraceVm, i);

        g_assert_cmpfloat(c->time_s, ==, f->time_s);
        g_assert_cmpuint(c->memory_kib, <=, 8 * GIB);
        n2 += c->memory_kib == 2 * GIB;
        n4 += c->memory_kib == 4 * GIB;
        n8 += c->memory_kib == 8 * GIB;
        over += f->memory_kib > 8 * GIB;
    }
    g_assert_cmpuint(n2 + n4 + n8, ==, capped->vms->len);
    g_assert_cmpuint(over, >, 0);
    g_assert_cmpfloat(fabs(n2 / n - 0.105 / 0.603), <, 0.04);
    g_assert_cmpfloat(fabs(n4 / n - 0.244 / 0.603), <, 0.04);
    g_assert_cmpfloat(fabs(n8 / n - 0.254 / 0.603), <, 0.04);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/trace/parse", test_parse);
    g_test_add_func("/trace/parse-errors", test_parse_errors);
    g_test_add_func("/trace/missing-file", test_missing_file);
    g_test_add_func("/trace/generate/reproducible", test_generate_reproducible);
    g_test_add_func("/trace/generate/mix", test_generate_mix);
    g_test_add_func("/trace/generate/stress-mixes", test_generate_stress_mixes);
    g_test_add_func("/trace/generate/capped", test_generate_capped);
    return g_test_run();
}
