/* fuzz-ledger.c: ledger.json, read as the hook, vnumactl and vnumad read
 * it: vn_ledger_snapshot() of a state directory holding the input, then
 * what they do with its records on the fixture host (the load they
 * commit, the rebalancer's residents, the fit check) and the text form,
 * which must read back to the same records. */
#include "vn-fuzz.h"
#include "vn-ledger.h"

#include <string.h>

static gpointer
read_ledger(const gchar *path, const gchar *origin, GError **error)
{
    return vn_ledger_snapshot(vn_fuzz_dir(), error);
}

static void
round_trip(const VnLedger *l)
{
    g_autofree gchar *text = vn_ledger_format(vn_ledger_records(l), vn_ledger_generation(l));
    g_autofree gchar *again = NULL;
    g_autoptr(GPtrArray) records = NULL;
    g_autoptr(GError) error = NULL;
    guint64 generation;

    if (!vn_ledger_parse(text, strlen(text), "formatted", &records, &generation, &error))
        vn_fuzz_fail("the formatted ledger does not read back", error);
    again = vn_ledger_format(records, generation);
    if (!g_str_equal(text, again))
        vn_fuzz_fail("the formatted ledger reads back as another ledger", NULL);
}

static void
use(gpointer data)
{
    const VnLedger *l = data;
    g_autoptr(VnLoad) load = vn_fuzz_load_new();
    g_autoptr(GPtrArray) residents = NULL;
    GPtrArray *records = vn_ledger_records(l);

    vn_ledger_to_load(l, vn_fuzz_topology(), vn_fuzz_policy(), NULL, load);
    residents = vn_ledger_residents(l, vn_fuzz_topology(), vn_fuzz_policy());
    for (guint i = 0; i < records->len; i++) {
        g_autofree gchar *reason = NULL;

        g_free(vn_ledger_record_nodes_string(records->pdata[i]));
        if (!vn_ledger_record_fits(records->pdata[i], vn_fuzz_topology(), load, vn_fuzz_policy(),
                                   &reason) &&
            (!reason || !*reason))
            vn_fuzz_fail("a record does not fit without a reason", NULL);
    }
    round_trip(l);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_file("ledger.json", data, size, read_ledger, use, (GDestroyNotify)vn_ledger_free);
    return 0;
}
