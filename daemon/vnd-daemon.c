/* vnd-daemon.c: detaching with a readiness pipe, sd_notify, log writer.
 *
 * The parent of a detached daemon exits only once the child listens (or
 * failed, with its reason), so `vnumad && curl ...` never races the
 * socket.  Under systemd (Type=notify) READY=1 goes to $NOTIFY_SOCKET. */
#include "vnd-daemon.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>

static gint ready_fd = -1;
static gboolean log_verbose;

static void
parent_wait(gint fd)
{
    gchar buf[1024];
    gssize n, len = 0;

    while ((n = read(fd, buf + len, sizeof(buf) - 1 - (gsize)len)) > 0)
        len += n;
    buf[len > 0 ? len : 0] = '\0';
    if (len >= 2 && g_str_equal(buf, "OK"))
        exit(0);
    fprintf(stderr, "vnumad: %s\n", len > 0 ? buf : "exited before it was ready");
    exit(1);
}

gboolean
vnd_daemon_detach(GError **error)
{
    gint p[2], null;
    pid_t pid;

    if (pipe(p) != 0 || (pid = fork()) < 0) {
        g_set_error(error, G_IO_ERROR, g_io_error_from_errno(errno), "detach: %s",
                    g_strerror(errno));
        return FALSE;
    }
    if (pid > 0) {
        close(p[1]);
        parent_wait(p[0]);
    }
    close(p[0]);
    ready_fd = p[1];
    setsid();
    if (chdir("/") != 0)
        g_debug("chdir /: %s", g_strerror(errno));
    null = open("/dev/null", O_RDWR | O_CLOEXEC);
    if (null >= 0) {
        dup2(null, 0);
        dup2(null, 1);
        dup2(null, 2);
        close(null);
    }
    return TRUE;
}

static void
tell_parent(const gchar *text)
{
    if (ready_fd < 0)
        return;
    if (write(ready_fd, text, strlen(text)) < 0)
        g_debug("readiness pipe: %s", g_strerror(errno));
    close(ready_fd);
    ready_fd = -1;
}

static void
notify_systemd(const gchar *state)
{
    const gchar *path = g_getenv("NOTIFY_SOCKET");
    g_autoptr(GSocket) sock = NULL;
    g_autoptr(GSocketAddress) addr = NULL;

    if (!path || (path[0] != '/' && path[0] != '@'))
        return;
    sock =
        g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_DATAGRAM, G_SOCKET_PROTOCOL_DEFAULT, NULL);
    addr = path[0] == '@'
               ? g_unix_socket_address_new_with_type(path + 1, -1, G_UNIX_SOCKET_ADDRESS_ABSTRACT)
               : g_unix_socket_address_new(path);
    if (sock && g_socket_send_to(sock, addr, state, strlen(state), NULL, NULL) < 0)
        g_debug("NOTIFY_SOCKET: not sent");
}

void
vnd_daemon_ready(void)
{
    tell_parent("OK");
    notify_systemd("READY=1");
}

void
vnd_daemon_failed(const gchar *message)
{
    tell_parent(message);
}

static GLogWriterOutput
writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer user_data)
{
    gboolean journal = GPOINTER_TO_INT(user_data);

    if (!log_verbose && (level & (G_LOG_LEVEL_DEBUG | G_LOG_LEVEL_INFO)))
        return G_LOG_WRITER_HANDLED;
    if (journal && g_log_writer_journald(level, fields, n_fields, NULL) == G_LOG_WRITER_HANDLED)
        return G_LOG_WRITER_HANDLED;
    return g_log_writer_standard_streams(level, fields, n_fields, NULL);
}

void
vnd_daemon_setup_logging(gboolean foreground, gboolean verbose)
{
    gboolean journal = !foreground || g_log_writer_is_journald(fileno(stderr));

    log_verbose = verbose;
    g_log_set_writer_func(writer, GINT_TO_POINTER(journal), NULL);
}
