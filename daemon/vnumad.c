/* vnumad: the planning API daemon.
 *
 *   vnumad [--socket PATH] [--topology FILE ...] [--config FILE] [--foreground]
 *
 * Reads the host (or a fixture standing in for it) once and vnuma.conf at
 * start and on SIGHUP (vnd-reload.c), listens on a unix socket (and on TCP
 * when configured), and answers JSON over HTTP: see doc/openapi.yaml.
 * Exit status: 0 after SIGTERM/SIGINT, 1 when it cannot start (one line on
 * stderr saying why).
 */
#include "vnd.h"
#include "vnd-daemon.h"

#include <signal.h>
#include <stdio.h>
#include <glib-unix.h>
#include "vn-config-build.h"

typedef struct {
    gchar *socket_path;
    gboolean foreground;
    gboolean verbose;
    gboolean version;
    VnSourceOptions source;
} Options;

static void
options_clear(Options *o)
{
    g_free(o->socket_path);
    vn_source_options_clear(&o->source);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Options, options_clear)

static gboolean
parse_options(Options *o, int *argc, char ***argv, GError **error)
{
    const GOptionEntry entries[] = {
        { "socket", 0, 0, G_OPTION_ARG_FILENAME, &o->socket_path,
          "Unix socket to listen on (default: [api] socket, else " VNUMA_DEFAULT_API_SOCKET ")",
          "PATH" },
        { "foreground", 0, 0, G_OPTION_ARG_NONE, &o->foreground, "Do not detach; log to stderr",
          NULL },
        { "verbose", 'v', 0, G_OPTION_ARG_NONE, &o->verbose, "Log every request", NULL },
        { "version", 0, 0, G_OPTION_ARG_NONE, &o->version, "Print the version", NULL },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);

    g_option_context_set_main_group(ctx, vn_source_option_group(&o->source));
    g_option_context_add_main_entries(ctx, entries, NULL);
    g_option_context_set_summary(
        ctx, "vnuma's planning API: JSON over HTTP on a unix socket (doc/openapi.yaml)");
    if (!g_option_context_parse(ctx, argc, argv, error))
        return FALSE;
    if (*argc > 1) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_FAILED, "unexpected argument \"%s\"",
                    (*argv)[1]);
        return FALSE;
    }
    return TRUE;
}

static gboolean
on_quit(gpointer user_data)
{
    VndDaemon *d = user_data;

    g_message("stopping");
    g_main_loop_quit(d->loop);
    return G_SOURCE_CONTINUE;
}

/* Signals arrive here through the main loop (g_unix_signal_add), never
 * in a raw handler: reloading allocates, reads files and logs. */
static gboolean
on_reload(gpointer user_data)
{
    vnd_reload(user_data);
    return G_SOURCE_CONTINUE;
}

static int
fail(const gchar *what, const GError *error)
{
    g_autofree gchar *line = g_strdup_printf("%s%s", what, error->message);

    vnd_daemon_failed(line);
    fprintf(stderr, "vnumad: %s\n", line);
    return 1;
}

/* Files are read before detaching (relative paths still mean what the
 * user meant, errors reach the terminal); the socket is bound after, by
 * the process that serves it. */
static int
run(Options *o)
{
    VndDaemon d = { 0 };
    g_autoptr(GError) error = NULL;
    g_autofree gchar *socket_path = NULL;
    int status = 0;

    if (!(d.state = vnd_state_new(&o->source, &error)))
        return fail("", error);
    socket_path = g_canonicalize_filename(o->socket_path ? o->socket_path
                                          : vnd_state_config(d.state)->api_socket
                                              ? vnd_state_config(d.state)->api_socket
                                              : VNUMA_DEFAULT_API_SOCKET,
                                          NULL);
    if (!o->foreground && !vnd_daemon_detach(&error)) {
        vnd_state_free(d.state);
        return fail("", error);
    }
    d.metrics = vnd_metrics_new();
    d.repair_failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    d.irq = vnd_irq_new();
    d.autonuma = vnd_autonuma_new();
    d.reapply = vnd_reapply_new();
    d.loop = g_main_loop_new(NULL, FALSE);
    if (vnd_server_start(&d, socket_path, &error)) {
        guint term = g_unix_signal_add(SIGTERM, on_quit, &d);
        guint intr = g_unix_signal_add(SIGINT, on_quit, &d);
        guint hup = g_unix_signal_add(SIGHUP, on_reload, &d);
        vnd_sample_arm(&d);
        vnd_irq_tick(&d);
        vnd_autonuma_tick(&d);
        vnd_daemon_ready();
        g_main_loop_run(d.loop);
        g_source_remove(d.sample_source);
        g_source_remove(term);
        g_source_remove(intr);
        g_source_remove(hup);
        vnd_autonuma_stop(&d);
    } else {
        status = fail("", error);
    }
    vnd_server_stop(&d, status == 0 ? socket_path : NULL);
    g_main_loop_unref(d.loop);
    vnd_metrics_free(d.metrics);
    g_hash_table_unref(d.repair_failures);
    vnd_irq_free(d.irq);
    vnd_autonuma_free(d.autonuma);
    vnd_reapply_free(d.reapply);
    vnd_state_free(d.state);
    return status;
}

int
main(int argc, char **argv)
{
    g_auto(Options) o = { 0 };
    g_autoptr(GError) error = NULL;

    g_set_prgname("vnumad");
    if (!parse_options(&o, &argc, &argv, &error)) {
        fprintf(stderr, "vnumad: %s (see --help)\n", error->message);
        return 1;
    }
    if (o.version) {
        printf("vnumad %s\n", VNUMA_VERSION);
        return 0;
    }
    signal(SIGPIPE, SIG_IGN);
    vnd_daemon_setup_logging(o.foreground, o.verbose);
    return run(&o);
}
