/* test-config.c: vn_config_load() on the files of tests/data/config. */
#include "vn-config.h"
#include "vn-config-build.h"
#include "vn-cpulist.h"
#include "vn-test-fixture.h"

static VnConfig *
load_ok(const gchar *name, const VnTopology *t)
{
    g_autofree gchar *path = vn_test_data_path("config", name, NULL);
    g_autoptr(GError) error = NULL;
    VnConfig *c = vn_config_load(path, t, &error);

    g_assert_no_error(error);
    g_assert_nonnull(c);
    g_assert_cmpstr(c->path, ==, path);
    return c;
}

/* What a config holds, field by field. */
typedef struct {
    const gchar *reserved_cpus; /* cpulist, "" for none */
    guint64 reserved_memory_kib, overhead_base_kib, overhead_per_gib_kib;
    guint headroom_percent;
    gdouble cpu_overcommit;
    VnMemoryMode memory_mode;
    VnBalance balance;
    VnHookManage hook_manage;
    VnHookConflict hook_on_conflict;
    gboolean hook_strict;
    const gchar *state_dir;
} ConfigValues;

/* The defaults and tests/data/config/full.conf: reserved_cpus,
 * reserved_memory_kib, overhead_base_kib, overhead_per_gib_kib,
 * headroom_percent, cpu_overcommit, memory_mode, balance, hook_manage,
 * hook_on_conflict, hook_strict, state_dir. */
enum {
    DEFAULTS,
    FULL
};
static const ConfigValues values[] = {
    [DEFAULTS] = { "", 0, 32 * 1024, 8 * 1024, 5, 4.0, VN_MEMORY_MODE_AUTO, VN_BALANCE_ADAPTIVE,
                   VN_HOOK_MANAGE_ALL, VN_HOOK_CONFLICT_REPLAN, FALSE, VNUMA_DEFAULT_STATE_DIR },
    [FULL] = { "0,4", 2 * 1024 * 1024, 64 * 1024, 16384, 10, 2.5, VN_MEMORY_MODE_STRICT,
               VN_BALANCE_MEMORY_PACKING, VN_HOOK_MANAGE_OPTED_IN, VN_HOOK_CONFLICT_REFUSE, TRUE,
               "/var/lib/vnuma-test" },
};

static void
assert_values(const VnConfig *c, const ConfigValues *v)
{
    g_autofree gchar *reserved = vn_cpulist_format(c->policy->reserved_cpus);

    g_assert_cmpstr(reserved, ==, v->reserved_cpus);
    g_assert_cmpuint(c->policy->reserved_memory_kib, ==, v->reserved_memory_kib);
    g_assert_cmpuint(c->policy->overhead_base_kib, ==, v->overhead_base_kib);
    g_assert_cmpuint(c->policy->overhead_per_gib_kib, ==, v->overhead_per_gib_kib);
    g_assert_cmpuint(c->policy->headroom_percent, ==, v->headroom_percent);
    g_assert_cmpfloat(c->policy->cpu_overcommit, ==, v->cpu_overcommit);
    g_assert_cmpint(c->memory_mode, ==, v->memory_mode);
    g_assert_cmpint(c->policy->balance, ==, v->balance);
    g_assert_cmpint(c->hook_manage, ==, v->hook_manage);
    g_assert_cmpint(c->hook_on_conflict, ==, v->hook_on_conflict);
    g_assert_cmpint(c->hook_strict, ==, v->hook_strict);
    g_assert_cmpstr(c->state_dir, ==, v->state_dir);
}

static void
assert_defaults(const VnConfig *c)
{
    assert_values(c, &values[DEFAULTS]);
}

static void
test_config_full(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = load_ok("full.conf", t);

    assert_values(c, &values[FULL]);
}

static void
test_config_empty(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = load_ok("empty.conf", t);

    assert_defaults(c);
}

static void
test_config_zero(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = load_ok("zero.conf", t);

    g_assert_true(vn_bitmap_is_empty(c->policy->reserved_cpus));
    g_assert_cmpuint(c->policy->reserved_memory_kib, ==, 0);
    g_assert_cmpuint(c->policy->overhead_base_kib, ==, 0);
    g_assert_cmpuint(c->policy->overhead_per_gib_kib, ==, 0);
    g_assert_cmpuint(c->policy->headroom_percent, ==, 0);
}

