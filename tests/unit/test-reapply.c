/* test-reapply.c: vnumad's re-apply bookkeeping (vn-ledger-reapply.h),
 * without libvirt: which needs_apply records are due, when it gives up
 * and starts again; and the per-record apply lock (vn-apply-lock.h). */
#include <string.h>
#include <glib/gstdio.h>
#include "vn-apply-lock.h"
#include "vn-ledger-reapply.h"

#define GRACE 10000 /* ms */

static VnLedgerRecord *
record(const gchar *uuid, const gchar *name, gboolean needs_apply)
{
    VnLedgerRecord *r = vn_ledger_record_new(uuid, name);

    r->state = VN_LEDGER_STATE_RUNNING;
    r->needs_apply = needs_apply;
    r->time = 1764450000;
    vn_ledger_record_add_cell(r, 0, 1, 2, "4-5", 1024 * 1024);
    return r;
}

static GPtrArray *
records(void)
{
    return g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
}

/* The names of the records due at `now`, joined by ",". */
static gchar *
due_names(VnReapply *t, GPtrArray *recs, gint64 now)
{
    g_autoptr(GPtrArray) due = vn_reapply_due(t, recs, now, GRACE);
    g_autoptr(GString) s = g_string_new(NULL);

    for (guint i = 0; i < due->len; i++)
        g_string_append_printf(s, "%s%s", i ? "," : "",
                               ((VnLedgerRecord *)g_ptr_array_index(due, i))->name);
    return g_string_free(g_steal_pointer(&s), FALSE);
}

#define ASSERT_DUE(t, recs, now, expected)                                                         \
    do {                                                                                           \
        g_autofree gchar *got_ = due_names(t, recs, now);                                          \
        g_assert_cmpstr(got_, ==, expected);                                                       \
    } while (0)

/* Due from the sample at least the grace after the first sight, not
 * before: the hook's own detached apply goes first. */
static void
test_due_after_grace(void)
{
    g_autoptr(VnReapply) t = vn_reapply_new(3);
    g_autoptr(GPtrArray) recs = records();

    g_ptr_array_add(recs, record("u-a", "a", TRUE));
    ASSERT_DUE(t, recs, 100000, "");
    ASSERT_DUE(t, recs, 100000 + GRACE - 1, "");
    ASSERT_DUE(t, recs, 100000 + GRACE, "a");
    ASSERT_DUE(t, recs, 100000 + 5 * GRACE, "a");
}

/* Only running VMs' records with needs_apply: not applied ones, holds,
 * starts in progress, VMs another manager pins. */
static void
test_due_filters(void)
{
    g_autoptr(VnReapply) t = vn_reapply_new(3);
    g_autoptr(GPtrArray) recs = records();
    VnLedgerRecord *r;

    g_ptr_array_add(recs, record("u-applied", "applied", FALSE));
    r = record("u-starting", "starting", TRUE);
    r->state = VN_LEDGER_STATE_RESERVED;
    g_ptr_array_add(recs, r);
    r = record("reservation:1", "held", TRUE);
    r->expires = 1764450300;
    g_ptr_array_add(recs, r);
    r = record("u-foreign", "foreign", TRUE);
    r->foreign = TRUE;
    g_ptr_array_add(recs, r);
    g_ptr_array_add(recs, record("u-due", "due", TRUE));
    ASSERT_DUE(t, recs, 0, "");
    ASSERT_DUE(t, recs, GRACE, "due");
}

/* N failures in a row: retry, retry, give up; then never due until the
 * record changes, when its count starts again. */
static void
test_gives_up_until_changed(void)
{
    g_autoptr(VnReapply) t = vn_reapply_new(3);
    g_autoptr(GPtrArray) recs = records();
    VnLedgerRecord *r = record("u-a", "a", TRUE);
    guint failures = 0;
    gint64 now = 0;

    g_ptr_array_add(recs, r);
    ASSERT_DUE(t, recs, now, "");
    for (guint i = 1; i <= 3; i++) {
        now += GRACE;
        ASSERT_DUE(t, recs, now, "a");
        g_assert_cmpint(vn_reapply_note(t, r, FALSE, &failures), ==,
                        i < 3 ? VN_REAPPLY_RETRY : VN_REAPPLY_GAVE_UP);
        g_assert_cmpuint(failures, ==, i);
    }
    g_assert_cmpuint(vn_reapply_given_up(t), ==, 1);
    ASSERT_DUE(t, recs, now + GRACE, "");
    ASSERT_DUE(t, recs, now + 100 * GRACE, "");
    /* the hook writes it anew (another cell): a new record, a new count */
    g_free(g_array_index(r->cells, VnLedgerCell, 0).cpus);
    g_array_index(r->cells, VnLedgerCell, 0).cpus = g_strdup("6-7");
    now += 200 * GRACE;
    ASSERT_DUE(t, recs, now, "");
    g_assert_cmpuint(vn_reapply_given_up(t), ==, 0);
    ASSERT_DUE(t, recs, now + GRACE, "a");
    g_assert_cmpint(vn_reapply_note(t, r, FALSE, &failures), ==, VN_REAPPLY_RETRY);
    g_assert_cmpuint(failures, ==, 1);
    g_assert_cmpstr(vn_reapply_outcome_to_string(VN_REAPPLY_GAVE_UP), ==, "gave-up");
}

