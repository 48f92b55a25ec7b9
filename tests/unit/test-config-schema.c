/* test-config-schema.c: the rows of vnuma.conf's schema, and vnumad's
 * SIGHUP diff over them (vn_config_diff()). */
#include <string.h>
#include "vn-config-diff.h"
#include "vn-config-schema.h"
#include "vn-test-fixture.h"

/* Every config below sets a token: a row's example may add tcp_listen. */
static const gchar base_text[] = "[api]\nbearer_token = 0123456789abcdef\n";

/* base_text with row `k` set to its example (a domain "vm1" for a group
 * of names). */
static VnConfig *
load_with_example(const VnConfigKey *k)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) error = NULL;
    g_autofree gchar *text = NULL;
    VnConfig *c;

    g_assert_true(g_key_file_load_from_data(kf, base_text, -1, G_KEY_FILE_NONE, NULL));
    g_key_file_set_value(kf, k->group, k->key ? k->key : "vm1", k->example);
    text = g_key_file_to_data(kf, NULL, NULL);
    c = vn_test_config_from_text(text, &error);
    g_assert_no_error(error);
    return c;
}

static VnConfig *
load_base(void)
{
    g_autoptr(GError) error = NULL;
    VnConfig *c = vn_test_config_from_text(base_text, &error);

    g_assert_no_error(error);
    return c;
}

static gchar *
texts(GPtrArray *a)
{
    GString *out = g_string_new(NULL);

    for (guint i = 0; i < a->len; i++)
        g_string_append_printf(out, "%s%s", i ? ", " : "", (const gchar *)a->pdata[i]);
    return g_string_free(out, FALSE);
}

/* A file differing from the running one in row `k` only: the diff names
 * that key and nothing else, as changed (old -> new) when it applies at
 * once, as kept when it needs a restart; and keeping the running values
 * leaves no difference for a restart key. */
static void
test_reload_key(gconstpointer data)
{
    const VnConfigKey *k = data;
    g_autoptr(VnConfig) running = load_base();
    g_autoptr(VnConfig) next = load_with_example(k);
    g_autoptr(VnConfigDiff) diff = vn_config_diff(running, next);
    g_autofree gchar *name = vn_config_key_name(k);
    g_autofree gchar *changed = texts(diff->changed), *kept = texts(diff->kept);
    g_autofree gchar *was = vn_config_key_format(k, running), *now = vn_config_key_format(k, next);

    g_test_message("changed: %s; kept: %s", changed, kept);
    if (k->reload == VN_CONFIG_RELOAD_RESTART) {
        g_assert_cmpstr(changed, ==, "");
        g_assert_cmpstr(kept, ==, name);
        vn_config_diff_keep_running(diff, running, next);
        g_autoptr(VnConfigDiff) after = vn_config_diff(running, next);
        g_assert_cmpuint(after->changed->len + after->kept->len, ==, 0);
        return;
    }
    g_assert_cmpstr(kept, ==, "");
    if (k->terse) {
        g_autofree gchar *expected = g_strdup_printf("%s changed", name);
        g_assert_cmpstr(changed, ==, expected);
    } else {
        g_autofree gchar *expected =
            g_strdup_printf("%s %s -> %s", name, *was ? was : "(none)", now);
        g_assert_cmpstr(changed, ==, expected);
    }
}

/* The acceptance case spelled out: only [placement] balance changes. */
static void
test_reload_balance(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) running = vn_test_config_from_text("", &error);
    g_autoptr(VnConfig) next =
        vn_test_config_from_text("[placement]\nbalance = memory-packing\n", &error);
    g_autoptr(VnConfigDiff) diff = vn_config_diff(running, next);

    g_assert_no_error(error);
    g_assert_cmpuint(diff->changed->len, ==, 1);
    g_assert_cmpstr(diff->changed->pdata[0], ==, "[placement] balance adaptive -> memory-packing");
    g_assert_cmpuint(diff->kept->len, ==, 0);
}

/* A token that comes with a new tcp_listen belongs to a listener not yet
 * bound: both wait for the restart, and both keep their running value. */
static void
test_reload_token_with_tcp(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) running = vn_test_config_from_text(base_text, &error);
    g_autoptr(VnConfig) next = vn_test_config_from_text(
        "[api]\ntcp_listen = 127.0.0.1:8470\nbearer_token = fedcba9876543210\n", &error);
    g_autoptr(VnConfigDiff) diff = vn_config_diff(running, next);
    g_autofree gchar *kept = texts(diff->kept);

    g_assert_no_error(error);
    g_assert_cmpuint(diff->changed->len, ==, 0);
    g_assert_cmpstr(kept, ==, "[api] tcp_listen, [api] bearer_token");
    vn_config_diff_keep_running(diff, running, next);
    g_assert_null(next->api_tcp_listen);
    g_assert_cmpstr(next->api_bearer_token, ==, "0123456789abcdef");
}

/* The rows are well formed: one row per key, every default and example
 * read by its own row, a restart_with key that exists. */
static void
test_rows(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = vn_config_new_default(t);
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    for (gsize i = 0; i < n; i++) {
        const VnConfigKey *k = &schema[i];
        g_autofree gchar *name = vn_config_key_name(k);
        g_autoptr(GError) error = NULL;

        g_test_message("%s", name);
        g_assert_true(vn_config_schema_find(k->group, k->key) == k);
        g_assert_cmpint(k->kind, <, VN_CONFIG_KIND_MAX);
        g_assert_true((k->kind == VN_CONFIG_KIND_CHOICE) == (k->names != NULL));
        g_assert_true((k->key == NULL) == (k->kind == VN_CONFIG_KIND_DATAPLANE));
        g_assert_true(k->kind == VN_CONFIG_KIND_DATAPLANE || k->default_text != NULL);
        g_assert_nonnull(k->example);
        g_assert_true(vn_config_key_read(k, k->key ? k->key : "vm1", k->example, t, c, &error));
        g_assert_no_error(error);
        if (k->restart_with)
            g_assert_nonnull(vn_config_schema_find(k->group, k->restart_with));
        if (k->kind == VN_CONFIG_KIND_UINT)
            g_assert_cmpuint(k->min, <=, k->max);
    }
}

/* The policy part of the defaults agrees with the core's own defaults
 * (vn_policy_new_default(), used where no config is read). */
static void
test_policy_defaults(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = vn_config_new_default(t);
    VnConfig core = { .policy = vn_policy_new_default(t) };
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    for (gsize i = 0; i < n; i++) {
        g_autofree gchar *mine = NULL, *theirs = NULL;

        if (!schema[i].in_policy)
            continue;
        mine = vn_config_key_format(&schema[i], c);
        theirs = vn_config_key_format(&schema[i], &core);
        g_test_message("[%s] %s: %s", schema[i].group, schema[i].key, mine);
        g_assert_cmpstr(mine, ==, theirs);
    }
    vn_policy_free(core.policy);
}

int
main(int argc, char **argv)
{
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/config/schema/rows", test_rows);
    g_test_add_func("/config/schema/policy-defaults", test_policy_defaults);
    g_test_add_func("/config/schema/reload/balance-only", test_reload_balance);
    g_test_add_func("/config/schema/reload/token-with-tcp", test_reload_token_with_tcp);
    for (gsize i = 0; i < n; i++) {
        g_autofree gchar *path = g_strdup_printf("/config/schema/reload/key/%s/%s", schema[i].group,
                                                 schema[i].key ? schema[i].key : "any");
        g_test_add_data_func(path, &schema[i], test_reload_key);
    }
    return g_test_run();
}
