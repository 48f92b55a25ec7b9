/* vnd-routes.c: the API's routing table.
 *
 * Paths are matched exactly, or as a prefix followed by one {id} segment.
 * A path that exists under another method is 405 with the allowed ones;
 * anything else 404.  Route names (the path template) label the metrics,
 * so an unknown path never creates a new time series. */
#include "vnd.h"

#include <string.h>

typedef struct {
    const gchar *method;
    const gchar *path; /* exact path, or prefix ending in '/' for {id} */
    gboolean with_id;
    const gchar *name; /* metrics label */
    gboolean timed;    /* plans: observed in the latency histogram */
    VndHandler handler;
} VndRoute;

static const VndRoute routes[] = {
    { "GET", "/v1/host", FALSE, "/v1/host", FALSE, vnd_handle_host },
    { "POST", "/v1/plan", FALSE, "/v1/plan", TRUE, vnd_handle_plan },
    { "POST", "/v1/fit", FALSE, "/v1/fit", TRUE, vnd_handle_fit },
    { "GET", "/v1/reservations", FALSE, "/v1/reservations", FALSE, vnd_handle_reservations_list },
    { "POST", "/v1/reservations", FALSE, "/v1/reservations", TRUE, vnd_handle_reservation_create },
    { "DELETE", "/v1/reservations/", TRUE, "/v1/reservations/{id}", FALSE,
      vnd_handle_reservation_delete },
    { "GET", "/v1/domains", FALSE, "/v1/domains", FALSE, vnd_handle_domains },
    { "POST", "/v1/rebalance", FALSE, "/v1/rebalance", FALSE, vnd_handle_rebalance },
    { "GET", "/metrics", FALSE, "/metrics", FALSE, vnd_handle_metrics },
};

/* The {id} part when `path` matches `r`, "" for an exact match, or NULL. */
static const gchar *
match(const VndRoute *r, const gchar *path)
{
    const gchar *id;

    if (!r->with_id)
        return g_str_equal(r->path, path) ? "" : NULL;
    if (!g_str_has_prefix(path, r->path))
        return NULL;
    id = path + strlen(r->path);
    return *id && !strchr(id, '/') ? id : NULL;
}

VndHandler
vnd_route_find(const gchar *method, const gchar *path, const gchar **ret_name,
               const gchar **ret_arg, gboolean *ret_timed, gchar **ret_allow, GError **error)
{
    g_autoptr(GString) allow = g_string_new(NULL);
    const gchar *name = "other";

    for (gsize i = 0; i < G_N_ELEMENTS(routes); i++) {
        const gchar *arg = match(&routes[i], path);
        if (!arg)
            continue;
        name = routes[i].name;
        if (!g_str_equal(routes[i].method, method)) {
            g_string_append_printf(allow, "%s%s", allow->len ? ", " : "", routes[i].method);
            continue;
        }
        *ret_name = name;
        *ret_arg = routes[i].with_id ? arg : NULL;
        *ret_timed = routes[i].timed;
        *ret_allow = NULL;
        return routes[i].handler;
    }
    *ret_name = name;
    *ret_arg = NULL;
    *ret_timed = FALSE;
    if (allow->len) {
        g_set_error(error, VND_ERROR, VND_ERROR_METHOD, "%s %s: method not allowed (allowed: %s)",
                    method, name, allow->str);
        *ret_allow = g_string_free(g_steal_pointer(&allow), FALSE);
    } else {
        g_set_error(error, VND_ERROR, VND_ERROR_NOT_FOUND, "%s: no such resource", path);
        *ret_allow = NULL;
    }
    return NULL;
}
