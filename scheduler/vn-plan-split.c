/* vn-plan-split.c: share a VM's vCPUs and memory over a node set.
 *
 * When vn_plan() chose the cell count itself, [placement] split says how
 * (VnSplit): fill puts as much of the VM as fits on the member with the
 * most room and the rest on the others, vCPUs following memory (the
 * remote share of a split VM is 1 - sum of each cell's share squared:
 * the more of it on one node, the less remote), each member's vCPUs under
 * half its CPUs where the set has room for that (fill_uncrowded()); even
 * shares it equally, uneven only where a node's capacity forces it (the
 * shortfall moves to the nodes with room, in node order).  A fill that
 * crowds a member past the knee is scored against the even split, and the
 * better kept (vn_plan_split_crowds(), evaluate() in vn-plan-nodeset.c).
 * Fixed guest cells are identical; guest cells of their own sizes are
 * assigned whole to nodes instead: vn-plan-cells.c.
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

/* Members, most memory they may take first (then most memory room, then
 * set order): insertion sort, k is small. */
static void
fill_order(guint k, const guint64 *mlim, const guint64 *mcap, guint64 *order)
{
    for (guint i = 0; i < k; i++) {
        guint j = i;
        for (; j > 0; j--) {
            guint64 o = order[j - 1];
            if (mlim[o] > mlim[i] || (mlim[o] == mlim[i] && mcap[o] >= mcap[i]))
                break;
            order[j] = o;
        }
        order[j] = i;
    }
}

/* The least memory a member takes: one vCPU's share of the VM, at most
 * VN_SPLIT_FILL_MIN_CELL_KIB (a guest cell as small as a page would be a
 * node the guest drops, its vCPU left with no memory of its own), within
 * its room; a memory-only member one unit.  All of them one unit when
 * those do not fit. */
static guint64
fill_min(guint64 per_vcpu, gboolean memory_only, guint64 mcap)
{
    return memory_only ? 1 : MIN(mcap, per_vcpu);
}

/* Memory: each member in `order` takes as much as `mlim` lets it while
 * leaving the least (fill_min()) for each member after it; what the
 * limits leave over is shared evenly over the members with room left
 * (`mcap`). */
static gboolean
fill_memory(guint64 total, guint64 per_vcpu, guint k, const guint64 *mcap, const guint64 *mlim,
            const gboolean *memory_only, const guint64 *order, guint64 *out)
{
    guint64 sum = 0, left = total, reserve = 0;

    for (guint i = 0; i < k; i++) {
        if (mcap[i] < 1)
            return FALSE;
        sum += mcap[i];
        reserve += fill_min(per_vcpu, memory_only[i], mcap[i]);
    }
    if (total < k || sum < total)
        return FALSE;
    if (reserve > total) {
        per_vcpu = 1;
        reserve = k;
    }
    for (guint j = 0; j < k; j++) {
        guint i = (guint)order[j];
        guint64 least = fill_min(per_vcpu, memory_only[i], mcap[i]);
        reserve -= least;
        out[i] = MAX(MIN(mlim[i], left - reserve), least);
        left -= out[i];
    }
    while (left > 0) {
        guint open = 0;
        for (guint i = 0; i < k; i++)
            open += out[i] < mcap[i];
        for (guint j = 0; j < k && left > 0; j++) {
            guint i = (guint)order[j];
            guint64 give;
            if (out[i] == mcap[i])
                continue; /* full: it would be given nothing (no division) */
            give = MIN(mcap[i] - out[i], MAX(left / open, 1));
            out[i] += give;
            left -= give;
        }
    }
    return TRUE;
}

/* How far member i is below (`sign` 1) or above (-1) its target: 2 by
 * a vCPU or more, 1 by less, 0 not at all. */
static guint
fill_tier(gdouble gap)
{
    return gap >= 1.0 ? 2 : gap > 0.0 ? 1 : 0;
}

