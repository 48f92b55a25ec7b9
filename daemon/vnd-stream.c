/* vnd-stream.c: the streams libsoup serves one request through.
 *
 * libsoup gets a GIOStream per request (soup_server_accept_iostream);
 * its input reads what vnd-conn.c allows this request (the head vnumad
 * read ahead, then the body from the socket, up to its declared length),
 * its output writes to the socket.  Closing them, which libsoup does when
 * it is done with the request, hands the connection back to vnd-conn.c
 * and leaves the socket open for the next request.
 *
 * Both are pollable, as libsoup needs: their sources wait on the socket,
 * fire at once when vnumad already holds the bytes, and also end when the
 * stream is orphaned, so that libsoup, waiting on a request vnumad has
 * taken back, wakes, fails its next read or write and lets go. */
#include "vnd.h"

#define VND_TYPE_INPUT (vnd_input_get_type())
G_DECLARE_FINAL_TYPE(VndInput, vnd_input, VND, INPUT, GInputStream)
#define VND_TYPE_OUTPUT (vnd_output_get_type())
G_DECLARE_FINAL_TYPE(VndOutput, vnd_output, VND, OUTPUT, GOutputStream)

struct _VndInput {
    GInputStream parent;
    VndConn *conn; /* NULL once orphaned or closed */
    GSocket *socket;
    GCancellable *wake; /* cancelled when orphaned: ends every wait */
};

struct _VndOutput {
    GOutputStream parent;
    VndInput *input; /* whether the pair is still attached */
};

static void vnd_input_pollable_init(GPollableInputStreamInterface *iface);
static void vnd_output_pollable_init(GPollableOutputStreamInterface *iface);
G_DEFINE_FINAL_TYPE_WITH_CODE(VndInput, vnd_input, G_TYPE_INPUT_STREAM,
                              G_IMPLEMENT_INTERFACE(G_TYPE_POLLABLE_INPUT_STREAM,
                                                    vnd_input_pollable_init))
G_DEFINE_FINAL_TYPE_WITH_CODE(VndOutput, vnd_output, G_TYPE_OUTPUT_STREAM,
                              G_IMPLEMENT_INTERFACE(G_TYPE_POLLABLE_OUTPUT_STREAM,
                                                    vnd_output_pollable_init))

static gboolean
orphaned(VndInput *in, GError **error)
{
    if (in->conn)
        return FALSE;
    g_set_error_literal(error, G_IO_ERROR, G_IO_ERROR_CONNECTION_CLOSED,
                        "the connection was taken back by vnumad");
    return TRUE;
}

/* A source waiting for `cond` on `socket`, or firing at once when
 * `ready` (the socket is then not looked at: an orphan's may be closed),
 * and also ending when `wake` is cancelled. */
static GSource *
make_source(GObject *stream, GSocket *socket, GIOCondition cond, gboolean ready, GCancellable *wake,
            GCancellable *cancellable)
{
    GSource *child = ready ? g_timeout_source_new(0) : g_socket_create_source(socket, cond, NULL);
    GSource *source = g_pollable_source_new_full(stream, child, cancellable);
    GSource *woken = g_cancellable_source_new(wake);

    g_source_unref(child);
    g_source_set_dummy_callback(woken);
    g_source_add_child_source(source, woken);
    g_source_unref(woken);
    return source;
}

/* ---- input ---------------------------------------------------------------- */

static gssize
input_read(VndInput *in, void *buffer, gsize count, gboolean blocking, GCancellable *cancellable,
           GError **error)
{
    if (orphaned(in, error))
        return -1;
    return vnd_conn_input(in->conn, buffer, count, blocking, cancellable, error);
}

static gssize
vnd_input_read(GInputStream *stream, void *buffer, gsize count, GCancellable *cancellable,
               GError **error)
{
    return input_read(VND_INPUT(stream), buffer, count, TRUE, cancellable, error);
}

static gboolean
vnd_input_close(GInputStream *stream, GCancellable *cancellable, GError **error)
{
    VndInput *in = VND_INPUT(stream);
    VndConn *conn = g_steal_pointer(&in->conn);

    if (conn)
        vnd_conn_released(conn);
    return TRUE;
}

static gboolean
vnd_input_can_poll(GPollableInputStream *stream)
{
    return TRUE;
}

static gboolean
vnd_input_is_readable(GPollableInputStream *stream)
{
    VndInput *in = VND_INPUT(stream);

    return !in->conn || vnd_conn_input_ready(in->conn) ||
           g_socket_condition_check(in->socket, G_IO_IN) != 0;
}

static GSource *
vnd_input_create_source(GPollableInputStream *stream, GCancellable *cancellable)
{
    VndInput *in = VND_INPUT(stream);

    return make_source(G_OBJECT(stream), in->socket, G_IO_IN,
                       !in->conn || vnd_conn_input_ready(in->conn), in->wake, cancellable);
}

