/* test-ledger-cache.c: ledger.cache beside ledger.json.  A ledger read
 * from the cache is the one ledger.json holds; a cache that is not of
 * today's ledger.json (edited, replaced, damaged, missing) is never
 * believed; and the text the cache lets the writer reuse is the text
 * json-glib would write. */
#include <string.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "vn-ledger.h"
#include "vn-ledger-cache.h"

static VnLedgerRecord *
make_record(guint i)
{
    g_autofree gchar *uuid = g_strdup_printf("00000000-0000-0000-0000-%012u", i);
    g_autofree gchar *name = g_strdup_printf("vm-%02u \"quoted\" é", i);
    VnLedgerRecord *r = vn_ledger_record_new(uuid, name);
    r->time = 1764450000 + i;
    r->state = i % 2 ? VN_LEDGER_STATE_RUNNING : VN_LEDGER_STATE_RESERVED;
    r->dedicated = i % 3 == 0;
    r->needs_apply = i % 4 == 0;
    r->priority = i % 3;
    r->hugepage_kib = i % 5 == 0 ? 2048 : 0;
    r->expires = i % 7 == 0 ? 1764460000 : 0;
    r->allowed_cpus = i % 6 == 1 ? g_strdup("0-1,4-5") : NULL;
    r->whole = i % 4 == 3;
    for (guint c = 0; c <= i % 3; c++)
        vn_ledger_record_add_cell(r, c, (i + c) % 4, 2, c ? "4-5" : "0-1",
                                  (guint64)(512 + i) * 1024 + 1);
    if (i % 4 == 1) {
        /* each vCPU of the last cell on its own CPU (guest dies) */
        vn_ledger_record_add_vcpu_pin(r, i % 3 ? "4" : "0");
        vn_ledger_record_add_vcpu_pin(r, i % 3 ? "5" : "1");
    }
    return r;
}

static gchar *
path_in(const gchar *dir, const gchar *name)
{
    return g_build_filename(dir, name, NULL);
}

/* The ledger as its text form: two ledgers read alike when equal. */
static gchar *
text_of(const VnLedger *l)
{
    return vn_ledger_format(vn_ledger_records(l), vn_ledger_generation(l));
}

/* A state dir whose ledger (12 records) was committed through the lock:
 * ledger.json and ledger.cache both there. */
static gchar *
committed_dir(void)
{
    gchar *dir = g_dir_make_tmp("vn-ledger-cache-XXXXXX", NULL);
    g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
    g_assert_nonnull(l);
    for (guint i = 0; i < 12; i++)
        vn_ledger_put(l, make_record(i));
    g_assert_true(vn_ledger_commit(l, NULL));
    return dir;
}

static void
remove_dir(const gchar *dir)
{
    static const gchar *const names[] = { "ledger.json", "ledger.cache", "ledger.lock", NULL };
    for (guint i = 0; names[i]; i++) {
        g_autofree gchar *p = path_in(dir, names[i]);
        g_unlink(p);
    }
    g_rmdir(dir);
}

/* Reads the records from the cache directly (NULL stamp: any). */
static GPtrArray *
cache_records(const gchar *dir, guint64 *ret_generation)
{
    g_autofree gchar *cache = path_in(dir, "ledger.cache");
    g_autofree gchar *json = path_in(dir, "ledger.json");
    VnLedgerStamp stamp;
    GPtrArray *records = NULL;
    g_autoptr(GHashTable) as_read = NULL;
    guint64 generation = 0;

    g_assert_true(vn_ledger_stamp_of(json, &stamp));
    if (!vn_ledger_cache_read(cache, &stamp, &records, &generation, &as_read))
        return NULL;
    if (ret_generation)
        *ret_generation = generation;
    return records;
}

