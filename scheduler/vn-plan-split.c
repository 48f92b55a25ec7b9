/* vn-plan-split.c: share a VM's vCPUs and memory over a node set.
 *
 * Even first (guest-friendly: identical cells), uneven only where a node's
 * capacity forces it: the shortfall moves to the nodes with room, in node
 * order, so the result is deterministic.  Guest cells of their own sizes
 * are assigned whole to nodes instead: vn-plan-cells.c.
 */
#include "vn-plan-private.h"

/* Water-fill `total` units over k bins of capacity caps[]; every bin gets
 * at least one unit, except bins whose `skip` flag is set, which get none
 * (CPU-less cells get no vCPUs).  Writes out[] and returns TRUE when it fits. */
static gboolean
water_fill(guint64 total, guint k, const guint64 *caps, const gboolean *skip, guint64 *out)
{
    guint64 sum = 0, left;
    guint bins = 0, b = 0;

    for (guint i = 0; i < k; i++) {
        if (skip && skip[i])
            continue;
        if (caps[i] < 1)
            return FALSE;
        sum += caps[i];
        bins++;
    }
    if (bins == 0 || total < bins || sum < total)
        return FALSE;
    for (guint i = 0; i < k; i++) {
        if (skip && skip[i]) {
            out[i] = 0;
            continue;
        }
        out[i] = MIN(total / bins + (b < total % bins ? 1 : 0), caps[i]);
        b++;
    }
    left = total;
    for (guint i = 0; i < k; i++)
        left -= out[i];
    /* Move what capped bins could not take to bins with room, evenly. */
    while (left > 0) {
        guint open = 0;
        for (guint i = 0; i < k; i++)
            open += out[i] < caps[i] && !(skip && skip[i]);
        for (guint i = 0; i < k && left > 0; i++) {
            guint64 room = caps[i] - out[i], give;
            if (!room || (skip && skip[i]))
                continue;
            give = MIN(room, MAX(left / open, 1));
            out[i] += give;
            left -= give;
        }
    }
    return TRUE;
}

static gboolean
split_auto(const VnPlanCtx *c, VnNodeSet *s)
{
    guint64 *vcap = c->scratch, *mcap = vcap + c->n, *vout = mcap + c->n, *mout = vout + c->n;
    gboolean *memory_only = (gboolean *)(mout + c->n);

    for (guint i = 0; i < s->k; i++) {
        const VnNodeCap *cap = &c->cap[s->nodes[i]];
        if (!cap->usable)
            return FALSE;
        vcap[i] = cap->vcpus;
        mcap[i] = cap->mem_kib / c->mem_unit_kib;
        memory_only[i] = cap->memory_only;
    }
    if (!water_fill(c->req->vcpus / c->vcpu_unit, s->k, vcap, memory_only, vout) ||
        !water_fill(c->req->memory_kib / c->mem_unit_kib, s->k, mcap, NULL, mout))
        return FALSE;
    for (guint i = 0; i < s->k; i++) {
        s->vcpus[i] = (guint)vout[i] * c->vcpu_unit;
        s->mem_kib[i] = mout[i] * c->mem_unit_kib;
        s->cells[i] = 1;
    }
    return TRUE;
}

/* Fixed guest cells: cells are identical (as the user's guest topology
 * expects); a node holds as many cells as its capacity allows. */
static gboolean
split_fixed(const VnPlanCtx *c, VnNodeSet *s)
{
    guint cells = c->fixed_cells, cell = 0;
    guint64 *slots = c->scratch, *out = slots + c->n;
    guint64 munits = c->req->memory_kib / c->mem_unit_kib;
    guint vunits = c->req->vcpus / c->vcpu_unit;

    for (guint i = 0; i < s->k; i++) {
        const VnNodeCap *cap = &c->cap[s->nodes[i]];
        if (!cap->usable)
            return FALSE;
        slots[i] =
            MIN(cap->vcpus / c->vshare_fixed, cap->mem_kib / c->mem_unit_kib / c->mshare_fixed);
    }
    if (!water_fill(cells, s->k, slots, NULL, out))
        return FALSE;
    for (guint i = 0; i < s->k; i++) {
        s->cells[i] = (guint)out[i];
        s->vcpus[i] = 0;
        s->mem_kib[i] = 0;
        for (guint j = 0; j < out[i]; j++, cell++) {
            s->vcpus[i] += (vunits / cells + (cell < vunits % cells ? 1 : 0)) * c->vcpu_unit;
            s->mem_kib[i] += (munits / cells + (cell < munits % cells ? 1 : 0)) * c->mem_unit_kib;
        }
    }
    return TRUE;
}

gboolean
vn_plan_split(const VnPlanCtx *c, VnNodeSet *s)
{
    if (c->sizes)
        return vn_plan_split_sized(c, s);
    return c->fixed_cells ? split_fixed(c, s) : split_auto(c, s);
}
