/* vnd-irq.c: the NIC interrupt path kept on the node of the VMs it
 * serves ([rebalance] irq_steering).
 *
 * Every tick (at start, then every sample) reads the running VMs of the
 * ledger, their NICs and irqbalance's mode as `vnumactl irq plan` does
 * (vn_irq_view_new(), under the daemon's --sysroot), and compares the plan
 * with the last one applied:
 *  - a new plan (the first, VMs started or stopped, placements or
 *    dedicated cores moved, a NIC came or went) is applied as `vnumactl
 *    irq apply` applies it, whatever irqbalance does, with irqbalance's
 *    mode logged when it cannot keep its hands off;
 *  - the same plan: what drifted off it is put back, one log line per
 *    value with the value found and the one written, but only while
 *    irqbalance leaves vnuma's interrupts alone (not running, or running
 *    with vnuma's policy script).  With IRQBALANCE_BANNED_CPULIST or
 *    without coordination it moves them on its own interval, and putting
 *    them back each sample would be a tug of war: drift repair waits
 *    (said once) until the mode changes.
 * Failures, interrupts the kernel will not move and devices that cannot
 * be read are logged when they change, not on every sample.
 *
 * Writes go through vn_irq_apply_all(): only values that differ, all or
 * nothing per NIC, the values before saved for `vnumactl irq reset`.
 *
 * The view a tick reads (the ledger, every NIC's sysfs and /proc/irq
 * files, each running domain's status XML) is kept for GET /v1/host and
 * /metrics (vnd_irq_current()): built again at each sample (with steering
 * off, by the first request after it), after an apply that wrote
 * something (the view holds the values read, so only a new one shows what
 * was written), and when a request finds the ledger's generation moved.
 * A request thus costs no reads but the ledger's stat, and what it shows
 * is at most one sample old. */
#include "vnd.h"

#include "vn-cpulist.h"
#include "vn-irq.h"
#include "vn-ledger-domain.h"

struct _VndIrq {
    gchar *plan;             /* the last plan applied, as plan_key() */
    gchar *troubles;         /* failures, left and unreadable devices last logged */
    gint mode_logged;        /* irqbalance mode last logged, -1 none, -2 "not this host" */
    gboolean built;          /* view (or view_error) is this sample's */
    VnIrqView *view;         /* the last one built, NULL when it failed */
    GArray *status;          /* of VnIrqNicStatus, view's against its plan */
    GError *view_error;      /* why view is NULL */
    guint64 view_generation; /* the ledger's generation view was built from */
};

VndIrq *
vnd_irq_new(void)
{
    VndIrq *s = g_new0(VndIrq, 1);

    s->mode_logged = -1;
    return s;
}

void
vnd_irq_free(VndIrq *s)
{
    if (!s)
        return;
    g_free(s->plan);
    g_free(s->troubles);
    g_clear_pointer(&s->status, g_array_unref);
    g_clear_pointer(&s->view, vn_irq_view_free);
    g_clear_error(&s->view_error);
    g_free(s);
}

/* Builds the view and its status anew from a ledger snapshot, as
 * `vnumactl irq plan` reads the host; keeps the error instead when it
 * cannot. */
static void
refresh(VndDaemon *d)
{
    const VnConfig *c = vnd_state_config(d->state);
    VndIrq *s = d->irq;
    g_autoptr(VnLedger) snap = NULL;

    g_clear_pointer(&s->status, g_array_unref);
    g_clear_pointer(&s->view, vn_irq_view_free);
    g_clear_error(&s->view_error);
    s->built = TRUE;
    if (!vnd_state_measured(d->state)) {
        g_set_error_literal(&s->view_error, VND_ERROR, VND_ERROR_NOT_FOUND,
                            "the topology is a fixture, not this host: no NICs to read");
        return;
    }
    if (!(snap = vnd_ledger_snapshot(c->state_dir, &s->view_error)))
        return;
    s->view_generation = vn_ledger_generation(snap);
    s->view = vn_irq_view_new(vnd_state_sysroot(d->state), vn_ledger_libvirt_run_dir(),
                              vn_ledger_records(snap), vnd_state_topology(d->state),
                              c->policy->reserved_cpus, NULL, &s->view_error);
    if (s->view)
        s->status = vn_irq_view_status(s->view, c->state_dir);
}

const VnIrqView *
vnd_irq_current(VndDaemon *d, const GArray **ret_status, GError **error)
{
    VndIrq *s = d->irq;

    /* re-reads ledger.json's generation when the file changed (a stat
     * otherwise); a ledger that does not load keeps the view as it is */
    vnd_state_load(d->state, NULL);
    if (!s->built || s->view_generation != vnd_state_generation(d->state))
        refresh(d);
    if (!s->view) {
        g_propagate_error(error, g_error_copy(s->view_error));
        return NULL;
    }
    if (ret_status)
        *ret_status = s->status;
    return s->view;
}

static void
append_masks(GString *key, const gchar *what, const GPtrArray *masks)
{
    for (guint i = 0; i < masks->len; i++) {
        g_autofree gchar *m = vn_cpulist_format(masks->pdata[i]);
        g_string_append_printf(key, " %s%u=%s", what, i, m);
    }
}

