/* vn-hook-log.c: every decision as one log line and one history line.
 *
 * The hook's stdout and stderr belong to libvirt (stderr becomes the
 * user's error message on a veto), so logs go to the journal when there is
 * one, else to syslog.  The history (<state_dir>/history.log, one JSON
 * object per line, rotated once at 1 MiB) is what `vnumactl log` shows;
 * each line is one O_APPEND write, so concurrent hooks never interleave. */
#include <fcntl.h>
#include <string.h>
#include <syslog.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "vn-hook.h"

#define HISTORY_FILE "history.log"
#define HISTORY_MAX_BYTES (1024 * 1024)

static int syslog_priority(GLogLevelFlags level)
{
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL))
        return LOG_ERR;
    if (level & G_LOG_LEVEL_WARNING)
        return LOG_WARNING;
    if (level & G_LOG_LEVEL_MESSAGE)
        return LOG_NOTICE;
    if (level & G_LOG_LEVEL_DEBUG)
        return LOG_DEBUG;
    return LOG_INFO;
}

GLogWriterOutput vn_hook_log_writer(GLogLevelFlags level, const GLogField *fields,
                                    gsize n_fields, gpointer user_data)
{
    if (g_log_writer_journald(level, fields, n_fields, user_data) == G_LOG_WRITER_HANDLED)
        return G_LOG_WRITER_HANDLED;
    for (gsize i = 0; i < n_fields; i++) {
        if (g_strcmp0(fields[i].key, "MESSAGE") == 0) {
            static gboolean opened;
            if (!opened) {
                openlog("vnuma-hook", LOG_PID, LOG_DAEMON);
                opened = TRUE;
            }
            syslog(syslog_priority(level), "%s", (const gchar *)fields[i].value);
        }
    }
    return G_LOG_WRITER_HANDLED;
}

static gchar *history_line(const VnHook *h)
{
    g_autoptr(GDateTime) now = g_date_time_new_from_unix_utc(h->now);
    g_autofree gchar *time = g_date_time_format_iso8601(now);
    g_autoptr(JsonBuilder) b = json_builder_new();
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "time");
    json_builder_add_string_value(b, time);
    json_builder_set_member_name(b, "vm");
    json_builder_add_string_value(b, h->vm);
    json_builder_set_member_name(b, "phase");
    json_builder_add_string_value(b, vn_hook_phase_to_string(h->phase));
    json_builder_set_member_name(b, "decision");
    json_builder_add_string_value(b, h->decision);
    json_builder_set_member_name(b, "nodes");
    json_builder_add_string_value(b, h->nodes ? h->nodes : "");
    json_builder_set_member_name(b, "reason");
    json_builder_add_string_value(b, h->reason ? h->reason : "");
    json_builder_end_object(b);
    g_autoptr(JsonNode) root = json_builder_get_root(b);
    g_autofree gchar *text = json_to_string(root, FALSE);
    return g_strconcat(text, "\n", NULL);
}

static void append_history(const VnHook *h)
{
    const gchar *dir = vn_hook_state_dir(h);
    if (g_mkdir_with_parents(dir, 0755) < 0)
        return;
    g_autofree gchar *path = g_build_filename(dir, HISTORY_FILE, NULL);
    GStatBuf st;
    if (g_stat(path, &st) == 0 && st.st_size > HISTORY_MAX_BYTES) {
        g_autofree gchar *old = g_strconcat(path, ".1", NULL);
        g_rename(path, old);
    }
    int fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0)
        return;
    g_autofree gchar *line = history_line(h);
    if (write(fd, line, strlen(line)) < 0) {
        /* nowhere left to report it; the log line below still goes out */
    }
    close(fd);
}

void vn_hook_log_decision(const VnHook *h)
{
    const gchar *phase = vn_hook_phase_to_string(h->phase);
    g_autofree gchar *message =
        g_strdup_printf("vm=%s phase=%s decision=%s nodes=%s reason=%s", h->vm, phase,
                        h->decision, h->nodes ? h->nodes : "-", h->reason ? h->reason : "-");
    const GLogField fields[] = {
        { "MESSAGE", message, -1 },
        { "PRIORITY", h->refusal ? "4" : "6", -1 },
        { "GLIB_DOMAIN", G_LOG_DOMAIN, -1 },
        { "VNUMA_VM", h->vm, -1 },
        { "VNUMA_PHASE", phase, -1 },
        { "VNUMA_DECISION", h->decision, -1 },
        { "VNUMA_NODES", h->nodes ? h->nodes : "", -1 },
        { "VNUMA_REASON", h->reason ? h->reason : "", -1 },
    };
    g_log_structured_array(h->refusal ? G_LOG_LEVEL_MESSAGE : G_LOG_LEVEL_INFO,
                           fields, G_N_ELEMENTS(fields));
    append_history(h);
}
