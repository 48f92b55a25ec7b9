/* vnd-conn.c: the client connections — vnumad holds them, libsoup serves
 * one request at a time on them.
 *
 * Why not libsoup's own listeners (libsoup 3.2.3, Debian 12):
 * - a head over 64 KiB, or a request line that never ends, is dropped
 *   with no answer (the client sees a reset);
 * - a status set from the headers (413, 401) is written only after the
 *   whole declared body was read, unless the client sent Expect:
 *   100-continue: Content-Length: 2097152 with one byte sent waits for
 *   ever, and a body refused is still read (and kept) in full;
 * - nothing times out a connection, idle or half-sent, and nothing caps
 *   how many there are;
 * - a keep-alive connection the client closes while idle is never
 *   released (fixed upstream in 3.3, commit d20c660).
 *
 * So vnumad accepts each connection itself (the GSocketService of
 * vnd-server.c) and keeps it in one of four states:
 *   IDLE    between requests, waiting for a first byte;
 *   HEAD    reading a request head into its own buffer, bounded by
 *           vnd-head.c: over the limits is 414 or 431, answered at once;
 *   SOUP    the head is whole: libsoup gets the request through a stream
 *           of its own (vnd-stream.c, soup_server_accept_iostream) that
 *           gives it the head, then the body up to its Content-Length;
 *           a request refused from its headers (vnd-server.c's early
 *           handler: 400, 401, 413) is taken back here at once and
 *           answered without reading its body;
 *   LINGER  refused, or answered and not kept alive: the answer goes
 *           out, the sending side is shut, what the client still sends is
 *           read and dropped for up to VND_LINGER_S (closing at once would
 *           reset the connection and could lose the answer), then close.
 * A SoupServer with no listeners of its own closes libsoup's side of each
 * connection after one request (soup-server.c request_finished), which
 * here only closes that request's stream: the connection goes back to
 * IDLE, keep-alive as the client asked (the api suite checks a second
 * request on one connection).  A pipelined next request waits in the
 * buffer; after a chunked body, whose end only libsoup finds, the
 * connection is closed.
 *
 * One deadline per connection, [api] idle_timeout: for the wait between
 * requests (closed quietly), for the whole request from its first byte
 * (head and body: 408, so one byte a second gets nowhere), and for the
 * client to take its answer; none while the daemon works on the request.
 * [api] max_connections caps the open ones: one more is answered 503. */
#include "vnd.h"

#include <netinet/in.h>
#include <netinet/tcp.h>
#include <string.h>
#include <gio/gunixsocketaddress.h>
#include "vnd-head.h"

typedef enum {
    CONN_IDLE,
    CONN_HEAD,
    CONN_SOUP,
    CONN_LINGER,
} ConnState;

struct _VndConn {
    VndDaemon *d;
    GSocketConnection *connection;
    GSocket *socket; /* the connection's */
    GSocketAddress *local, *remote;
    gboolean tcp;
    gboolean rejected; /* over max_connections: only answered */
    ConnState state;
    GByteArray *in; /* read from the socket, not yet libsoup's */
    VndHeadScan scan;
    /* CONN_SOUP */
    GIOStream *stream; /* the request's, handed to libsoup */
    SoupServerMessage *msg;
    gint64 delivered;   /* bytes libsoup read */
    gint64 allowed;     /* bytes it may read; -1: no bound (chunked) */
    gboolean read_done; /* the whole request is read */
    gboolean answered;  /* the whole answer is written */
    gboolean close_after;
    /* CONN_LINGER */
    GBytes *out; /* the answer, until written */
    gsize out_done;
    gboolean drained; /* the client sends no more */
    GIOCondition watching;
    GSource *watch, *deadline, *resume;
};

struct _VndConns {
    GHashTable *all; /* VndConn *, owned */
    guint open, rejecting;
    VndConn *handing; /* inside soup_server_accept_iostream() */
    gulong started_handler;
};