static void
test_same_as_json(void)
{
    g_autofree gchar *dir = committed_dir();
    g_autofree gchar *json = path_in(dir, "ledger.json");
    g_autofree gchar *text = NULL;
    g_autoptr(GPtrArray) parsed = NULL;
    guint64 generation = 0, cached_generation = 0;

    g_assert_true(g_file_get_contents(json, &text, NULL, NULL));
    g_assert_true(vn_ledger_parse(text, strlen(text), "ledger.json", &parsed, &generation, NULL));
    g_autoptr(GPtrArray) cached = cache_records(dir, &cached_generation);
    g_assert_nonnull(cached); /* the commit wrote a cache of this very file */
    g_assert_cmpuint(cached_generation, ==, generation);
    g_assert_cmpuint(cached->len, ==, parsed->len);
    for (guint i = 0; i < parsed->len; i++)
        g_assert_true(
            vn_ledger_record_equal(g_ptr_array_index(cached, i), g_ptr_array_index(parsed, i)));
    /* and the ledger opened for a change writes back the same text */
    {
        g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
        g_assert_true(vn_ledger_commit(l, NULL));
    }
    g_autofree gchar *again = NULL;
    g_assert_true(g_file_get_contents(json, &again, NULL, NULL));
    g_autofree gchar *expected = vn_ledger_format(parsed, generation + 1);
    g_assert_cmpstr(again, ==, expected);
    remove_dir(dir);
}

/* The document spliced from per-record texts is json-glib's own compact
 * form of it, byte for byte. */
static void
test_text_is_json_glib_form(void)
{
    g_autoptr(GPtrArray) records =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    for (guint i = 0; i < 12; i++)
        g_ptr_array_add(records, make_record(i));
    for (guint n = 0; n <= 2; n++) {
        g_autoptr(GPtrArray) some = g_ptr_array_new();
        for (guint i = 0; i < MIN(n * 6, records->len); i++)
            g_ptr_array_add(some, g_ptr_array_index(records, i));
        g_autofree gchar *text = vn_ledger_format(some, 41);
        g_autoptr(JsonNode) root = json_from_string(text, NULL);
        g_assert_nonnull(root);
        g_autofree gchar *regenerated = json_to_string(root, FALSE);
        g_autofree gchar *with_newline = g_strconcat(regenerated, "\n", NULL);
        g_assert_cmpstr(text, ==, with_newline);
    }
}

/* ledger.json replaced behind vnuma's back (as an operator restoring a
 * copy would): the cache, derived from the old file, is not believed. */
static void
test_stale_after_edit(void)
{
    g_autofree gchar *dir = committed_dir();
    g_autofree gchar *json = path_in(dir, "ledger.json");
    g_autoptr(GPtrArray) one =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_ptr_array_add(one, make_record(99));
    g_autofree gchar *text = vn_ledger_format(one, 5);
    g_assert_true(g_file_set_contents(json, text, -1, NULL));

    g_assert_null(cache_records(dir, NULL));
    g_autoptr(VnLedger) snap = vn_ledger_snapshot(dir, NULL);
    g_assert_nonnull(snap);
    g_assert_cmpuint(vn_ledger_records(snap)->len, ==, 1);
    g_assert_cmpuint(vn_ledger_generation(snap), ==, 5);
    /* a snapshot holds no lock and leaves the stale cache alone; a
     * ledger opened for a change writes a cache of today's file */
    g_assert_null(cache_records(dir, NULL));
    {
        g_autoptr(VnLedger) l = vn_ledger_open(dir, NULL);
        g_autofree gchar *a = text_of(l);
        g_autofree gchar *b = text_of(snap);
        g_assert_cmpstr(a, ==, b);
    }
    g_autoptr(GPtrArray) cached = cache_records(dir, NULL);
    g_assert_nonnull(cached);
    g_assert_cmpuint(cached->len, ==, 1);
    remove_dir(dir);
}

/* A damaged or foreign cache: the ledger reads from ledger.json as if
 * there were no cache. */
