/* vnd-server.c: the listeners and the one request handler.
 *
 * The unix socket is the API's home: mode 0660 and group libvirt (when
 * that group exists), so whoever may drive libvirt may ask vnumad.  TCP
 * listens only when vnuma.conf [api] tcp_listen says so, and every TCP
 * request must then carry the configured bearer token.
 *
 * The listeners are a GSocketService, not libsoup's: each connection goes
 * to vnd-conn.c, which bounds it and hands libsoup one request at a time.
 * Requests refused from their headers (no token, a Content-Length that is
 * not one byte count or is over VND_MAX_BODY) are refused by the early
 * handler, and vnd-conn.c answers them at once, their body never read. */
#include "vnd.h"

#include <errno.h>
#include <grp.h>
#include <string.h>
#include <sys/socket.h>
#include <sys/stat.h>
#include <unistd.h>
#include <gio/gunixsocketaddress.h>
#include "vn-config-build.h"

#define SOCKET_MODE 0660
#define SOCKET_GROUP "libvirt"

/* An existing path: a stale socket is removed, a live one (another daemon
 * answers) or any other file is left alone and refused. */
static gboolean
clear_stale(const gchar *path, GError **error)
{
    g_autoptr(GSocket) probe = NULL;
    g_autoptr(GSocketAddress) addr = NULL;
    struct stat st;

    if (lstat(path, &st) != 0)
        return TRUE;
    if (!S_ISSOCK(st.st_mode)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_EXISTS, "%s: exists and is not a socket", path);
        return FALSE;
    }
    probe =
        g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
    addr = g_unix_socket_address_new(path);
    if (probe && g_socket_connect(probe, addr, NULL, NULL)) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_ADDRESS_IN_USE,
                    "%s: another daemon is listening there", path);
        return FALSE;
    }
    if (unlink(path) != 0 && errno != ENOENT) {
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

/* Group libvirt when it exists; a non-root daemon (tests) keeps its own. */
static void
set_group(const gchar *path)
{
    struct group *g = getgrnam(SOCKET_GROUP);

    if (g && chown(path, (uid_t)-1, g->gr_gid) != 0)
        g_debug("%s: group %s not set: %s", path, SOCKET_GROUP, g_strerror(errno));
}

static GSocket *
bind_unix(const gchar *path, GError **error)
{
    g_autofree gchar *dir = g_path_get_dirname(path);
    g_autoptr(GSocket) sock = NULL;
    g_autoptr(GSocketAddress) addr = NULL;
    gboolean bound;
    mode_t old;

    if (strlen(path) >= 108) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: socket path too long",
                    path);
        return NULL;
    }
    if (g_mkdir_with_parents(dir, 0755) != 0) {
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "%s: %s", dir,
                    g_strerror(errno));
        return NULL;
    }
    if (!clear_stale(path, error))
        return NULL;
    sock =
        g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
    if (!sock)
        return NULL;
    addr = g_unix_socket_address_new(path);
    /* GSocket's default backlog (10) refuses a burst of clients */
    g_socket_set_listen_backlog(sock, SOMAXCONN);
    /* created with its final mode: no window where others may connect */
    old = umask(0777 & ~SOCKET_MODE);
    bound = g_socket_bind(sock, addr, FALSE, error);
    umask(old);
    if (!bound || !g_socket_listen(sock, error)) {
        g_prefix_error(error, "%s: ", path);
        return NULL;
    }
    set_group(path);
    return g_steal_pointer(&sock);
}