static const VndHeadLimits head_limits = {
    VND_MAX_REQUEST_LINE,
    VND_MAX_HEAD,
    VND_MAX_HEADER_FIELDS,
};

static void conn_refuse(VndConn *c, GBytes *answer);
static void conn_scan(VndConn *c);

static void
clear_source(GSource **source)
{
    if (*source) {
        g_source_destroy(*source);
        g_source_unref(*source);
        *source = NULL;
    }
}

/* Drops libsoup's hold: its streams fail from now on, its request is
 * no longer ours to follow. */
static void
conn_detach(VndConn *c)
{
    if (c->stream) {
        vnd_stream_orphan(c->stream);
        g_clear_object(&c->stream);
    }
    if (c->msg) {
        g_signal_handlers_disconnect_by_data(c->msg, c);
        g_clear_object(&c->msg);
    }
}

static void
conn_free(gpointer p)
{
    VndConn *c = p;
    VndConns *cs = c->d->conns;

    conn_detach(c);
    clear_source(&c->watch);
    clear_source(&c->deadline);
    clear_source(&c->resume);
    if (c->rejected)
        cs->rejecting--;
    else
        cs->open--;
    g_io_stream_close(G_IO_STREAM(c->connection), NULL, NULL);
    g_object_unref(c->connection);
    g_clear_object(&c->local);
    g_clear_object(&c->remote);
    g_byte_array_unref(c->in);
    g_clear_pointer(&c->out, g_bytes_unref);
    g_free(c);
}

static void
conn_close(VndConn *c)
{
    g_hash_table_remove(c->d->conns->all, c);
}

static void
conn_watch(VndConn *c, GIOCondition cond, GSocketSourceFunc func)
{
    clear_source(&c->watch);
    c->watching = cond;
    c->watch = g_socket_create_source(c->socket, cond, NULL);
    g_source_set_callback(c->watch, G_SOURCE_FUNC(func), c, NULL);
    g_source_attach(c->watch, NULL);
}

static gboolean on_deadline(gpointer user_data);

/* (Re)starts the deadline, `seconds` from now; 0 stops it. */
static void
conn_arm(VndConn *c, guint seconds)
{
    clear_source(&c->deadline);
    if (!seconds)
        return;
    c->deadline = g_timeout_source_new(seconds * 1000);
    g_source_set_callback(c->deadline, on_deadline, c, NULL);
    g_source_attach(c->deadline, NULL);
}

static guint
idle_timeout(VndConn *c)
{
    return vnd_state_config(c->d->state)->api_idle_timeout_s;
}

/* ---- LINGER: the answer out, the rest dropped -------------------------------- */

/* FALSE when the socket failed. */
static gboolean
linger_write(VndConn *c)
{
    gsize len;
    const gchar *data = g_bytes_get_data(c->out, &len);
    g_autoptr(GError) error = NULL;
    gssize n = g_socket_send_with_blocking(c->socket, data + c->out_done, len - c->out_done, FALSE,
                                           NULL, &error);

    if (n < 0)
        return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
    c->out_done += (gsize)n;
    if (c->out_done == len) {
        g_clear_pointer(&c->out, g_bytes_unref);
        /* the client reads the answer, then the end */
        g_socket_shutdown(c->socket, FALSE, TRUE, NULL);
    }
    return TRUE;
}

/* Reads and drops what is there; FALSE when the socket failed. */
static gboolean
linger_drain(VndConn *c)
{
    gchar buf[16384];

    for (guint i = 0; i < 4; i++) {
        g_autoptr(GError) error = NULL;
        gssize n = g_socket_receive_with_blocking(c->socket, buf, sizeof(buf), FALSE, NULL, &error);
        if (n < 0)
            return g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK);
        if (n == 0) {
            c->drained = TRUE;
            break;
        }
    }
    return TRUE;
}

