/* vnd-reload.c: SIGHUP, vnuma.conf read again while the daemon runs.
 *
 * All or nothing: the file is parsed and validated into a new VnConfig by
 * the same vn_config_load() as at start, and only when that succeeds does
 * it replace the running one, in one pointer swap between two requests
 * (the daemon is single-threaded and no handler keeps the config across a
 * return to the main loop), so a request sees the old config or the new,
 * never a mix.  A file that does not load changes nothing.
 *
 * Which keys take effect at once and which need a restart (and keep their
 * running value until then) is the schema's to say (vn-config-schema.c);
 * vn_config_diff() compares the two configs row by row.  Here only what
 * the daemon does about a change: the sampling timer is re-armed for a new
 * [rebalance] interval, and the hot streak starts again when the loop's
 * settings changed. */
#include "vnd.h"

#include "vn-config-diff.h"

static gchar *
join(GPtrArray *names)
{
    g_ptr_array_add(names, NULL);
    return g_strjoinv(", ", (gchar **)names->pdata);
}

void
vnd_reload(VndDaemon *d)
{
    const VnConfig *running = vnd_state_config(d->state);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) next = vnd_state_config_read(d->state, &error);
    g_autoptr(VnConfigDiff) diff = NULL;
    g_autofree gchar *what = NULL, *restart = NULL;
    gboolean defaults, new_interval, new_loop;

    if (!next) {
        vnd_metrics_count_reload(d->metrics, FALSE);
        /* vn_config_load()'s errors name the file, group and key */
        g_message("config reload failed, the running config stays in effect: %s", error->message);
        return;
    }
    diff = vn_config_diff(running, next);
    vn_config_diff_keep_running(diff, running, next);
    defaults = next->path == NULL;
    new_interval = running->rebalance_interval_s != next->rebalance_interval_s;
    new_loop = new_interval || running->rebalance_auto != next->rebalance_auto ||
               running->rebalance_hot_intervals != next->rebalance_hot_intervals;
    vnd_state_config_replace(d->state, g_steal_pointer(&next));
    running = NULL;
    if (new_interval)
        vnd_sample_arm(d);
    /* the streak counted samples taken under the old settings */
    if (new_loop)
        d->hot_streak = 0;
    vnd_metrics_count_reload(d->metrics, TRUE);
    what = diff->changed->len ? join(diff->changed) : g_strdup("unchanged");
    restart = diff->kept->len ? join(diff->kept) : NULL;
    g_message("config reloaded from %s%s: %s%s%s", vnd_state_config_file(d->state),
              defaults ? " (absent: defaults)" : "", what,
              restart ? "; needs a restart, running value kept: " : "", restart ? restart : "");
}