static gssize
vnd_input_read_nonblocking(GPollableInputStream *stream, void *buffer, gsize count, GError **error)
{
    return input_read(VND_INPUT(stream), buffer, count, FALSE, NULL, error);
}

static void
vnd_input_pollable_init(GPollableInputStreamInterface *iface)
{
    iface->can_poll = vnd_input_can_poll;
    iface->is_readable = vnd_input_is_readable;
    iface->create_source = vnd_input_create_source;
    iface->read_nonblocking = vnd_input_read_nonblocking;
}

static void
vnd_input_dispose(GObject *object)
{
    VndInput *in = VND_INPUT(object);
    VndConn *conn = g_steal_pointer(&in->conn);

    /* dropped without being closed: done with the request all the same */
    if (conn)
        vnd_conn_released(conn);
    G_OBJECT_CLASS(vnd_input_parent_class)->dispose(object);
}

static void
vnd_input_finalize(GObject *object)
{
    VndInput *in = VND_INPUT(object);

    g_clear_object(&in->socket);
    g_clear_object(&in->wake);
    G_OBJECT_CLASS(vnd_input_parent_class)->finalize(object);
}

static void
vnd_input_class_init(VndInputClass *klass)
{
    G_OBJECT_CLASS(klass)->dispose = vnd_input_dispose;
    G_OBJECT_CLASS(klass)->finalize = vnd_input_finalize;
    G_INPUT_STREAM_CLASS(klass)->read_fn = vnd_input_read;
    G_INPUT_STREAM_CLASS(klass)->close_fn = vnd_input_close;
}

static void
vnd_input_init(VndInput *in)
{
    in->wake = g_cancellable_new();
}

/* ---- output --------------------------------------------------------------- */

static gssize
output_write(VndOutput *out, const void *buffer, gsize count, gboolean blocking,
             GCancellable *cancellable, GError **error)
{
    if (orphaned(out->input, error))
        return -1;
    return g_socket_send_with_blocking(out->input->socket, buffer, count, blocking, cancellable,
                                       error);
}

static gssize
vnd_output_write(GOutputStream *stream, const void *buffer, gsize count, GCancellable *cancellable,
                 GError **error)
{
    return output_write(VND_OUTPUT(stream), buffer, count, TRUE, cancellable, error);
}

/* The socket is the connection's: it stays open for the next request. */
static gboolean
vnd_output_close(GOutputStream *stream, GCancellable *cancellable, GError **error)
{
    return TRUE;
}

static gboolean
vnd_output_can_poll(GPollableOutputStream *stream)
{
    return TRUE;
}

static gboolean
vnd_output_is_writable(GPollableOutputStream *stream)
{
    VndInput *in = VND_OUTPUT(stream)->input;

    return !in->conn || g_socket_condition_check(in->socket, G_IO_OUT) != 0;
}

static GSource *
vnd_output_create_source(GPollableOutputStream *stream, GCancellable *cancellable)
{
    VndInput *in = VND_OUTPUT(stream)->input;

    return make_source(G_OBJECT(stream), in->socket, G_IO_OUT, !in->conn, in->wake, cancellable);
}

static gssize
vnd_output_write_nonblocking(GPollableOutputStream *stream, const void *buffer, gsize count,
                             GError **error)
{
    return output_write(VND_OUTPUT(stream), buffer, count, FALSE, NULL, error);
}

static void
vnd_output_pollable_init(GPollableOutputStreamInterface *iface)
{
    iface->can_poll = vnd_output_can_poll;
    iface->is_writable = vnd_output_is_writable;
    iface->create_source = vnd_output_create_source;
    iface->write_nonblocking = vnd_output_write_nonblocking;
}

static void
vnd_output_finalize(GObject *object)
{
    g_clear_object(&VND_OUTPUT(object)->input);
    G_OBJECT_CLASS(vnd_output_parent_class)->finalize(object);
}

static void
vnd_output_class_init(VndOutputClass *klass)
{
    G_OBJECT_CLASS(klass)->finalize = vnd_output_finalize;
    G_OUTPUT_STREAM_CLASS(klass)->write_fn = vnd_output_write;
    G_OUTPUT_STREAM_CLASS(klass)->close_fn = vnd_output_close;
}

static void
vnd_output_init(VndOutput *out)
{
}

/* ---- the pair --------------------------------------------------------------- */

GIOStream *
vnd_stream_new(VndConn *c)
{
    g_autoptr(VndInput) in = g_object_new(VND_TYPE_INPUT, NULL);
    g_autoptr(VndOutput) out = g_object_new(VND_TYPE_OUTPUT, NULL);

    in->conn = c;
    in->socket = g_object_ref(vnd_conn_socket(c));
    out->input = g_object_ref(in);
    return g_simple_io_stream_new(G_INPUT_STREAM(in), G_OUTPUT_STREAM(out));
}

void
vnd_stream_orphan(GIOStream *stream)
{
    VndInput *in = VND_INPUT(g_io_stream_get_input_stream(stream));

    in->conn = NULL;
    g_cancellable_cancel(in->wake);
}
