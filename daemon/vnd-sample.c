/* vnd-sample.c: the daemon's tick: every [rebalance] interval it samples
 * the host, reclaims expired holds, runs a rebalancing round, repairs
 * the data path, applies again the placements the hook left unapplied, keeps the NIC interrupts in place and settles AutoNUMA.  Armed at start and again when a reload changes the
 * interval. */
#include "vnd.h"

static gboolean
on_sample(gpointer user_data)
{
    VndDaemon *d = user_data;

    vnd_state_sample(d->state);
    vnd_reservations_reclaim(d);
    vnd_rebalance_tick(d);
    vnd_repair_tick(d);
    vnd_reapply_tick(d);
    vnd_irq_tick(d);
    vnd_autonuma_tick(d);
    return G_SOURCE_CONTINUE;
}

void
vnd_sample_arm(VndDaemon *d)
{
    if (d->sample_source)
        g_source_remove(d->sample_source);
    d->sample_source =
        g_timeout_add_seconds(vnd_state_config(d->state)->rebalance_interval_s, on_sample, d);
}
