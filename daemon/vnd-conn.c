/* vnd-conn.c: reaps keep-alive connections the client closed while idle.
 *
 * libsoup 3.2 (Debian 12) never releases a connection whose client closes
 * it while it waits for the next request: every `curl` leaks one file
 * descriptor and ~700 bytes in the daemon (upstream fixed it in 3.3,
 * "Don't leak idle connections closed by the client", commit d20c660).
 * A daemon that must run for months cannot carry the descriptors, so
 * vnumad watches each client socket for hang-up and, when no request is
 * in progress on it (between a message's "finished" and the next
 * "request-started"), closes the socket itself: the descriptor is freed at
 * once, and libsoup's pending read on it ends with an error.  (About 700
 * bytes of libsoup's own objects per such connection stay; the API is
 * meant for keep-alive clients.)  A hang-up during a request is left to
 * libsoup, which handles errors of a message in progress; the watch then
 * stops (HUP is level-triggered). */
#include "vnd.h"

typedef struct {
    GSocket *socket;
    GSource *watch;
    gboolean busy;             /* a request is being read or answered */
    GHashTable *table;         /* the one holding this */
} VndConn;

static void
conn_free(gpointer p)
{
    VndConn *c = p;

    if (c->watch) {
        g_source_destroy(c->watch);
        g_source_unref(c->watch);
    }
    g_object_unref(c->socket);
    g_free(c);
}

static gboolean
on_hangup(GSocket *socket, GIOCondition cond, gpointer user_data)
{
    VndConn *c = user_data;

    if (!c->busy && !g_socket_is_closed(socket))
        g_socket_close(socket, NULL);
    /* closed by libsoup, reaped, or busy: stop watching either way */
    g_clear_pointer(&c->watch, g_source_unref);
    g_hash_table_remove(c->table, socket);
    return G_SOURCE_REMOVE;
}

static void
on_finished(SoupServerMessage *msg, gpointer user_data)
{
    VndDaemon *d = user_data;
    GSocket *socket = soup_server_message_get_socket(msg);
    VndConn *c = socket && d->conns ? g_hash_table_lookup(d->conns, socket) : NULL;

    if (c)
        c->busy = FALSE;
}

static void
on_request_started(SoupServer *server, SoupServerMessage *msg, gpointer user_data)
{
    VndDaemon *d = user_data;
    GSocket *socket = soup_server_message_get_socket(msg);
    VndConn *c;

    if (!socket)
        return;
    c = g_hash_table_lookup(d->conns, socket);
    if (!c) {
        c = g_new0(VndConn, 1);
        c->table = d->conns;
        c->socket = g_object_ref(socket);
        c->watch = g_socket_create_source(socket, G_IO_HUP | G_IO_ERR, NULL);
        g_source_set_callback(c->watch, G_SOURCE_FUNC(on_hangup), c, NULL);
        g_source_attach(c->watch, NULL);
        g_hash_table_insert(d->conns, socket, c);
    }
    c->busy = TRUE;
    g_signal_connect(msg, "finished", G_CALLBACK(on_finished), d);
}

void
vnd_conn_watch(VndDaemon *d)
{
    d->conns = g_hash_table_new_full(g_direct_hash, g_direct_equal, NULL, conn_free);
    g_signal_connect(d->server, "request-started", G_CALLBACK(on_request_started), d);
}

void
vnd_conn_clear(VndDaemon *d)
{
    g_clear_pointer(&d->conns, g_hash_table_unref);
}