static gboolean
on_linger(GSocket *socket, GIOCondition cond, gpointer user_data)
{
    VndConn *c = user_data;
    GIOCondition need;

    if ((c->out && !linger_write(c)) ||
        (!c->drained && (cond & (G_IO_IN | G_IO_HUP | G_IO_ERR)) && !linger_drain(c)) ||
        (!c->out && c->drained)) {
        conn_close(c);
        return G_SOURCE_REMOVE;
    }
    need = (c->out ? G_IO_OUT : 0) | (c->drained ? 0 : G_IO_IN);
    if (need != c->watching)
        conn_watch(c, need, on_linger);
    return G_SOURCE_CONTINUE;
}

/* Answers `answer` (taken; NULL: libsoup already did) instead of anything
 * libsoup would, and closes. */
static void
conn_refuse(VndConn *c, GBytes *answer)
{
    conn_detach(c);
    c->state = CONN_LINGER;
    g_byte_array_set_size(c->in, 0);
    c->out = answer;
    c->out_done = 0;
    if (!answer)
        g_socket_shutdown(c->socket, FALSE, TRUE, NULL);
    conn_arm(c, VND_LINGER_S);
    conn_watch(c, (answer ? G_IO_OUT : 0) | G_IO_IN, on_linger);
}

static void G_GNUC_PRINTF(4, 5)
    refuse_limit(VndConn *c, VndLimit limit, guint status, const gchar *fmt, ...)
{
    g_autofree gchar *message = NULL;
    va_list args;

    va_start(args, fmt);
    message = g_strdup_vprintf(fmt, args);
    va_end(args);
    vnd_metrics_count_refused(c->d->metrics, limit);
    g_debug("connection refused: %u %s", status, message);
    conn_refuse(c, vnd_answer_error(status, message));
}

/* ---- the deadline ------------------------------------------------------------ */

static gboolean
on_deadline(gpointer user_data)
{
    VndConn *c = user_data;
    g_autofree gchar *message = NULL;

    /* this source ends here; clearing it must not destroy it twice */
    g_clear_pointer(&c->deadline, g_source_unref);
    switch (c->state) {
    case CONN_IDLE:
        /* The request came in time but the daemon was busy with others:
         * both sources were ready in one iteration and this one ran first.
         * Closing now would reset the connection with the request unread
         * (clients saw ECONNRESET under load); on_readable takes it and
         * arms the request's own deadline. */
        if (g_socket_condition_check(c->socket, G_IO_IN) & G_IO_IN)
            break;
        vnd_metrics_count_connection(c->d->metrics, VND_CONN_TIMEOUT_IDLE);
        conn_close(c);
        break;
    case CONN_HEAD:
    case CONN_SOUP:
        vnd_metrics_count_connection(c->d->metrics, VND_CONN_TIMEOUT_REQUEST);
        /* half an answer may be out: no second one then */
        if (c->read_done) {
            conn_close(c);
            break;
        }
        message = g_strdup_printf("request: not received within %u s ([api] idle_timeout)",
                                  idle_timeout(c));
        conn_refuse(c, vnd_answer_error(VND_ERROR_TIMEOUT, message));
        break;
    case CONN_LINGER:
        conn_close(c);
        break;
    }
    return G_SOURCE_REMOVE;
}

/* ---- IDLE and HEAD: the head read ahead, bounded ---------------------------- */

static gboolean
on_readable(GSocket *socket, GIOCondition cond, gpointer user_data)
{
    VndConn *c = user_data;
    g_autoptr(GError) error = NULL;
    guint had = c->in->len;
    gsize room;
    gssize n;

    /* a head over VND_MAX_HEAD was refused: the buffer never holds more */
    g_return_val_if_fail(had <= VND_MAX_HEAD, G_SOURCE_REMOVE);
    room = MIN(4096, VND_MAX_HEAD + 1 - had);

    g_byte_array_set_size(c->in, had + (guint)room);
    n = g_socket_receive_with_blocking(socket, (gchar *)c->in->data + had, room, FALSE, NULL,
                                       &error);
    g_byte_array_set_size(c->in, had + (guint)MAX(n, 0));
    if (n < 0 && g_error_matches(error, G_IO_ERROR, G_IO_ERROR_WOULD_BLOCK))
        return G_SOURCE_CONTINUE;
    if (n <= 0) {
        /* gone, between requests or halfway through a head */
        conn_close(c);
        return G_SOURCE_REMOVE;
    }
    if (c->state == CONN_IDLE) {
        c->state = CONN_HEAD;
        conn_arm(c, idle_timeout(c));
    }
    conn_scan(c);
    return G_SOURCE_CONTINUE;
}