static gboolean
listen_tcp(VndDaemon *d, const gchar *spec, GError **error)
{
    g_autoptr(GSocketConnectable) na = g_network_address_parse(spec, 0, error);
    g_autoptr(GInetAddress) ip = NULL;
    g_autoptr(GSocketAddress) addr = NULL;

    if (!na)
        return FALSE;
    ip = g_inet_address_new_from_string(g_network_address_get_hostname(G_NETWORK_ADDRESS(na)));
    if (!ip) {
        g_set_error(error, G_IO_ERROR, G_IO_ERROR_INVALID_ARGUMENT, "%s: not IP:PORT", spec);
        return FALSE;
    }
    addr = g_inet_socket_address_new(ip, g_network_address_get_port(G_NETWORK_ADDRESS(na)));
    if (!g_socket_listener_add_address(G_SOCKET_LISTENER(d->service), addr, G_SOCKET_TYPE_STREAM,
                                       G_SOCKET_PROTOCOL_TCP, NULL, NULL, error)) {
        g_prefix_error(error, "tcp %s: ", spec);
        return FALSE;
    }
    g_message("listening on tcp %s (bearer token required)", spec);
    return TRUE;
}

/* Constant-time: the comparison must not tell how much of a guess was right. */
static gboolean
token_equal(const gchar *a, const gchar *b)
{
    gsize la = strlen(a), lb = strlen(b);
    guint diff = la != lb;

    for (gsize i = 0; i < la; i++)
        diff |= (guint)(a[i] ^ b[i % (lb ? lb : 1)]);
    return diff == 0;
}

/* Unix-socket clients are trusted by the socket's mode; TCP ones by token. */
static gboolean
authorized(VndDaemon *d, SoupServerMessage *msg, GError **error)
{
    GSocketAddress *local = soup_server_message_get_local_address(msg);
    const gchar *token = vnd_state_config(d->state)->api_bearer_token;
    const gchar *auth;

    if (!local || !G_IS_INET_SOCKET_ADDRESS(local))
        return TRUE;
    auth =
        soup_message_headers_get_one(soup_server_message_get_request_headers(msg), "Authorization");
    if (token && auth && g_str_has_prefix(auth, "Bearer ") && token_equal(auth + 7, token))
        return TRUE;
    soup_message_headers_replace(soup_server_message_get_response_headers(msg), "WWW-Authenticate",
                                 "Bearer realm=\"vnumad\"");
    g_set_error_literal(error, VND_ERROR, VND_ERROR_UNAUTHORIZED,
                        "Authorization: a valid bearer token is required on TCP");
    return FALSE;
}

static void
on_request(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
           gpointer user_data)
{
    VndDaemon *d = user_data;
    const gchar *method = soup_server_message_get_method(msg);
    const gchar *name, *arg;
    g_autofree gchar *allow = NULL;
    g_autoptr(GError) error = NULL;
    gboolean timed;
    VndHandler handler;

    if (soup_server_message_get_status(msg) != 0)
        return; /* refused by the early handler (vnd-conn.c answered) */
    handler = vnd_route_find(method, path, &name, &arg, &timed, &allow, &error);
    if (handler) {
        gint64 t0 = g_get_monotonic_time();
        handler(d, msg, arg, &error);
        if (timed)
            vnd_metrics_observe_plan(d->metrics, (g_get_monotonic_time() - t0) / 1e6);
    }
    if (error)
        vnd_reply_error(msg, error);
    if (allow)
        soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Allow", allow);
    /* a paused message (answered later) is counted when it is answered */
    if (soup_server_message_get_status(msg) != 0)
        vnd_metrics_count_request(d->metrics, name, soup_server_message_get_status(msg));
    g_debug("%s %s -> %u", method, path, soup_server_message_get_status(msg));
}

/* The metrics label of a path, whatever the method. */
static const gchar *
route_name(const gchar *method, const gchar *path)
{
    const gchar *name, *arg;
    g_autofree gchar *allow = NULL;
    gboolean timed;

    vnd_route_find(method, path, &name, &arg, &timed, &allow, NULL);
    return name;
}

/* Content-Length: one byte count (a list of them is how a smuggled
 * request starts), not with chunked, at most VND_MAX_BODY.  libsoup 3.2
 * takes "-1" and a 23-digit count for "unknown" and reads for ever. */
