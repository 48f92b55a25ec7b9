/* vnd-repair.c: drift repair, the data path kept on its VM's node.
 *
 * `vnumactl apply` (at start) and rebalancing steer a VM's vhost workers
 * and [dataplane] processes once; afterwards they drift: a back-end
 * restarts with a new pid, a hot-plugged NIC brings new vhost workers, an
 * operator changes an affinity by hand.  So on every sample (the timer of
 * vnumad.c, armed whether or not [rebalance] auto is on), with [rebalance]
 * dataplane_repair (default true), each running placed VM of the ledger
 * goes through vn_dataplane_repair(): what drifted off the VM's CPUs is
 * put back, what is in place is only looked at.
 *
 * One log line per VM re-steered, naming what moved from which CPUs to
 * which; re-steered and failed steps are counted in /metrics.  A failing
 * step (a back-end down, its pid file gone) is counted on every sample
 * but logged only when the VM's failures change, and once when they
 * clear: a back-end down for maintenance says so once, not every interval.
 *
 * Runs in the main loop: what is in place costs a sched_getaffinity(2)
 * per thread; a re-steered process's page move (migrate_pages) holds the
 * loop while it runs, which drift, being rare, makes acceptable.  Skipped
 * while a rebalancing round runs: its child moves VMs before the ledger
 * says where they are. */
#include "vnd.h"

#include "vn-dataplane.h"

/* Holds, starts in progress and reservations are not running VMs. */
static gboolean
repairable(const VnLedgerRecord *r)
{
    return r->state == VN_LEDGER_STATE_RUNNING && r->expires == 0 && !r->foreign &&
           !g_str_has_prefix(r->uuid, VND_RESERVATION_PREFIX);
}

static gchar *
join(GPtrArray *lines)
{
    g_ptr_array_add(lines, NULL);
    return g_strjoinv("; ", (gchar **)lines->pdata);
}

/* Logs the VM's failures when they differ from the last sample's (kept in
 * `now`, VM -> text, for the next comparison). */
static void
note_failures(VndDaemon *d, const gchar *vm, GPtrArray *failed, GHashTable *now)
{
    const gchar *before = g_hash_table_lookup(d->repair_failures, vm);
    g_autofree gchar *text = NULL;

    if (failed->len == 0) {
        if (before)
            g_message("data path of %s: checked again without failure", vm);
        return;
    }
    text = join(failed);
    if (g_strcmp0(before, text) != 0)
        g_message("data path of %s: drift not repaired: %s", vm, text);
    g_hash_table_insert(now, g_strdup(vm), g_steal_pointer(&text));
}

static void
repair_one(VndDaemon *d, const VnLedgerRecord *r, GHashTable *kthreads, GHashTable *failures)
{
    g_autoptr(GPtrArray) done = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    g_autofree gchar *what = NULL;

    if (!vn_dataplane_repair(r, vnd_state_config(d->state), kthreads, done, failed, &error))
        g_ptr_array_add(failed, g_strdup(error->message));
    vnd_metrics_count_resteered(d->metrics, done->len, failed->len);
    if (done->len > 0) {
        what = join(done);
        g_message("data path of %s drifted, re-steered: %s", r->name, what);
    }
    note_failures(d, r->name, failed, failures);
}

void
vnd_repair_tick(VndDaemon *d)
{
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = NULL;
    g_autoptr(GHashTable) failures = NULL;
    g_autoptr(GHashTable) kthreads = NULL;
    gboolean kthreads_tried = FALSE;
    GPtrArray *records;

    if (!c->dataplane_repair || d->rebalancing)
        return;
    if (!(snap = vnd_ledger_snapshot(c->state_dir, &error))) {
        g_message("data path check: %s", error->message);
        return;
    }
    failures = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    records = vn_ledger_records(snap);
    for (guint i = 0; i < records->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(records, i);

        if (!repairable(r))
            continue;
        /* the older kernels' vhost kthreads: one scan of /proc per sample
         * for every VM, not one per VM (the daemon's one thread also
         * answers the API); without it each VM scans for itself */
        if (!kthreads && !kthreads_tried) {
            g_autoptr(GError) scan_error = NULL;
            kthreads_tried = TRUE;
            if (!(kthreads = vn_dataplane_vhost_kthreads("/", &scan_error)))
                g_message("data path check: vhost kthreads: %s", scan_error->message);
        }
        repair_one(d, r, kthreads, failures);
    }
    /* VMs gone from the ledger are forgotten with the rest */
    g_hash_table_unref(d->repair_failures);
    d->repair_failures = g_steal_pointer(&failures);
}