static void
test_damaged_cache(void)
{
    g_autofree gchar *dir = committed_dir();
    g_autofree gchar *cache = path_in(dir, "ledger.cache");
    g_autofree gchar *good = NULL;
    gsize len = 0;
    g_autofree gchar *expected = NULL;

    g_assert_true(g_file_get_contents(cache, &good, &len, NULL));
    {
        g_autoptr(VnLedger) l = vn_ledger_snapshot(dir, NULL);
        expected = text_of(l);
    }
    for (gsize at = 0; at < len; at += len / 97 + 1) {
        g_autofree gchar *bad = g_memdup2(good, len);
        bad[at] ^= 0x21;
        g_assert_true(g_file_set_contents(cache, bad, (gssize)len, NULL));
        g_assert_null(cache_records(dir, NULL));
        g_autoptr(VnLedger) l = vn_ledger_snapshot(dir, NULL);
        g_assert_nonnull(l);
        g_autofree gchar *got = text_of(l);
        g_assert_cmpstr(got, ==, expected);
    }
    g_assert_true(g_file_set_contents(cache, good, (gssize)len / 2, NULL));
    g_assert_null(cache_records(dir, NULL));
    g_assert_true(g_file_set_contents(cache, "{\"version\":1}", -1, NULL));
    g_assert_null(cache_records(dir, NULL));
    remove_dir(dir);
}

/* Every kind of check in the reader, on caches vn_ledger_cache_build()
 * makes from records no ledger.json could hold. */
static void
test_refuses_what_json_would(void)
{
    VnLedgerStamp stamp = { 1, 2, 3, 4, 5 };
    g_autoptr(GPtrArray) texts = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) records =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_ptr_array_add(records, make_record(1));
    g_ptr_array_add(records, make_record(2));
    g_ptr_array_add(texts, g_strdup("{\"a\":1}"));
    g_ptr_array_add(texts, g_strdup("{\"b\":2}"));
    for (guint c = 0; c < 6; c++) {
        VnLedgerRecord *r = g_ptr_array_index(records, 1);
        g_autoptr(GPtrArray) got = NULL;
        g_autoptr(GHashTable) as_read = NULL;
        guint64 generation;
        gint64 time = r->time;
        guint state = r->state;
        VnLedgerStamp other = stamp;
        switch (c) {
        case 0: /* as built: accepted */
            break;
        case 1:
            r->time = -1;
            break;
        case 2:
            r->state = VN_LEDGER_STATE_MAX;
            break;
        case 3:
            g_free(r->uuid);
            r->uuid = g_strdup(((VnLedgerRecord *)g_ptr_array_index(records, 0))->uuid);
            break;
        case 4:
            other.ino++;
            break;
        case 5:
            g_array_index(r->cells, VnLedgerCell, 0).node_os_id = G_MAXUINT16 + 1;
            break;
        }
        g_autoptr(GBytes) cache = vn_ledger_cache_build(&stamp, 7, records, texts);
        gboolean ok = vn_ledger_cache_parse(cache, &other, &got, &generation, &as_read);
        g_assert_true(ok == (c == 0));
        if (ok)
            g_assert_cmpuint(got->len, ==, 2);
        r->time = time;
        r->state = state;
        if (c == 3) {
            g_free(r->uuid);
            r->uuid = g_strdup("00000000-0000-0000-0000-000000000002");
        }
        if (c == 5)
            g_array_index(r->cells, VnLedgerCell, 0).node_os_id = 3;
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/ledger-cache/same-as-json", test_same_as_json);
    g_test_add_func("/ledger-cache/text-is-json-glib-form", test_text_is_json_glib_form);
    g_test_add_func("/ledger-cache/stale-after-edit", test_stale_after_edit);
    g_test_add_func("/ledger-cache/damaged", test_damaged_cache);
    g_test_add_func("/ledger-cache/refuses-what-json-would", test_refuses_what_json_would);
    return g_test_run();
}
