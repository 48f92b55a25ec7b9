/* vnd-daemon.h: process plumbing — detaching, readiness, logging. */
#pragma once

#include <glib.h>

/* Forks: the parent waits until the child reports readiness (exit 0) or an
 * error (printed on stderr, exit 1) and never returns; the child returns
 * TRUE in a new session, with stdio on /dev/null, and must call
 * vnd_daemon_ready() or vnd_daemon_failed() exactly once. */
gboolean vnd_daemon_detach(GError **error);
/* Tells whoever waits (the detached parent, systemd's NOTIFY_SOCKET). */
void vnd_daemon_ready(void);
/* Tells the detached parent why we stop (no-op in the foreground). */
void vnd_daemon_failed(const gchar *message);
/* Logs to the journal when there is one and stderr is not a terminal the
 * user watches; else GLib's default writer. */
void vnd_daemon_setup_logging(gboolean foreground, gboolean verbose);
