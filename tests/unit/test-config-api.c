/* test-config-api.c: vnuma.conf's [api] and [rebalance] groups (vnumad). */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include "vn-config.h"
#include "vn-config-build.h"
#include "vn-test-fixture.h"

static void
test_defaults(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_test_config_from_text("", &error);

    g_assert_no_error(error);
    g_assert_cmpstr(c->api_socket, ==, VNUMA_DEFAULT_API_SOCKET);
    g_assert_null(c->api_tcp_listen);
    g_assert_null(c->api_bearer_token);
    g_assert_cmpuint(c->api_idle_timeout_s, ==, 30);
    g_assert_cmpuint(c->api_max_connections, ==, 128);
    g_assert_false(c->rebalance_auto);
    g_assert_cmpuint(c->rebalance_interval_s, ==, 10);
    g_assert_cmpuint(c->rebalance_hot_intervals, ==, 3);
    g_assert_true(c->dataplane_repair);
}

static void
test_good(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c =
        vn_test_config_from_text("[api]\nsocket = /run/x/api.sock\ntcp_listen = [::1]:8470\n"
                                 "bearer_token = 0123456789abcdef\n"
                                 "idle_timeout = 2\nmax_connections = 512\n"
                                 "[rebalance]\nauto = true\ninterval = 1\nhot_intervals = 100\n"
                                 "dataplane_repair = false\n",
                                 &error);

    g_assert_no_error(error);
    g_assert_cmpstr(c->api_socket, ==, "/run/x/api.sock");
    g_assert_cmpstr(c->api_tcp_listen, ==, "[::1]:8470");
    g_assert_cmpstr(c->api_bearer_token, ==, "0123456789abcdef");
    g_assert_cmpuint(c->api_idle_timeout_s, ==, 2);
    g_assert_cmpuint(c->api_max_connections, ==, 512);
    g_assert_true(c->rebalance_auto);
    g_assert_cmpuint(c->rebalance_interval_s, ==, 1);
    g_assert_cmpuint(c->rebalance_hot_intervals, ==, 100);
    g_assert_false(c->dataplane_repair);
}

/* Each refused with VN_CONFIG_ERROR_INVALID naming the key. */
static const struct {
    const gchar *name, *text, *key;
} bad[] = {
    { "tcp-hostname", "[api]\ntcp_listen = localhost:8470\nbearer_token = 0123456789abcdef\n",
      "tcp_listen" },
    { "tcp-no-port", "[api]\ntcp_listen = 127.0.0.1\nbearer_token = 0123456789abcdef\n",
      "tcp_listen" },
    { "tcp-no-token", "[api]\ntcp_listen = 127.0.0.1:8470\n", "bearer_token" },
    { "tcp-short-token", "[api]\ntcp_listen = 127.0.0.1:8470\nbearer_token = short\n",
      "bearer_token" },
    { "socket-relative", "[api]\nsocket = run/api.sock\n", "socket" },
    { "idle-zero", "[api]\nidle_timeout = 0\n", "idle_timeout" },
    { "idle-hour-and-more", "[api]\nidle_timeout = 3601\n", "idle_timeout" },
    { "idle-unit", "[api]\nidle_timeout = 30s\n", "idle_timeout" },
    { "connections-zero", "[api]\nmax_connections = 0\n", "max_connections" },
    { "connections-over-descriptors", "[api]\nmax_connections = 513\n", "max_connections" },
    { "connections-negative", "[api]\nmax_connections = -1\n", "max_connections" },
    { "auto-yes", "[rebalance]\nauto = yes\n", "auto" },
    { "interval-zero", "[rebalance]\ninterval = 0\n", "interval" },
    { "interval-huge", "[rebalance]\ninterval = 100000\n", "interval" },
    { "hot-text", "[rebalance]\nhot_intervals = three\n", "hot_intervals" },
    { "repair-on", "[rebalance]\ndataplane_repair = on\n", "dataplane_repair" },
};

static void
test_bad(gconstpointer data)
{
    guint i = GPOINTER_TO_UINT(data);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_test_config_from_text(bad[i].text, &error);

    g_assert_null(c);
    g_assert_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID);
    g_assert_nonnull(strstr(error->message, bad[i].key));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/config/api/defaults", test_defaults);
    g_test_add_func("/config/api/good", test_good);
    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autofree gchar *path = g_strdup_printf("/config/api/bad/%s", bad[i].name);
        g_test_add_data_func(path, GUINT_TO_POINTER(i), test_bad);
    }
    return g_test_run();
}
