/* vnd-autonuma.c: kernel.numa_balancing watched, and settled as
 * [host] numa_balancing says.
 *
 * At start and on every sample (only when /proc describes the topology:
 * the live host or --sysroot; a fixture topology is never this host's
 * sysctl), vnumad reads /proc/vmstat's NUMA balancing counters (the rates
 * of GET /v1/host are the difference from the previous sample) and the
 * sysctl.  The value it finds before its first change is kept ("found at
 * start" when the operator does not change it meanwhile).  Then
 * vn_autonuma_decide() (scheduler/vn-autonuma-plan.h) says what to write,
 * from the wish, the placed VMs' memory modes (the placement recorded in
 * libvirt's status XML, vn-autonuma-report.h) and the host's tiers:
 *  - off: 0 while every placed VM is bound;
 *  - tiering: 2 on a host with a slow tier;
 *  - leave, or off/tiering no longer holding: the value found at start
 *    comes back when vnumad changed it (a reload to leave restores it on
 *    the next sample);
 *  - at stop: the value found at start comes back too, since nobody is
 *    then left to turn balancing on again for a VM that is not bound.
 * One log line per change (with the reason) and per refusal or failure
 * (when it differs from the last one logged, so not on every sample).
 * Writes go below the sysroot, so the api suite runs this on a fixture. */
#include "vnd.h"

#include "vn-autonuma-report.h"
#include "vn-ledger-domain.h"

struct _VndAutonuma {
    gint restore;  /* the value before vnumad's change while its own is in place, else -1 */
    gchar *logged; /* the last refusal or failure logged */
    gboolean have_last;
    VnAutonumaCounters last; /* the previous sample's counters */
    gint64 last_us;          /* its monotonic time */
    gboolean have_rates;
    VnAutonumaRates rates; /* between the last two samples */
    JsonNode *host_json;   /* GET /v1/host's "autonuma" since the last sample, or NULL */
};

VndAutonuma *
vnd_autonuma_new(void)
{
    VndAutonuma *a = g_new0(VndAutonuma, 1);

    a->restore = -1;
    return a;
}

void
vnd_autonuma_free(VndAutonuma *a)
{
    if (!a)
        return;
    g_free(a->logged);
    g_clear_pointer(&a->host_json, json_node_unref);
    g_free(a);
}

const VnAutonumaRates *
vnd_autonuma_rates(VndDaemon *d)
{
    return d->autonuma->have_rates ? &d->autonuma->rates : NULL;
}

JsonNode *
vnd_autonuma_host_json(VndDaemon *d)
{
    VndAutonuma *a = d->autonuma;
    g_autoptr(VnLedger) snap = NULL;
    g_autoptr(VnAutonumaView) v = NULL;

    if (!vnd_state_measured(d->state))
        return NULL;
    if (!a->host_json) {
        /* an unreadable ledger: the host's figures alone */
        snap = vnd_ledger_snapshot(vnd_state_config(d->state)->state_dir, NULL);
        v = vn_autonuma_view_new(vnd_state_sysroot(d->state), vn_ledger_libvirt_run_dir(),
                                 snap ? vn_ledger_records(snap) : NULL);
        a->host_json = vn_autonuma_to_json(v, vnd_autonuma_rates(d));
    }
    return json_node_ref(a->host_json);
}

static void
sample_counters(VndDaemon *d)
{
    VndAutonuma *a = d->autonuma;
    VnAutonumaCounters now;
    gint64 now_us = g_get_monotonic_time();

    if (!vn_autonuma_vmstat_read(vnd_state_sysroot(d->state), &now, NULL)) {
        a->have_last = a->have_rates = FALSE;
        return;
    }
    if (a->have_last)
        a->have_rates = vn_autonuma_rates(
            &a->last, &now, (gdouble)(now_us - a->last_us) / G_USEC_PER_SEC, &a->rates);
    a->last = now;
    a->last_us = now_us;
    a->have_last = TRUE;
}

/* Logs `line` unless it is the one logged last. */
static void
note(VndAutonuma *a, const gchar *line)
{
    if (g_strcmp0(line, a->logged) == 0)
        return;
    g_message("AutoNUMA: %s", line);
    g_free(a->logged);
    a->logged = g_strdup(line);
}

static void
write_value(VndDaemon *d, gint current, const VnAutonumaDecision *dec)
{
    VndAutonuma *a = d->autonuma;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *line = NULL;

    if (!vn_autonuma_mode_write(vnd_state_sysroot(d->state), dec->value, &error)) {
        line = g_strdup_printf("kernel.numa_balancing stays %d: %s (wanted %d: %s)", current,
                               error->message, dec->value, dec->reason);
        note(a, line);
        return;
    }
    /* the value before vnumad's first change is the one to come back */
    if (a->restore < 0)
        a->restore = current;
    else if (dec->value == a->restore)
        a->restore = -1;
    g_message("AutoNUMA: kernel.numa_balancing %d -> %d: %s", current, dec->value, dec->reason);
    /* a refusal that restored the value is said: not again next sample */
    g_free(a->logged);
    a->logged = g_strdup(dec->refusal);
}

/* The placed VMs' view; NULL (logged) when the ledger cannot be read. */
static VnAutonumaView *
read_view(VndDaemon *d, VnLedger **ret_ledger)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = vnd_ledger_snapshot(vnd_state_config(d->state)->state_dir, &error);
    g_autofree gchar *line = NULL;
    VnAutonumaView *v;

    if (!snap) {
        line = g_strdup_printf("kernel.numa_balancing not settled: %s", error->message);
        note(d->autonuma, line);
        return NULL;
    }
    v = vn_autonuma_view_new(vnd_state_sysroot(d->state), vn_ledger_libvirt_run_dir(),
                             vn_ledger_records(snap));
    *ret_ledger = g_steal_pointer(&snap);
    return v;
}

void
vnd_autonuma_tick(VndDaemon *d)
{
    VndAutonuma *a = d->autonuma;
    VnNumaBalancingWish wish = vnd_state_config(d->state)->numa_balancing;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(VnAutonumaView) v = NULL;
    g_auto(VnAutonumaDecision) dec = { 0 };

    /* what requests saw is this sample's to rebuild (at the next request) */
    g_clear_pointer(&a->host_json, json_node_unref);
    if (!vnd_state_measured(d->state))
        return;
    sample_counters(d);
    if (wish == VN_NUMA_BALANCING_LEAVE && a->restore < 0)
        return; /* nothing of vnumad's to undo */
    if (!(v = read_view(d, &ledger)))
        return;
    if (v->mode < 0) {
        g_autofree gchar *line =
            g_strdup_printf("kernel.numa_balancing not settled: %s", v->mode_unknown);
        note(a, line);
        return;
    }
    vn_autonuma_decide(wish, v->mode, a->restore, v->inputs, vnd_state_topology(d->state), &dec);
    if (dec.value >= 0)
        write_value(d, v->mode, &dec);
    else if (dec.refused)
        note(a, dec.reason);
}

void
vnd_autonuma_stop(VndDaemon *d)
{
    VndAutonuma *a = d->autonuma;
    g_autoptr(GError) error = NULL;

    if (a->restore < 0)
        return;
    if (!vn_autonuma_mode_write(vnd_state_sysroot(d->state), a->restore, &error)) {
        g_message("AutoNUMA: kernel.numa_balancing not restored at stop: %s", error->message);
        return;
    }
    g_message("AutoNUMA: kernel.numa_balancing restored to %d (the value found at start) at stop",
              a->restore);
    a->restore = -1;
}
