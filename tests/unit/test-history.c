/* test-history.c: the decision history file and the status warning levels. */
#include "vn-history.h"
#include "vn-status.h"

#include <string.h>
#include <glib/gstdio.h>

static void
test_append_read(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-history-XXXXXX", NULL);
    g_autofree gchar *state = g_build_filename(dir, "state", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) all = NULL;
    g_autoptr(GPtrArray) last = NULL;

    for (guint i = 0; i < 5; i++) {
        g_autofree gchar *vm = g_strdup_printf("vm%u", i);
        g_autoptr(VnHistoryEntry) e = vn_history_entry_new("2026-11-29T21:00:00Z", vm, "rebalance",
                                                           "moved", "0,1", "quote \" and\nnewline");
        g_assert_true(vn_history_append(state, e, &error));
        g_assert_no_error(error);
    }
    all = vn_history_read(state, 0, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(all->len, ==, 5);
    last = vn_history_read(state, 2, &error);
    g_assert_cmpuint(last->len, ==, 2);
    g_assert_cmpstr(((VnHistoryEntry *)g_ptr_array_index(last, 0))->vm, ==, "vm3");
    g_assert_cmpstr(((VnHistoryEntry *)g_ptr_array_index(last, 1))->reason, ==,
                    "quote \" and\nnewline");
    {
        g_autofree gchar *p = g_build_filename(state, VN_HISTORY_FILE, NULL);
        g_autofree gchar *old = g_strconcat(p, ".1", NULL);
        g_autoptr(GPtrArray) rotated = NULL;
        /* a rotated generation comes first */
        g_assert_cmpint(g_rename(p, old), ==, 0);
        g_assert_true(vn_history_append(state, g_ptr_array_index(all, 0), &error));
        rotated = vn_history_read(state, 0, &error);
        g_assert_cmpuint(rotated->len, ==, 6);
        g_assert_cmpstr(((VnHistoryEntry *)g_ptr_array_index(rotated, 5))->vm, ==, "vm0");
        g_unlink(old);
        g_unlink(p);
    }
    g_rmdir(state);
    g_rmdir(dir);
}

static void
test_parse_errors(void)
{
    const struct {
        const gchar *line;
        const gchar *message;
    } cases[] = {
        { "[1]", "h:1: not a JSON object" },
        { "{\"time\":\"t\",\"vm\":\"a\"}", "h:1: \"decision\" is missing" },
        { "{\"time\":\"t\",\"vm\":1,\"decision\":\"x\"}", "h:1: \"vm\" is not a string" },
        { "{\"time\":\"t\",\"vm\":\"a\",\"decision\":\"x\"}{}",
          "h:1: trailing data after the JSON value at byte offset 36" },
        { "{\"time\":\"t\",\"vm\":\"a\",\"vm\":\"b\",\"decision\":\"x\"}",
          "h:1: member \"vm\" given twice in one object" },
        { "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
          "h:1: nesting deeper than 64 levels at byte offset 64" },
    };
    g_autoptr(VnHistoryEntry) ok = vn_history_parse_line(
        "{\"time\":\"t\",\"vm\":\"a\",\"decision\":\"x\",\"extra\":3}", "h:1", NULL);

    g_assert_nonnull(ok);
    g_assert_cmpstr(ok->nodes, ==, "");
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnHistoryEntry) e = vn_history_parse_line(cases[i].line, "h:1", &error);
        g_assert_null(e);
        g_assert_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE);
        g_assert_cmpstr(error->message, ==, cases[i].message);
    }
    {
        g_autoptr(GError) error = NULL;
        g_autoptr(VnHistoryEntry) e = vn_history_parse_line("{", "h:9", &error);
        g_assert_null(e);
        g_assert_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE);
        g_assert_true(g_str_has_prefix(error->message, "h:9: not JSON"));
    }
}

/* numa_miss share: above 5 % worth a look, above 10 % a problem. */
static void
test_miss_levels(void)
{
    g_assert_cmpint(vn_status_miss_level(-1), ==, VN_STATUS_LEVEL_UNKNOWN);
    g_assert_cmpint(vn_status_miss_level(0), ==, VN_STATUS_LEVEL_OK);
    g_assert_cmpint(vn_status_miss_level(0.05), ==, VN_STATUS_LEVEL_OK);
    g_assert_cmpint(vn_status_miss_level(0.0501), ==, VN_STATUS_LEVEL_LOOK);
    g_assert_cmpint(vn_status_miss_level(0.10), ==, VN_STATUS_LEVEL_LOOK);
    g_assert_cmpint(vn_status_miss_level(0.1001), ==, VN_STATUS_LEVEL_PROBLEM);
    g_assert_cmpstr(vn_status_level_to_string(VN_STATUS_LEVEL_PROBLEM), ==, "problem");
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/history/append-read", test_append_read);
    g_test_add_func("/history/parse-errors", test_parse_errors);
    g_test_add_func("/status/miss-levels", test_miss_levels);
    return g_test_run();
}