/* No file named and none at the default place: the defaults. */
static void
test_config_default_missing(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = NULL;
    g_autoptr(GError) error = NULL;

    if (g_file_test(VNUMA_DEFAULT_CONFIG, G_FILE_TEST_EXISTS)) {
        g_test_skip(VNUMA_DEFAULT_CONFIG " exists on this host");
        return;
    }
    g_unsetenv("VNUMA_CONFIG");
    c = vn_config_load(NULL, t, &error);
    g_assert_no_error(error);
    g_assert_null(c->path);
    assert_defaults(c);
}

static void
test_config_env(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autofree gchar *path = vn_test_data_path("config", "full.conf", NULL);
    g_autofree gchar *missing = vn_test_data_path("config", "missing.conf", NULL);
    g_autoptr(VnConfig) c = NULL;
    g_autoptr(GError) error = NULL;

    g_setenv("VNUMA_CONFIG", path, TRUE);
    g_setenv("VNUMA_STATE_DIR", "/tmp/vnuma-state", TRUE);
    c = vn_config_load(NULL, t, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(c->path, ==, path);
    g_assert_cmpint(c->memory_mode, ==, VN_MEMORY_MODE_STRICT);
    /* the environment beats the file */
    g_assert_cmpstr(c->state_dir, ==, "/tmp/vnuma-state");
    g_unsetenv("VNUMA_STATE_DIR");

    /* a file named through the environment must exist */
    g_setenv("VNUMA_CONFIG", missing, TRUE);
    g_assert_null(vn_config_load(NULL, t, &error));
    g_assert_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_READ);
    g_assert_true(g_str_has_prefix(error->message, missing));
    g_unsetenv("VNUMA_CONFIG");
}

static void
test_config_enum_strings(void)
{
    for (gint m = 0; m < VN_MEMORY_MODE_MAX; m++)
        g_assert_cmpint(vn_memory_mode_from_string(vn_memory_mode_to_string(m)), ==, m);
    for (gint m = 0; m < VN_HOOK_MANAGE_MAX; m++)
        g_assert_cmpint(vn_hook_manage_from_string(vn_hook_manage_to_string(m)), ==, m);
    for (gint m = 0; m < VN_HOOK_CONFLICT_MAX; m++)
        g_assert_cmpint(vn_hook_conflict_from_string(vn_hook_conflict_to_string(m)), ==, m);
    g_assert_cmpstr(vn_hook_manage_to_string(VN_HOOK_MANAGE_OPTED_IN), ==, "opted-in");
    for (gint b = 0; b < VN_BALANCE_MAX; b++) {
        VnBalance back;
        g_assert_true(vn_balance_from_string(vn_balance_to_string(b), &back));
        g_assert_cmpint(back, ==, b);
        g_assert_cmpstr(vn_balance_names()[b], ==, vn_balance_to_string(b));
    }
    g_assert_null(vn_balance_names()[VN_BALANCE_MAX]);
    g_assert_cmpstr(vn_balance_to_string(VN_BALANCE_MEMORY_PACKING), ==, "memory-packing");
    g_assert_false(vn_balance_from_string("spread", &(VnBalance){ 0 }));
    g_assert_cmpint(vn_memory_mode_from_string("interleave"), ==, -1);
    g_assert_cmpint(vn_memory_mode_from_string(NULL), ==, -1);
}

typedef struct {
    const gchar *file;
    gint code;
    const gchar *message; /* after "<path>: "; NULL: not pinned */
} BadConfigCase;