/* Everything the plan would write, as one string to compare. */
static gchar *
plan_key(const VnIrqPlan *p)
{
    GString *key = g_string_new(NULL);

    for (guint i = 0; i < p->nics->len; i++) {
        const VnIrqNicPlan *np = p->nics->pdata[i];
        g_string_append_printf(key, "%s%s:", i ? "; " : "", np->name);
        if (!np->cpus)
            continue;
        for (guint k = 0; k < np->targets->len; k++) {
            const VnIrqTarget *t = &g_array_index(np->targets, VnIrqTarget, k);
            g_autofree gchar *cpus = t->cpus ? vn_cpulist_format(t->cpus) : g_strdup("left");
            g_string_append_printf(key, " %u=%s", t->irq, cpus);
        }
        append_masks(key, "rx", np->rps);
        append_masks(key, "tx", np->xps);
    }
    return g_string_free(key, FALSE);
}

/* Whether irqbalance leaves the interrupts vnuma placed where they are. */
static gboolean
irqbalance_keeps_off(const VnIrqbalance *ib)
{
    return ib->mode == VN_IRQBALANCE_OFF || ib->mode == VN_IRQBALANCE_POLICY_SCRIPT;
}

static void
note_mode(VndIrq *s, const VnIrqbalance *ib)
{
    g_autofree gchar *line = NULL;

    if (s->mode_logged == (gint)ib->mode)
        return;
    s->mode_logged = (gint)ib->mode;
    line = vn_irqbalance_describe(ib);
    if (irqbalance_keeps_off(ib))
        g_message("NIC interrupts: irqbalance %s", line);
    else
        g_message("NIC interrupts: irqbalance %s; placed when the running VMs change, "
                  "drift not repaired while it runs so",
                  line);
}

static gchar *
join(const gchar *sep, const GPtrArray *lines)
{
    GString *s = g_string_new(NULL);

    for (guint i = 0; i < lines->len; i++)
        g_string_append_printf(s, "%s%s", i ? sep : "", (const gchar *)lines->pdata[i]);
    return g_string_free(s, FALSE);
}

/* Logs what went wrong when it differs from what was logged last. */
static void
note_troubles(VndIrq *s, const GPtrArray *problems, const GPtrArray *left, const GPtrArray *failed)
{
    g_autoptr(GPtrArray) all = g_ptr_array_new();
    g_autofree gchar *text = NULL;

    for (guint i = 0; i < failed->len; i++)
        g_ptr_array_add(all, failed->pdata[i]);
    for (guint i = 0; i < left->len; i++)
        g_ptr_array_add(all, left->pdata[i]);
    for (guint i = 0; i < problems->len; i++)
        g_ptr_array_add(all, problems->pdata[i]);
    text = all->len ? join("; ", all) : NULL;
    if (g_strcmp0(text, s->troubles) == 0)
        return;
    if (text)
        g_message("NIC interrupts: %s", text);
    else
        g_message("NIC interrupts: checked again without trouble");
    g_free(s->troubles);
    s->troubles = g_steal_pointer(&text);
}

/* Returns whether it wrote anything (irq-managed is rewritten whenever
 * the plan is new). */
static gboolean
apply(VndDaemon *d, const VnIrqView *v, gboolean new_plan)
{
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) left = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func(g_free);

    vn_irq_apply_all(vnd_state_sysroot(d->state), c->state_dir, v->host, v->plan, v->n_cpus,
                     changed, left, failed);
    if (new_plan && changed->len) {
        g_autofree gchar *what = join("; ", changed);
        g_message("NIC interrupts placed for the running VMs: %s", what);
    } else {
        for (guint i = 0; i < changed->len; i++)
            g_message("NIC interrupts: drifted, put back: %s", (const gchar *)changed->pdata[i]);
    }
    vnd_metrics_count_irq(d->metrics, new_plan ? 0 : changed->len, failed->len);
    note_troubles(d->irq, v->host->problems, left, failed);
    return new_plan || changed->len || failed->len;
}

void
vnd_irq_tick(VndDaemon *d)
{
    const VnConfig *c = vnd_state_config(d->state);
    const VnIrqView *v;
    g_autofree gchar *key = NULL;
    gboolean new_plan;

    if (c->irq_steering != VN_IRQ_STEERING_ON) {
        /* nothing to apply: the first request of this sample builds the
         * view, none when nobody asks.  When steering is turned on again,
         * the plan is applied anew and irqbalance's mode said again. */
        d->irq->built = FALSE;
        g_clear_pointer(&d->irq->plan, g_free);
        d->irq->mode_logged = -1;
        return;
    }
    /* /v1/host and /metrics show this one until the next sample */
    refresh(d);
    if (d->rebalancing)
        return; /* its child moves VMs before the ledger says where they are */
    if (!vnd_state_measured(d->state)) {
        /* a fixture topology's CPUs are not this host's: never write them
         * into its /proc/irq */
        if (d->irq->mode_logged != -2)
            g_message("NIC interrupts: not steered: the topology is a fixture, not this host "
                      "(give --sysroot for a captured one)");
        d->irq->mode_logged = -2;
        return;
    }
    if (!(v = d->irq->view)) {
        g_autoptr(GPtrArray) none = g_ptr_array_new();
        g_autoptr(GPtrArray) one = g_ptr_array_new();
        g_ptr_array_add(one, d->irq->view_error->message);
        note_troubles(d->irq, none, none, one);
        return;
    }
    note_mode(d->irq, v->irqbalance);
    key = plan_key(v->plan);
    new_plan = g_strcmp0(key, d->irq->plan) != 0;
    if (!new_plan && !irqbalance_keeps_off(v->irqbalance))
        return;
    g_free(d->irq->plan);
    d->irq->plan = g_steal_pointer(&key);
    /* the view read the values before: rebuilt so /metrics and /v1/host
     * show what was written (v is not used after this) */
    if (apply(d, v, new_plan))
        refresh(d);
}
