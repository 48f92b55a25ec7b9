/* vnd-reapply.c: placements the hook left unapplied, applied again.
 *
 * For a VM it places or moves while the VM runs (its own placement after
 * `started`, the moves of defragmentation or consolidation), the qemu
 * hook writes the record with needs_apply and starts a detached
 * `vnumactl apply`, since a hook may not call libvirt.  When that apply
 * fails (libvirt busy, the domain's job lock, the helper killed) the VM
 * keeps running where it was while the ledger counts it where the record
 * says, until it stops.  So on every sample, vnumad applies such records
 * again: each running VM's record with needs_apply that was seen so,
 * unchanged, a sample earlier and whose apply lock no one holds (the
 * hook's own helper takes it first: vn-apply-lock.h) is applied by
 * `vnumactl apply NAME`, the one implementation of "pins, memory nodeset,
 * data path, then needs_apply cleared under the ledger lock", run as a
 * child as the rebalancer's round is (a live apply may wait tens of
 * seconds for the domain's job; the daemon's one thread answers the API).
 * One VM at a time, one after the other.
 *
 * Bounded (vn-ledger-reapply.h): a record that fails VN_REAPPLY_MAX_FAILURES
 * times in a row is left alone until it changes.  One log line per
 * re-apply and per failure (with vnumactl's reason), one when it gives
 * up; counted in /metrics.  Only for the live host (a fixture topology's
 * ledger names no domain of this libvirt), and not while a rebalancing
 * round runs (it moves VMs before the ledger says where they are). */
#include "vnd.h"

#include <string.h>
#include "vn-apply-lock.h"
#include "vn-ledger-reapply.h"

/* What vnumad lets a `vnumactl apply` wait for the domain (seconds): it
 * runs already. */
#define REAPPLY_TIMEOUT_S 30

struct _VndReapply {
    VnReapply *book;
    GQueue queue;      /* VnLedgerRecord *, owned: due, not started yet */
    gboolean running;  /* a `vnumactl apply` child runs */
    VnLedgerRecord *r; /* its record */
};

VndReapply *
vnd_reapply_new(void)
{
    VndReapply *s = g_new0(VndReapply, 1);

    s->book = vn_reapply_new(VN_REAPPLY_MAX_FAILURES);
    g_queue_init(&s->queue);
    return s;
}

void
vnd_reapply_free(VndReapply *s)
{
    if (!s)
        return;
    vn_reapply_free(s->book);
    g_queue_clear_full(&s->queue, (GDestroyNotify)vn_ledger_record_free);
    vn_ledger_record_free(s->r);
    g_free(s);
}

guint
vnd_reapply_given_up(const VndReapply *s)
{
    return vn_reapply_given_up(s->book);
}

gboolean
vnd_reapply_running(const VndReapply *s)
{
    return s->running;
}

/* vnumactl's last non-empty stderr line, without its "vnumactl: ". */
static gchar *
reason(const gchar *err, const GError *error)
{
    g_auto(GStrv) lines = g_strsplit(err ? err : "", "\n", -1);
    const gchar *last = NULL;

    if (error)
        return g_strdup(error->message);
    for (guint i = 0; lines[i]; i++)
        if (*g_strstrip(lines[i]))
            last = lines[i];
    if (!last)
        return g_strdup("vnumactl apply failed without a message");
    return g_strdup(g_str_has_prefix(last, "vnumactl: ") ? last + strlen("vnumactl: ") : last);
}

static void start_next(VndDaemon *d);