static void
conn_idle(VndConn *c)
{
    c->state = CONN_IDLE;
    memset(&c->scan, 0, sizeof(c->scan));
    conn_arm(c, idle_timeout(c));
    conn_watch(c, G_IO_IN, on_readable);
    /* a pipelined request, read with the one before */
    if (c->in->len) {
        c->state = CONN_HEAD;
        conn_scan(c);
    }
}

/* libsoup 3.2 makes up a request URI from the local address for an
 * HTTP/1.0 request without Host, taking it for an IP address: on the
 * unix socket that is GLib criticals and a 400.  Answered here instead. */
static gboolean
lacks_host(VndConn *c)
{
    g_autoptr(SoupMessageHeaders) h = soup_message_headers_new(SOUP_MESSAGE_HEADERS_REQUEST);
    SoupHTTPVersion version;

    if (c->tcp)
        return FALSE;
    return soup_headers_parse_request((const char *)c->in->data, (int)c->scan.length, h, NULL, NULL,
                                      &version) == SOUP_STATUS_OK &&
           version == SOUP_HTTP_1_0 && !soup_message_headers_get_one(h, "Host");
}

/* The head is whole: the request is libsoup's now. */
static void
conn_hand(VndConn *c)
{
    VndConns *cs = c->d->conns;

    if (lacks_host(c)) {
        conn_refuse(c, vnd_answer_error(VND_ERROR_BAD_REQUEST, "Host: required"));
        return;
    }
    clear_source(&c->watch);
    c->state = CONN_SOUP;
    c->delivered = 0;
    c->allowed = (gint64)c->scan.length; /* until its headers say more */
    c->read_done = c->answered = c->close_after = FALSE;
    c->stream = vnd_stream_new(c);
    /* libsoup may serve it whole before this returns; `c` stays */
    cs->handing = c;
    soup_server_accept_iostream(c->d->server, c->stream, c->local, c->remote, NULL);
    cs->handing = NULL;
}

static void
conn_scan(VndConn *c)
{
    switch (vnd_head_scan(&c->scan, c->in->data, c->in->len, &head_limits)) {
    case VND_HEAD_MORE:
        break;
    case VND_HEAD_COMPLETE:
        conn_hand(c);
        break;
    case VND_HEAD_LINE_TOO_LONG:
        refuse_limit(c, VND_LIMIT_REQUEST_LINE, VND_ERROR_URI_TOO_LONG,
                     "request line: over %d bytes", VND_MAX_REQUEST_LINE);
        break;
    case VND_HEAD_TOO_LARGE:
        refuse_limit(c, VND_LIMIT_HEAD, VND_ERROR_HEADERS_TOO_LARGE, "request head: over %d bytes",
                     VND_MAX_HEAD);
        break;
    case VND_HEAD_TOO_MANY_FIELDS:
        refuse_limit(c, VND_LIMIT_HEADER_FIELDS, VND_ERROR_HEADERS_TOO_LARGE,
                     "request head: over %d header fields", VND_MAX_HEADER_FIELDS);
        break;
    case VND_HEAD_MAX:
        g_return_if_reached();
    }
}

/* ---- SOUP: libsoup reads through vnd-stream.c ---------------------------------- */