static gboolean
check_length(VndDaemon *d, SoupMessageHeaders *h, GError **error)
{
    const char *text = soup_message_headers_get_list(h, "Content-Length");
    guint64 n;

    if (!text)
        return TRUE;
    if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXINT64, &n, NULL)) {
        vnd_metrics_count_refused(d->metrics, VND_LIMIT_CONTENT_LENGTH);
        g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST,
                    "Content-Length: \"%.40s%s\" is not one byte count", text,
                    strlen(text) > 40 ? "..." : "");
        return FALSE;
    }
    if (soup_message_headers_get_encoding(h) == SOUP_ENCODING_CHUNKED) {
        vnd_metrics_count_refused(d->metrics, VND_LIMIT_CONTENT_LENGTH);
        g_set_error_literal(error, VND_ERROR, VND_ERROR_BAD_REQUEST,
                            "Content-Length: not allowed with Transfer-Encoding");
        return FALSE;
    }
    if (n > VND_MAX_BODY) {
        vnd_metrics_count_refused(d->metrics, VND_LIMIT_BODY);
        g_set_error(error, VND_ERROR, VND_ERROR_TOO_LARGE, "body: over %d bytes", VND_MAX_BODY);
        return FALSE;
    }
    return TRUE;
}

/* After the headers, before the body: a TCP client without the token and
 * a declared body that is not one byte count or over the limit are
 * refused (vnd-conn.c answers at once, before any body is read); a body
 * of unknown length is kept bounded. */
static void
on_headers(SoupServer *server, SoupServerMessage *msg, const char *path, GHashTable *query,
           gpointer user_data)
{
    VndDaemon *d = user_data;
    SoupMessageHeaders *h = soup_server_message_get_request_headers(msg);
    SoupEncoding enc = soup_message_headers_get_encoding(h);
    g_autoptr(GError) error = NULL;

    if (authorized(d, msg, &error) && check_length(d, h, &error)) {
        if (enc != SOUP_ENCODING_CONTENT_LENGTH && enc != SOUP_ENCODING_NONE)
            vnd_body_bound(msg);
        return;
    }
    vnd_reply_error(msg, error);
    /* the body is never read: the connection cannot be reused */
    soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Connection",
                                 "close");
    vnd_metrics_count_request(d->metrics, route_name(soup_server_message_get_method(msg), path),
                              (guint)error->code);
}

static gboolean
on_incoming(GSocketService *service, GSocketConnection *connection, GObject *source,
            gpointer user_data)
{
    vnd_conn_accept(user_data, connection);
    return TRUE;
}

gboolean
vnd_server_start(VndDaemon *d, const gchar *socket_path, GError **error)
{
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GSocket) sock = NULL;

    d->server = soup_server_new("server-header", "vnumad/" VNUMA_VERSION, NULL);
    soup_server_add_early_handler(d->server, NULL, on_headers, d, NULL);
    soup_server_add_handler(d->server, NULL, on_request, d, NULL);
    vnd_conns_init(d);
    d->service = g_socket_service_new();
    /* GSocketListener's default backlog (10) refuses a burst of clients */
    g_socket_listener_set_backlog(G_SOCKET_LISTENER(d->service), SOMAXCONN);
    g_signal_connect(d->service, "incoming", G_CALLBACK(on_incoming), d);
    if (!(sock = bind_unix(socket_path, error)) ||
        !g_socket_listener_add_socket(G_SOCKET_LISTENER(d->service), sock, NULL, error))
        return FALSE;
    g_message("listening on %s", socket_path);
    return !c->api_tcp_listen || listen_tcp(d, c->api_tcp_listen, error);
}

void
vnd_server_stop(VndDaemon *d, const gchar *socket_path)
{
    if (d->service) {
        g_socket_service_stop(d->service);
        g_socket_listener_close(G_SOCKET_LISTENER(d->service));
    }
    vnd_conns_clear(d);
    if (d->server)
        soup_server_disconnect(d->server);
    g_clear_object(&d->server);
    g_clear_object(&d->service);
    /* closed connections are released from idle callbacks: let them run */
    while (g_main_context_iteration(NULL, FALSE))
        ;
    if (socket_path)
        unlink(socket_path);
}