/* The member (not skipped) that gains (`sign` 1, up to vcap) or loses
 * (-1, down to 1) the next vCPUs, or -1: the furthest from its target
 * by whole vCPUs first; below that, to gain the one holding the most
 * memory and to lose the one holding the least (a vCPU on the cell with
 * more of the memory makes more of the accesses local). */
static gint
fill_next(guint k, const guint64 *vcap, const gboolean *skip, const gdouble *target,
          const guint64 *mout, const guint64 *out, gint sign)
{
    gint best = -1;
    gdouble best_gap = 0;
    guint best_tier = 0;

    for (guint i = 0; i < k; i++) {
        gdouble gap = sign * (target[i] - (gdouble)out[i]);
        guint tier = fill_tier(gap);
        gboolean better;
        if (skip[i] || (sign > 0 ? out[i] >= vcap[i] : out[i] <= 1))
            continue;
        if (best < 0 || tier != best_tier)
            better = best < 0 || tier > best_tier;
        else if (tier == 2)
            better = gap > best_gap;
        else
            better = sign > 0 ? mout[i] > mout[best] : mout[i] < mout[best];
        if (better) {
            best = (gint)i;
            best_gap = gap;
            best_tier = tier;
        }
    }
    return best;
}

/* vCPUs in proportion to each member's memory (members that `skip` get
 * none), at least one each, within `vcap`. */
static gboolean
fill_vcpus(guint64 total, guint k, const guint64 *vcap, const gboolean *skip, const guint64 *mout,
           gdouble *target, guint64 *out)
{
    guint64 mem = 0, sum = 0, bins = 0;
    gint64 left = (gint64)total;

    for (guint i = 0; i < k; i++) {
        if (skip[i])
            continue;
        if (vcap[i] < 1)
            return FALSE;
        mem += mout[i];
        sum += vcap[i];
        bins++;
    }
    if (bins == 0 || total < bins || sum < total)
        return FALSE;
    for (guint i = 0; i < k; i++) {
        target[i] = skip[i] ? 0 : (gdouble)total * (gdouble)mout[i] / (gdouble)mem;
        out[i] = skip[i] ? 0 : CLAMP((guint64)target[i], 1, vcap[i]);
        left -= (gint64)out[i];
    }
    /* The member fill_next() picks moves toward its target: by its whole
     * gap, by one vCPU when the gap is under one (so no member passes its
     * target by a whole vCPU), or, once every member is past its target
     * (room or the minimum forced it), by all that is left it can take.
     * At most 3k + 1 steps. */
    while (left != 0) {
        gint sign = left > 0 ? 1 : -1;
        gint i = fill_next(k, vcap, skip, target, mout, out, sign);
        gdouble gap;
        guint64 step;
        if (i < 0)
            return FALSE;
        gap = sign * (target[i] - (gdouble)out[i]);
        step = sign > 0 ? vcap[i] - out[i] : out[i] - 1;
        step = MIN(step, (guint64)(left > 0 ? left : -left));
        if (fill_tier(gap) == 2)
            step = MIN(step, (guint64)gap);
        else if (fill_tier(gap) == 1)
            step = MIN(step, 1);
        out[i] = sign > 0 ? out[i] + step : out[i] - step;
        left -= sign * (gint64)step;
    }
    return TRUE;
}

/* Fill (VN_SPLIT_FILL): a member may take the memory its vCPU room
 * keeps in proportion (vcap / V of the VM), so that its vCPUs follow its
 * memory; what no member takes so goes evenly. */