gssize
vnd_conn_input(VndConn *c, void *buffer, gsize count, gboolean blocking, GCancellable *cancellable,
               GError **error)
{
    gssize n;

    if (c->allowed >= 0) {
        if (c->delivered >= c->allowed)
            return 0;
        count = MIN(count, (gsize)(c->allowed - c->delivered));
    }
    if (c->in->len) {
        n = (gssize)MIN(count, c->in->len);
        memcpy(buffer, c->in->data, (gsize)n);
        g_byte_array_remove_range(c->in, 0, (guint)n);
    } else {
        n = g_socket_receive_with_blocking(c->socket, buffer, count, blocking, cancellable, error);
        if (n < 0)
            return -1;
    }
    c->delivered += n;
    return n;
}

gboolean
vnd_conn_input_ready(VndConn *c)
{
    return c->in->len > 0 || (c->allowed >= 0 && c->delivered >= c->allowed);
}

GSocket *
vnd_conn_socket(VndConn *c)
{
    return c->socket;
}

/* Headers parsed (after libsoup's checks and vnd-server.c's early
 * handler): refused, answered now; else its body is bounded. */
static void
on_got_headers(SoupServerMessage *msg, gpointer user_data)
{
    VndConn *c = user_data;
    SoupMessageHeaders *h = soup_server_message_get_request_headers(msg);

    if (soup_server_message_get_status(msg) != 0) {
        conn_refuse(c, vnd_answer_message(msg));
        return;
    }
    switch (soup_message_headers_get_encoding(h)) {
    case SOUP_ENCODING_NONE:
        break;
    case SOUP_ENCODING_CONTENT_LENGTH:
        /* a byte count within VND_MAX_BODY: the early handler checked */
        c->allowed += soup_message_headers_get_content_length(h);
        break;
    default:
        /* chunked: where it ends is libsoup's to find, so no request
         * may follow it on this connection */
        c->allowed = -1;
        c->close_after = TRUE;
        soup_message_headers_replace(soup_server_message_get_response_headers(msg), "Connection",
                                     "close");
        break;
    }
}

/* The daemon's turn: no deadline while it works. */
static void
on_got_body(SoupServerMessage *msg, gpointer user_data)
{
    VndConn *c = user_data;

    c->read_done = TRUE;
    conn_arm(c, 0);
}

/* The client's turn again: it must take the answer in time. */
static void
on_wrote_headers(SoupServerMessage *msg, gpointer user_data)
{
    VndConn *c = user_data;

    if (c->read_done && !SOUP_STATUS_IS_INFORMATIONAL(soup_server_message_get_status(msg)))
        conn_arm(c, idle_timeout(c));
}

static void
on_wrote_body(SoupServerMessage *msg, gpointer user_data)
{
    VndConn *c = user_data;

    c->answered = TRUE;
}

/* The one request of a connection being handed to libsoup. */
static void
on_request_started(SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
    VndConn *c = ((VndDaemon *)user_data)->conns->handing;

    if (!c || c->msg)
        return;
    c->msg = g_object_ref(msg);
    g_signal_connect(msg, "got-headers", G_CALLBACK(on_got_headers), c);
    g_signal_connect(msg, "got-body", G_CALLBACK(on_got_body), c);
    g_signal_connect(msg, "wrote-headers", G_CALLBACK(on_wrote_headers), c);
    g_signal_connect(msg, "wrote-body", G_CALLBACK(on_wrote_body), c);
}

static gboolean
keeps_alive(SoupServerMessage *msg)
{
    return soup_server_message_get_http_version(msg) == SOUP_HTTP_1_1 &&
           !soup_message_headers_header_contains(soup_server_message_get_request_headers(msg),
                                                 "Connection", "close") &&
           !soup_message_headers_header_contains(soup_server_message_get_response_headers(msg),
                                                 "Connection", "close");
}

static gboolean
on_resume(gpointer user_data)
{
    VndConn *c = user_data;

    g_clear_pointer(&c->resume, g_source_unref);
    conn_idle(c);
    return G_SOURCE_REMOVE;
}

