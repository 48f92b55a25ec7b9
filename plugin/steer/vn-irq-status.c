/* vn-irq-status.c: how each NIC of a view stands against its plan.
 *
 * A NIC counts as steered when vnuma's last apply listed its planned
 * vectors in irq-managed (so irqbalance's policy script leaves them), and
 * as in place when nothing differs from the plan now; a NIC steered but no
 * longer in place has drifted. */
#include "vn-irq.h"

#include "vn-names.h"

static const gchar *const state_names[] = { "in-place", "off-plan", "unplanned", NULL };
VN_DEFINE_ENUM_STRINGS(VnIrqNicState, vn_irq_nic_state, state_names, VN_IRQ_NIC_STATE_MAX)

/* Whether every vector the plan places is listed (and there is one). */
static gboolean
all_managed(const VnIrqNicPlan *p, GHashTable *managed)
{
    guint placed = 0;

    for (guint k = 0; k < p->targets->len; k++) {
        const VnIrqTarget *t = &g_array_index(p->targets, VnIrqTarget, k);
        if (!t->cpus || t->left)
            continue;
        if (!g_hash_table_contains(managed, GUINT_TO_POINTER(t->irq)))
            return FALSE;
        placed++;
    }
    return placed > 0;
}

GArray *
vn_irq_view_status(const VnIrqView *v, const gchar *state_dir)
{
    g_autoptr(GHashTable) managed = vn_irq_managed_read(state_dir);
    GArray *out = g_array_new(FALSE, TRUE, sizeof(VnIrqNicStatus));

    for (guint i = 0; i < v->host->nics->len && i < v->plan->nics->len; i++) {
        VnIrqNicStatus s = { .nic = v->host->nics->pdata[i], .plan = v->plan->nics->pdata[i] };

        vn_irq_nic_drift(s.nic, s.plan, v->n_cpus, &s.drift);
        for (guint k = 0; k < s.plan->targets->len; k++)
            if (g_array_index(s.plan->targets, VnIrqTarget, k).left)
                s.irqs_left++;
        s.steered = s.plan->cpus && all_managed(s.plan, managed);
        if (!s.plan->cpus)
            s.state = VN_IRQ_NIC_UNPLANNED;
        else if (s.drift.irqs_off || s.drift.rps_off || s.drift.xps_off)
            s.state = VN_IRQ_NIC_OFF_PLAN;
        else
            s.state = VN_IRQ_NIC_IN_PLACE;
        g_array_append_val(out, s);
    }
    return out;
}