static gboolean
split_fill(const VnPlanCtx *c, VnNodeSet *s, const guint64 *vcap, const guint64 *mcap,
           const gboolean *memory_only, guint64 *vout, guint64 *mout)
{
    guint64 *mlim = c->scratch + 5 * (gsize)c->n, *order = mlim + c->n;
    gdouble *target = (gdouble *)(order + c->n);
    guint64 vunits = c->req->vcpus / c->vcpu_unit, munits = c->req->memory_kib / c->mem_unit_kib;
    guint64 least = MIN(munits / MAX(vunits, 1), VN_SPLIT_FILL_MIN_CELL_KIB / c->mem_unit_kib);

    for (guint i = 0; i < s->k; i++)
        mlim[i] = memory_only[i] ? 0 : MIN(mcap[i], vcap[i] * munits / MAX(vunits, 1));
    fill_order(s->k, mlim, mcap, order);
    return fill_memory(munits, MAX(least, 1), s->k, mcap, mlim, memory_only, order, mout) &&
           fill_vcpus(vunits, s->k, vcap, memory_only, mout, target, vout);
}

/* The vCPUs (in units) a member `node` takes while its rho after them
 * (vn_plan_node_rho()) stays at most `level`, from 1 to `vcap`. */
static guint64
level_units(const VnPlanCtx *c, guint node, guint64 vcap, gdouble level)
{
    gdouble fit = level * c->cap[node].shared_cpus - c->load->nodes[node].committed_vcpus;
    guint64 units = fit >= c->vcpu_unit ? (guint64)((fit + 1e-9) / c->vcpu_unit) : 0;

    return CLAMP(units, 1, vcap);
}

/* The rho of member `node` with one unit more than `units`. */
static gdouble
level_next(const VnPlanCtx *c, guint node, guint64 units)
{
    return vn_plan_node_rho(c, node, (guint)((units + 1) * c->vcpu_unit));
}

/* When the room under the knee does not cover the VM: its vCPUs as if
 * given one unit at a time to the member whose CPUs the unit would crowd
 * least ((committed + given) / CPUs; the lower index on a tie), within
 * vcap, so the crowding rises evenly over the set instead of one member
 * filling to its capacity (16 vCPUs on two 16-CPU nodes running 6 and 2:
 * 6 and 10, both 0.75, not 13 and 3).  The level the members would share
 * uncapped is tried first, then a bisection finds one under which the
 * units fall short of the VM, the last few go one by one: O(k (log + k)),
 * whatever the vCPU count.  FALSE: no room. */
static gboolean
fill_level(const VnPlanCtx *c, const VnNodeSet *s, const gboolean *memory_only, const guint64 *vcap,
           guint64 *room)
{
    guint64 want = c->req->vcpus / c->vcpu_unit, have = 0;
    gdouble lo = 0.0, hi = 0.0, level, committed = 0.0, cpus = 0.0;
    gdouble *next = (gdouble *)(c->scratch + 5 * (gsize)c->n); /* split_fill()'s mlim, free now */

    for (guint i = 0; i < s->k; i++) {
        if (memory_only[i])
            continue;
        if (vcap[i] < 1 || c->cap[s->nodes[i]].shared_cpus == 0)
            return FALSE;
        hi = MAX(hi, level_next(c, s->nodes[i], vcap[i]));
        committed += c->load->nodes[s->nodes[i]].committed_vcpus;
        cpus += c->cap[s->nodes[i]].shared_cpus;
    }
    /* First the level every member would share with no cap or rounding:
     * its units fall short of the VM by about half a unit a member, and
     * those go one by one below.  A bisection only when they fall short
     * by more than a unit a member (caps) or pass the VM (the least of
     * one a member). */
    level = MIN((committed + (gdouble)(want * c->vcpu_unit)) / cpus, hi);
    for (guint step = 0; step < 48; step++) {
        guint64 units = 0;
        for (guint i = 0; i < s->k; i++)
            units += memory_only[i] ? 0 : level_units(c, s->nodes[i], vcap[i], level);
        if (units <= want) {
            lo = level;
            if (units + s->k >= want)
                break;
        } else {
            hi = level;
        }
        level = (lo + hi) / 2.0;
    }
    for (guint i = 0; i < s->k; i++) {
        room[i] = memory_only[i] ? 0 : level_units(c, s->nodes[i], vcap[i], lo);
        next[i] = memory_only[i] ? 0 : level_next(c, s->nodes[i], room[i]);
        have += room[i];
    }
    while (have < want) {
        gint best = -1;
        for (guint i = 0; i < s->k; i++)
            if (!memory_only[i] && room[i] < vcap[i] && (best < 0 || next[i] < next[best] - 1e-12))
                best = (gint)i;
        if (best < 0)
            return FALSE;
        room[best]++;
        next[best] = level_next(c, s->nodes[best], room[best]);
        have++;
    }
    return have == want;
}