static const BadConfigCase bad_cases[] = {
    { "bad-size.conf", VN_CONFIG_ERROR_INVALID,
      "[host] reserved_memory: invalid size \"12X\": unknown suffix \"X\" (use K, M, G or T; a "
      "plain number is MiB)" },
    { "bad-negative-size.conf", VN_CONFIG_ERROR_INVALID,
      "[host] reserved_memory: invalid size \"-1G\": expected a positive whole number with an "
      "optional K, M, G or T suffix" },
    { "bad-cpus-range.conf", VN_CONFIG_ERROR_INVALID, NULL },
    { "bad-cpus-text.conf", VN_CONFIG_ERROR_INVALID, NULL },
    { "bad-headroom.conf", VN_CONFIG_ERROR_INVALID,
      "[host] headroom_percent: \"95\" is not a whole number from 0 to 90" },
    { "bad-headroom-text.conf", VN_CONFIG_ERROR_INVALID,
      "[host] headroom_percent: \"five\" is not a whole number from 0 to 90" },
    { "bad-overcommit-zero.conf", VN_CONFIG_ERROR_INVALID,
      "[host] cpu_overcommit: \"0\" is not a number above 0 and at most 64" },
    { "bad-overcommit-text.conf", VN_CONFIG_ERROR_INVALID,
      "[host] cpu_overcommit: \"4x\" is not a number above 0 and at most 64" },
    { "bad-memory-mode.conf", VN_CONFIG_ERROR_INVALID,
      "[placement] memory_mode: \"preferred\" is not one of restrictive, strict, auto" },
    { "bad-defragment.conf", VN_CONFIG_ERROR_INVALID,
      "[placement] defragment: \"yes\" is not one of off, propose, apply" },
    { "bad-consolidate.conf", VN_CONFIG_ERROR_INVALID,
      "[placement] consolidate: \"yes\" is not one of off, propose, apply" },
    { "bad-balance.conf", VN_CONFIG_ERROR_INVALID,
      "[placement] balance: \"spread\" is not one of load, memory-packing, keep-hole, adaptive" },
    { "bad-balance-empty.conf", VN_CONFIG_ERROR_INVALID,
      "[placement] balance: \"\" is not one of load, memory-packing, keep-hole, adaptive" },
    { "bad-manage.conf", VN_CONFIG_ERROR_INVALID,
      "[hook] manage: \"some\" is not one of opted-in, all, none" },
    { "bad-conflict.conf", VN_CONFIG_ERROR_INVALID,
      "[hook] on_conflict: \"retry\" is not one of replan, refuse, ignore" },
    { "bad-strict.conf", VN_CONFIG_ERROR_INVALID, "[hook] strict: \"maybe\" is not true or false" },
    { "bad-state-dir.conf", VN_CONFIG_ERROR_INVALID,
      "[paths] state_dir: \"run/vnuma\" is not an absolute path" },
    { "bad-unknown-key.conf", VN_CONFIG_ERROR_UNKNOWN, "[host] unknown key \"reserved_cpu\"" },
    { "bad-unknown-group.conf", VN_CONFIG_ERROR_UNKNOWN, "unknown group [hosts]" },
    { "bad-syntax.conf", VN_CONFIG_ERROR_READ, NULL },
    { "bad-not-utf8.conf", VN_CONFIG_ERROR_READ, "line 3: not UTF-8 text" },
    /* found by fuzz-config: GKeyFile gave "1-" and an error, and reading
     * "1-" set a second error over it (a GLib warning) */
    { "bad-escape.conf", VN_CONFIG_ERROR_INVALID, NULL },
    /* found by fuzz-config: a bad escape, then a backslash at the end of
     * the line: GLib 2.74 set its GError twice (a warning) */
    { "bad-trailing-backslash.conf", VN_CONFIG_ERROR_INVALID,
      "[api] bearer_token: ends in a backslash with nothing after it to escape" },
    { "bad-token-newline.conf", VN_CONFIG_ERROR_INVALID,
      "[api] bearer_token: holds a control character (0x0a, from an escape such as \\n or \\t): "
      "a value is one line of text" },
    { "bad-key-with-tab.conf", VN_CONFIG_ERROR_UNKNOWN, "[host] unknown key \"reserved\\tcpus\"" },
    { "no-such-file.conf", VN_CONFIG_ERROR_READ, NULL },
};

static void
test_config_bad(gconstpointer data)
{
    const BadConfigCase *c = data;
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(GError) error = NULL;
    g_autofree gchar *path = vn_test_data_path("config", c->file, NULL);
    g_autofree gchar *prefix = g_strdup_printf("%s: ", path);

    g_assert_null(vn_config_load(path, t, &error));
    g_assert_error(error, VN_CONFIG_ERROR, c->code);
    g_test_message("%s", error->message);
    g_assert_true(g_str_has_prefix(error->message, prefix));
    g_assert_null(strchr(error->message, '\n'));
    g_assert_true(g_utf8_validate(error->message, -1, NULL));
    if (c->message)
        g_assert_cmpstr(error->message + strlen(prefix), ==, c->message);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plugin/config/full", test_config_full);
    g_test_add_func("/plugin/config/empty", test_config_empty);
    g_test_add_func("/plugin/config/zero", test_config_zero);
    g_test_add_func("/plugin/config/default-missing", test_config_default_missing);
    g_test_add_func("/plugin/config/env", test_config_env);
    g_test_add_func("/plugin/config/enum-strings", test_config_enum_strings);
    for (gsize i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
        g_autofree gchar *name = g_strdup_printf("/plugin/config/bad/%s", bad_cases[i].file);
        g_test_add_data_func(name, &bad_cases[i], test_config_bad);
    }
    return g_test_run();
}
