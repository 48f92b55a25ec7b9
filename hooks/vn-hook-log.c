/* vn-hook-log.c: every decision as one log line and one history line.
 *
 * The hook's stdout and stderr belong to libvirt (stderr becomes the
 * user's error message on a veto), so logs go to the journal when there is
 * one, else to syslog.  The history (<state_dir>/history.log, format and
 * writer in plugin/state/vn-history.h) is what `vnumactl log` shows. */
#include <syslog.h>
#include "vn-history.h"
#include "vn-hook.h"

static int
syslog_priority(GLogLevelFlags level)
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

GLogWriterOutput
vn_hook_log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                   gpointer user_data)
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

/* Through vn_history_append(), the one writer of history.log's format. */
static void
append_history(const VnHook *h)
{
    g_autoptr(GDateTime) now = g_date_time_new_from_unix_utc(h->now);
    g_autofree gchar *time = g_date_time_format_iso8601(now);
    g_autoptr(VnHistoryEntry) e =
        vn_history_entry_new(time, h->vm, vn_hook_phase_to_string(h->phase), h->decision,
                             h->nodes ? h->nodes : "", h->reason ? h->reason : "");
    /* failing to keep history must not change the hook's verdict; the log
     * line below still goes out */
    vn_history_append(vn_hook_state_dir(h), e, NULL);
}

void
vn_hook_log_decision(const VnHook *h)
{
    const gchar *phase = vn_hook_phase_to_string(h->phase);
    g_autofree gchar *message =
        g_strdup_printf("vm=%s phase=%s decision=%s nodes=%s reason=%s", h->vm, phase, h->decision,
                        h->nodes ? h->nodes : "-", h->reason ? h->reason : "-");
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
    g_log_structured_array(h->refusal ? G_LOG_LEVEL_MESSAGE : G_LOG_LEVEL_INFO, fields,
                           G_N_ELEMENTS(fields));
    append_history(h);
}