/* Split fill keeps each member's vCPUs under its crowding knee when the
 * set can (vn_plan_node_uncrowded_vcpus() covers the VM on every member
 * with CPUs): `vcap` becomes that room.  The memory then follows the
 * vCPUs as usual: 16 vCPUs and 64 GiB on two 16-CPU nodes are 8 and 8,
 * 32 GiB each, not 15 vCPUs and 60 GiB on one node, whose memory
 * bandwidth the 15 would fill.  When that room falls short (or a member
 * has none), the vCPUs level the crowding over the set (fill_level()).
 * Dedicated vCPUs have CPUs of their own. */
static void
fill_uncrowded(const VnPlanCtx *c, const VnNodeSet *s, const gboolean *memory_only, guint64 *vcap)
{
    guint64 *room = c->scratch + 8 * (gsize)c->n, sum = 0;
    gboolean short_member = FALSE;

    if (c->req->dedicated)
        return;
    for (guint i = 0; i < s->k; i++) {
        room[i] = memory_only[i]
                      ? 0
                      : MIN(vcap[i], vn_plan_node_uncrowded_vcpus(c, s->nodes[i]) / c->vcpu_unit);
        short_member |= !memory_only[i] && room[i] < 1;
        sum += room[i];
    }
    if ((short_member || sum < c->req->vcpus / c->vcpu_unit) &&
        !fill_level(c, s, memory_only, vcap, room))
        return;
    for (guint i = 0; i < s->k; i++)
        vcap[i] = room[i];
}

static gboolean
split_auto(const VnPlanCtx *c, VnNodeSet *s, gboolean fill)
{
    guint64 *vcap = c->scratch, *mcap = vcap + c->n, *vout = mcap + c->n, *mout = vout + c->n;
    gboolean *memory_only = (gboolean *)(mout + c->n);
    guint64 vunits = c->req->vcpus / c->vcpu_unit, munits = c->req->memory_kib / c->mem_unit_kib;

    for (guint i = 0; i < s->k; i++) {
        const VnNodeCap *cap = &c->cap[s->nodes[i]];
        if (!cap->usable)
            return FALSE;
        vcap[i] = cap->vcpus;
        mcap[i] = cap->mem_kib / c->mem_unit_kib;
        memory_only[i] = cap->memory_only;
    }
    if (fill && s->k > 1) {
        fill_uncrowded(c, s, memory_only, vcap);
        if (!split_fill(c, s, vcap, mcap, memory_only, vout, mout))
            return FALSE;
    } else if (!water_fill(vunits, s->k, vcap, memory_only, vout) ||
               !water_fill(munits, s->k, mcap, NULL, mout)) {
        return FALSE;
    }
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
    return c->fixed_cells ? split_fixed(c, s) : split_auto(c, s, c->policy->split == VN_SPLIT_FILL);
}

gboolean
vn_plan_split_crowds(const VnPlanCtx *c, const VnNodeSet *set)
{
    if (c->policy->split != VN_SPLIT_FILL || set->k < 2 || c->sizes || c->fixed_cells)
        return FALSE;
    for (guint i = 0; i < set->k; i++)
        if (vn_plan_node_crowding(c, set->nodes[i], set->vcpus[i]) > 0.0)
            return TRUE;
    return FALSE;
}

gboolean
vn_plan_split_even(const VnPlanCtx *c, VnNodeSet *set)
{
    g_assert(!c->sizes && !c->fixed_cells);
    return split_auto(c, set, FALSE);
}
