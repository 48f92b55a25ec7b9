/* vn-plan-interleave.c: one guest node over several host nodes, its
 * memory interleaved (VnRequest.interleave).
 *
 * A guest that cannot see NUMA cells (x86 without ACPI) gains nothing
 * from cells bound to nodes: its kernel spreads its memory without
 * knowing where it is.  Interleaving page by page over the fewest,
 * nearest nodes that hold the VM gives every vCPU the same mean distance
 * and the bandwidth of all of them.  The kernel interleaves round robin,
 * so every node must hold an even share: the set is chosen as for as
 * many identical cells as nodes (each node one share of the vCPUs and of
 * the memory), then the vCPUs float over all the set's CPUs.
 */
#include "vn-plan-private.h"

#define VN_INTERLEAVE_EXTRA_K_TRIES 3

VnNodeSet *
vn_plan_interleave_choose(VnPlanCtx *c, GPtrArray *candidates, gboolean *ret_tried)
{
    const VnRequest *r = c->req;
    guint vunits = r->vcpus / c->vcpu_unit;
    guint64 munits = r->memory_kib / c->mem_unit_kib;
    guint k_max = MIN(vunits, c->n), k_min;
    guint saved_cells = c->fixed_cells;
    guint64 saved_v = c->vshare_fixed, saved_m = c->mshare_fixed;
    VnNodeSet *set = NULL;

    *ret_tried = FALSE;
    if (r->interleave == VN_INTERLEAVE_NONE || r->cell_sizes || r->cells > 1 || k_max == 0)
        return NULL;
    *ret_tried = TRUE;
    c->fixed_cells = 0;
    vn_plan_capacity_compute(c, c->overhead_kib / k_max);
    k_min = vn_plan_min_nodes(c);
    for (guint k = MAX(k_min, 1), tries = 0; k_min && k <= k_max && !set; k++) {
        c->fixed_cells = k;
        c->vshare_fixed = (vunits + k - 1) / k;
        c->mshare_fixed = (munits + k - 1) / k;
        vn_plan_capacity_compute(c, c->overhead_kib / k);
        g_ptr_array_set_size(candidates, 0);
        set = vn_plan_best_set(c, k, candidates);
        /* past a few sizes the growth gives way to the largest nodes */
        if (!set && ++tries > VN_INTERLEAVE_EXTRA_K_TRIES && k < k_max)
            k = MAX(k, k_max - 1);
    }
    c->fixed_cells = saved_cells;
    c->vshare_fixed = saved_v;
    c->mshare_fixed = saved_m;
    return set;
}

static const gchar *
why(VnInterleave w)
{
    return w == VN_INTERLEAVE_NO_CELLS
               ? "the guest cannot see NUMA cells (x86 without <features><acpi/>: libvirt "
                 "runs QEMU with ACPI off), so guest cells would not help it"
               : "the operator asked for memory='interleave' (bandwidth over locality)";
}

void
vn_plan_interleave_finish(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p)
{
    g_autoptr(GString) shares = g_string_new(NULL);
    g_autoptr(VnBitmap) all = NULL;

    if (set->k < 2) {
        if (c->req->interleave == VN_INTERLEAVE_WISH)
            vn_placement_add_reason(p, "memory='interleave' asked, but one node holds the VM: "
                                       "nothing to interleave");
        return;
    }
    p->interleave = TRUE;
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        g_autofree gchar *mem = vn_plan_format_kib(cell->memory_kib);
        g_string_append_printf(shares, "%snode %u %s", i ? ", " : "", cell->node_os_id, mem);
        if (!all)
            all = vn_bitmap_copy(cell->cpus);
        else
            vn_bitmap_or(all, cell->cpus);
    }
    vn_placement_add_reason(p, "memory interleaved over %u nodes with no guest cells: %s", set->k,
                            why(c->req->interleave));
    vn_placement_add_reason(p, "interleave shares (even, as the kernel interleaves): %s",
                            shares->str);
    if (p->dedicated)
        return;
    for (guint v = 0; v < p->vcpu_pins->len; v++) {
        vn_bitmap_free(p->vcpu_pins->pdata[v]);
        p->vcpu_pins->pdata[v] = vn_bitmap_copy(all);
    }
    vn_placement_add_reason(p,
                            "vCPUs float over the CPUs of all %u nodes (every vCPU is as near "
                            "to interleaved memory as any other)",
                            set->k);
}
