/* test-config-api.c: vnuma.conf's [api] and [rebalance] groups (vnumad). */
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>
#include "vn-config.h"
#include "vn-config-build.h"
#include "vn-test-fixture.h"

/* The [api] and [rebalance] values of a config, in its members' order. */
typedef struct {
    const gchar *api_socket, *api_tcp_listen, *api_bearer_token;
    guint api_idle_timeout_s, api_max_connections;
    gboolean rebalance_auto;
    guint rebalance_interval_s, rebalance_hot_intervals;
    gboolean dataplane_repair;
    VnIrqSteering irq_steering;
} ApiValues;

static void
assert_values(const gchar *text, const ApiValues *v)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_test_config_from_text(text, &error);

    g_assert_no_error(error);
    g_assert_cmpstr(c->api_socket, ==, v->api_socket);
    g_assert_cmpstr(c->api_tcp_listen, ==, v->api_tcp_listen);
    g_assert_cmpstr(c->api_bearer_token, ==, v->api_bearer_token);
    g_assert_cmpuint(c->api_idle_timeout_s, ==, v->api_idle_timeout_s);
    g_assert_cmpuint(c->api_max_connections, ==, v->api_max_connections);
    g_assert_cmpint(c->rebalance_auto, ==, v->rebalance_auto);
    g_assert_cmpuint(c->rebalance_interval_s, ==, v->rebalance_interval_s);
    g_assert_cmpuint(c->rebalance_hot_intervals, ==, v->rebalance_hot_intervals);
    g_assert_cmpint(c->dataplane_repair, ==, v->dataplane_repair);
    g_assert_cmpint(c->irq_steering, ==, v->irq_steering);
}

static void
test_defaults(void)
{
    const ApiValues v = { VNUMA_DEFAULT_API_SOCKET, NULL, NULL, 30, 128, TRUE, 10, 3, TRUE,
                          VN_IRQ_STEERING_OFF };

    assert_values("", &v);
}

static void
test_good(void)
{
    const ApiValues v = {
        "/run/x/api.sock", "[::1]:8470", "0123456789abcdef", 2, 512, FALSE, 1, 100, FALSE,
        VN_IRQ_STEERING_ON
    };

    assert_values("[api]\nsocket = /run/x/api.sock\ntcp_listen = [::1]:8470\n"
                  "bearer_token = 0123456789abcdef\n"
                  "idle_timeout = 2\nmax_connections = 512\n"
                  "[rebalance]\nauto = false\ninterval = 1\nhot_intervals = 100\n"
                  "dataplane_repair = false\nirq_steering = on\n",
                  &v);
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
    { "irq-steering-true", "[rebalance]\nirq_steering = true\n", "irq_steering" },
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
