/* fuzz-history.c: history.log, one JSON object per line, read as `vnumactl
 * log` and `vnumactl status` read it: vn_history_read() of a state
 * directory holding the input.  Entries read are appended to another
 * directory with vn_history_append() and must read back the same. */
#include "vn-fuzz.h"
#include "vn-history.h"

#include <glib/gstdio.h>

static gchar *out_dir;
static gchar *out_file;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    out_dir = g_build_filename(vn_fuzz_dir(), "out", NULL);
    out_file = g_build_filename(out_dir, VN_HISTORY_FILE, NULL);
    return 0;
}

static gboolean
same_entry(const VnHistoryEntry *a, const VnHistoryEntry *b)
{
    return g_str_equal(a->time, b->time) && g_str_equal(a->vm, b->vm) &&
           g_str_equal(a->phase, b->phase) && g_str_equal(a->decision, b->decision) &&
           g_str_equal(a->nodes, b->nodes) && g_str_equal(a->reason, b->reason);
}

static gpointer
read_history(const gchar *path, const gchar *origin, GError **error)
{
    return vn_history_read(vn_fuzz_dir(), 0, error);
}

static void
round_trip(gpointer data)
{
    GPtrArray *entries = data;
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) again = NULL;

    g_remove(out_file);
    for (guint i = 0; i < entries->len; i++)
        if (!vn_history_append(out_dir, entries->pdata[i], &error))
            vn_fuzz_fail("cannot append an entry read", error);
    again = vn_history_read(out_dir, 0, &error);
    g_remove(out_file);
    g_rmdir(out_dir);
    if (!again)
        vn_fuzz_fail("the entries appended do not read back", error);
    if (again->len != entries->len)
        vn_fuzz_fail("the entries appended read back as another number of entries", NULL);
    for (guint i = 0; i < entries->len; i++)
        if (!same_entry(entries->pdata[i], again->pdata[i]))
            vn_fuzz_fail("an entry appended reads back as another entry", NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_file(VN_HISTORY_FILE, data, size, read_history, round_trip,
                      (GDestroyNotify)g_ptr_array_unref);
    return 0;
}