/* Not kept alive: closed as a refusal is, so that what the client still
 * sends (a body libsoup refused unread) cannot reset its answer away. */
static gboolean
on_done(gpointer user_data)
{
    VndConn *c = user_data;

    g_clear_pointer(&c->resume, g_source_unref);
    conn_refuse(c, NULL);
    return G_SOURCE_REMOVE;
}

/* libsoup closed the request's stream, from deep inside itself (maybe
 * still inside soup_server_accept_iostream): the next step waits for the
 * main loop. */
void
vnd_conn_released(VndConn *c)
{
    gboolean keep =
        c->state == CONN_SOUP && c->answered && !c->close_after && c->msg && keeps_alive(c->msg);

    if (c->state != CONN_SOUP)
        return;
    conn_detach(c);
    c->state = CONN_IDLE;
    c->resume = g_idle_source_new();
    g_source_set_callback(c->resume, keep ? on_resume : on_done, c, NULL);
    g_source_attach(c->resume, NULL);
}

/* ---- accepting ------------------------------------------------------------------ */

static VndConn *
conn_new(VndDaemon *d, GSocketConnection *connection)
{
    VndConn *c = g_new0(VndConn, 1);

    c->d = d;
    c->connection = g_object_ref(connection);
    c->socket = g_socket_connection_get_socket(connection);
    c->tcp = g_socket_get_family(c->socket) != G_SOCKET_FAMILY_UNIX;
    c->local = g_socket_connection_get_local_address(connection, NULL);
    c->remote = g_socket_connection_get_remote_address(connection, NULL);
    /* libsoup wants both; an unnamed unix peer may have none */
    if (!c->local)
        c->local = g_unix_socket_address_new_with_type("", 0, G_UNIX_SOCKET_ADDRESS_ANONYMOUS);
    if (!c->remote)
        c->remote = g_unix_socket_address_new_with_type("", 0, G_UNIX_SOCKET_ADDRESS_ANONYMOUS);
    if (c->tcp)
        g_socket_set_option(c->socket, IPPROTO_TCP, TCP_NODELAY, TRUE, NULL);
    c->in = g_byte_array_new();
    g_hash_table_add(d->conns->all, c);
    return c;
}

void
vnd_conn_accept(VndDaemon *d, GSocketConnection *connection)
{
    VndConns *cs = d->conns;
    guint max = vnd_state_config(d->state)->api_max_connections;
    g_autofree gchar *message = NULL;
    VndConn *c;

    if (cs->open < max) {
        c = conn_new(d, connection);
        cs->open++;
        vnd_metrics_count_connection(d->metrics, VND_CONN_ACCEPTED);
        conn_idle(c);
        return;
    }
    vnd_metrics_count_connection(d->metrics, VND_CONN_REJECTED);
    if (cs->rejecting >= VND_MAX_REJECTING) {
        g_io_stream_close(G_IO_STREAM(connection), NULL, NULL);
        return;
    }
    c = conn_new(d, connection);
    c->rejected = TRUE;
    cs->rejecting++;
    message = g_strdup_printf("too many connections: %u are open ([api] max_connections)", max);
    conn_refuse(c, vnd_answer_error(VND_ERROR_UNAVAILABLE, message));
}

guint
vnd_conns_open(VndDaemon *d)
{
    return d->conns ? d->conns->open : 0;
}

void
vnd_conns_init(VndDaemon *d)
{
    d->conns = g_new0(VndConns, 1);
    d->conns->all = g_hash_table_new_full(g_direct_hash, g_direct_equal, conn_free, NULL);
    d->conns->started_handler =
        g_signal_connect(d->server, "request-started", G_CALLBACK(on_request_started), d);
}

void
vnd_conns_clear(VndDaemon *d)
{
    if (!d->conns)
        return;
    g_signal_handler_disconnect(d->server, d->conns->started_handler);
    g_hash_table_remove_all(d->conns->all);
    g_hash_table_unref(d->conns->all);
    g_clear_pointer(&d->conns, g_free);
}
