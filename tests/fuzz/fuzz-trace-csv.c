/* fuzz-trace-csv.c: a VM trace in CSV, parsed by vn_trace_parse() as
 * `vnumactl simulate --trace FILE` parses it (vn_trace_load_file() reads
 * the file and hands its text on).  An accepted trace must format to CSV
 * that parses back to the same trace, and replays on the fixture host
 * with vnuma's planner and a baseline, with metrics that add up. */
#include "vn-fuzz.h"
#include "vn-simulate.h"
#include "vn-trace-file.h"

#include <math.h>

#define ORIGIN "fuzz-trace.csv"

static gpointer
parse(const gchar *text, const gchar *origin, GError **error)
{
    return vn_trace_parse(text, origin, error);
}

static void
round_trip(const VnTrace *trace)
{
    g_autofree gchar *text = vn_trace_format(trace);
    g_autofree gchar *again = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTrace) parsed = vn_trace_parse(text, "formatted", &error);

    if (!parsed)
        vn_fuzz_fail("the formatted trace does not parse", error);
    again = vn_trace_format(parsed);
    if (!g_str_equal(text, again))
        vn_fuzz_fail("the formatted trace parses as another trace", NULL);
}

static void
replay(const VnTrace *trace, VnSimPolicy which)
{
    g_autoptr(GError) error = NULL;
    VnSimMetrics m;

    if (!vn_simulate(vn_fuzz_topology(), NULL, vn_fuzz_policy(), trace, which, NULL, &m, &error)) {
        vn_fuzz_check(FALSE, error, NULL);
        return;
    }
    if (m.admitted + m.rejected != m.vms || m.vms != trace->vms->len)
        vn_fuzz_fail("the replay lost VMs (admitted + rejected != VMs)", NULL);
    if (!(m.remote_share >= 0.0 && m.remote_share <= 1.0))
        vn_fuzz_fail("the replay's remote share is outside 0..1", NULL);
    if (!(m.imbalance >= 1.0) || isinf(m.imbalance))
        vn_fuzz_fail("the replay's imbalance is not a number >= 1", NULL);
}

static void
use(gpointer trace)
{
    round_trip(trace);
    replay(trace, VN_SIM_POLICY_VNUMA);
    replay(trace, VN_SIM_POLICY_FIRST_FIT);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_text(ORIGIN, data, size, parse, use, (GDestroyNotify)vn_trace_free);
    return 0;
}