/* A success forgets the record's failures; a record that leaves the
 * ledger (the VM stopped) or no longer needs applying is forgotten. */
static void
test_forgets(void)
{
    g_autoptr(VnReapply) t = vn_reapply_new(2);
    g_autoptr(GPtrArray) recs = records();
    VnLedgerRecord *a = record("u-a", "a", TRUE);
    VnLedgerRecord *b = record("u-b", "b", TRUE);
    guint failures = 7;

    g_ptr_array_add(recs, a);
    g_ptr_array_add(recs, b);
    ASSERT_DUE(t, recs, 0, "");
    ASSERT_DUE(t, recs, GRACE, "a,b");
    g_assert_cmpint(vn_reapply_note(t, a, FALSE, NULL), ==, VN_REAPPLY_RETRY);
    g_assert_cmpint(vn_reapply_note(t, a, TRUE, &failures), ==, VN_REAPPLY_APPLIED);
    g_assert_cmpuint(failures, ==, 0);
    g_assert_cmpint(vn_reapply_note(t, b, FALSE, NULL), ==, VN_REAPPLY_RETRY);
    g_assert_cmpint(vn_reapply_note(t, b, FALSE, NULL), ==, VN_REAPPLY_GAVE_UP);
    g_assert_cmpuint(vn_reapply_given_up(t), ==, 1);
    /* a applied by vnumactl: its flag cleared in the next snapshot; b gone */
    a->needs_apply = FALSE;
    g_ptr_array_remove(recs, b);
    ASSERT_DUE(t, recs, 2 * GRACE, "");
    g_assert_cmpuint(vn_reapply_given_up(t), ==, 0);
    /* b back with the same record: a first sight again */
    g_ptr_array_add(recs, record("u-b", "b", TRUE));
    ASSERT_DUE(t, recs, 3 * GRACE, "");
    ASSERT_DUE(t, recs, 4 * GRACE, "b");
}

/* The apply lock: held while taken (another open file, as another
 * process's), refused to a second taker, free after release. */
static void
test_apply_lock(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *dir = g_dir_make_tmp("vn-reapply-XXXXXX", &error);
    g_autofree gchar *file = NULL;
    g_autoptr(VnApplyLock) lock = NULL;
    VnApplyLock *second;

    g_assert_no_error(error);
    g_assert_false(vn_apply_lock_held(dir, "u-a"));
    lock = vn_apply_lock_take(dir, "u-a", 0, &error);
    g_assert_no_error(error);
    g_assert_nonnull(lock);
    g_assert_true(vn_apply_lock_held(dir, "u-a"));
    g_assert_false(vn_apply_lock_held(dir, "u-b"));
    second = vn_apply_lock_take(dir, "u-a", 200, &error);
    g_assert_null(second);
    g_assert_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_LOCK);
    g_assert_nonnull(strstr(error->message, "another apply of this record still runs"));
    g_clear_error(&error);
    g_clear_pointer(&lock, vn_apply_lock_release);
    g_assert_false(vn_apply_lock_held(dir, "u-a"));
    g_assert_null(vn_apply_lock_take(dir, "../u-a", 0, &error));
    g_assert_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT);
    file = g_build_filename(dir, "apply-u-a.lock", NULL);
    g_assert_cmpint(g_unlink(file), ==, 0);
    g_assert_cmpint(g_rmdir(dir), ==, 0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/reapply/due/after-grace", test_due_after_grace);
    g_test_add_func("/reapply/due/filters", test_due_filters);
    g_test_add_func("/reapply/gives-up-until-changed", test_gives_up_until_changed);
    g_test_add_func("/reapply/forgets", test_forgets);
    g_test_add_func("/reapply/apply-lock", test_apply_lock);
    return g_test_run();
}