static void
on_applied(GObject *source, GAsyncResult *result, gpointer user_data)
{
    VndDaemon *d = user_data;
    VndReapply *s = d->reapply;
    g_autoptr(VnLedgerRecord) r = g_steal_pointer(&s->r);
    g_autofree gchar *out = NULL, *err = NULL;
    g_autoptr(GError) error = NULL;
    gboolean ok =
        g_subprocess_communicate_utf8_finish(G_SUBPROCESS(source), result, &out, &err, &error) &&
        g_subprocess_get_successful(G_SUBPROCESS(source));
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    g_autofree gchar *why = ok ? NULL : reason(err, error);
    guint failures = 0;

    switch (vn_reapply_note(s->book, r, ok, &failures)) {
    case VN_REAPPLY_APPLIED:
        g_message("placement of %s re-applied on node(s) %s (the hook's apply had not happened)",
                  r->name, nodes);
        vnd_state_history(d->state, r->name, "reapply", "applied", nodes,
                          "needs_apply left by a failed apply");
        break;
    case VN_REAPPLY_RETRY:
        g_message("placement of %s not re-applied (failure %u of %u): %s", r->name, failures,
                  VN_REAPPLY_MAX_FAILURES, why);
        break;
    case VN_REAPPLY_GAVE_UP:
        g_message("placement of %s not re-applied (failure %u of %u): %s", r->name, failures,
                  VN_REAPPLY_MAX_FAILURES, why);
        g_message("placement of %s: giving up after %u failures in a row until its record "
                  "changes",
                  r->name, failures);
        break;
    case VN_REAPPLY_OUTCOME_MAX:
        g_return_if_reached();
    }
    vnd_metrics_count_reapply(d->metrics, ok);
    vnd_state_invalidate(d->state);
    s->running = FALSE;
    start_next(d);
}

/* `vnumactl apply NAME` with the daemon's state directory and config. */
static GSubprocess *
spawn(VndDaemon *d, const VnLedgerRecord *r, GError **error)
{
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GSubprocessLauncher) launcher =
        g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE);
    g_autofree gchar *timeout = g_strdup_printf("%d", REAPPLY_TIMEOUT_S);

    const gchar *config = vnd_state_config_file(d->state);

    /* the [dataplane] section vnumactl steers by is the daemon's (none:
     * the defaults, as for the daemon) */
    if (g_file_test(config, G_FILE_TEST_EXISTS))
        g_subprocess_launcher_setenv(launcher, "VNUMA_CONFIG", config, TRUE);
    else
        g_subprocess_launcher_unsetenv(launcher, "VNUMA_CONFIG");
    return g_subprocess_launcher_spawn(launcher, error, vnd_vnumactl(), "apply", "--state-dir",
                                       c->state_dir, "--timeout", timeout, r->name, NULL);
}

static void
start_next(VndDaemon *d)
{
    VndReapply *s = d->reapply;

    while (!s->running && !g_queue_is_empty(&s->queue)) {
        g_autoptr(VnLedgerRecord) r = g_queue_pop_head(&s->queue);
        g_autoptr(GError) error = NULL;
        g_autoptr(GSubprocess) proc = spawn(d, r, &error);

        if (!proc) {
            g_message("placement of %s not re-applied: %s", r->name, error->message);
            vn_reapply_note(s->book, r, FALSE, NULL);
            vnd_metrics_count_reapply(d->metrics, FALSE);
            continue;
        }
        s->r = g_steal_pointer(&r);
        s->running = TRUE;
        g_subprocess_communicate_utf8_async(proc, NULL, NULL, on_applied, d);
    }
}

void
vnd_reapply_tick(VndDaemon *d)
{
    VndReapply *s = d->reapply;
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = NULL;
    g_autoptr(GPtrArray) due = NULL;
    /* one interval (less the timer's slack) since the first sight */
    guint grace_ms = MAX(1000, c->rebalance_interval_s * 1000 - 500);

    if (!vnd_state_live(d->state) || d->rebalancing || s->running || !g_queue_is_empty(&s->queue))
        return;
    if (!(snap = vnd_ledger_snapshot(c->state_dir, &error))) {
        g_message("re-apply check: %s", error->message);
        return;
    }
    due = vn_reapply_due(s->book, vn_ledger_records(snap), g_get_monotonic_time() / 1000, grace_ms);
    for (guint i = 0; i < due->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(due, i);
        /* the hook's helper (or an operator) applies it right now */
        if (!vn_apply_lock_held(c->state_dir, r->uuid))
            g_queue_push_tail(&s->queue, vn_ledger_record_copy(r));
    }
    start_next(d);
}
