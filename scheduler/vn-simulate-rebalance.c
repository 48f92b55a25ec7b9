/* vn-simulate-rebalance.c: vnuma-rebalance, vnumad's automatic
 * rebalancing rounds in the what-if replay (vn-simulate.h says when a
 * round runs and with which limits).
 *
 * The running VMs become the rebalancer's residents as the ledger makes
 * them (vn_ledger_residents()): each cell with what it commits on its
 * node (its memory and its share of the QEMU overhead, as
 * vn_load_commit() counts it) and the time the VM started or last moved.
 * A move between nodes puts the cell's vCPUs over the new node's usable
 * CPUs, as vn_ledger_record_apply_move() writes it; a move between cache
 * domains of one node (only with cache domains counted) changes no
 * figure the replay reports and is left out. */
#include "vn-simulate-private.h"

#include "vn-rebalance.h"

/* The rebalancer's clock for replay time `t` (s): the replay starts at 0,
 * which a resident's last_move reads as "never moved", so one second on. */
static gint64
rebalance_clock(gdouble t)
{
    return (gint64)t + 1;
}

/* `old` with cell `cell_id` on node `to`: that cell's CPUs and its
 * vCPUs' pins are the node's usable CPUs, the others shared with `old`. */
static VnPlacement *
with_cell_moved(const VnSim *s, const VnPlacement *old, guint cell_id, guint to)
{
    VnPlacement *p = vn_placement_new();
    g_autoptr(VnBitmap) cpus = vn_policy_usable_cpus(s->plan_policy, s->t, s->load, to);

    for (guint i = 0; i < old->cells->len; i++) {
        VnCell c = g_array_index(old->cells, VnCell, i);
        gboolean moved = c.id == cell_id;

        if (moved) {
            c.node = to;
            c.node_os_id = s->t->nodes[to].os_id;
        }
        c.cpus = moved ? vn_bitmap_copy(cpus) : c.cpus ? vn_bitmap_copy(c.cpus) : NULL;
        g_array_append_val(p->cells, c);
        for (guint v = c.vcpu_first; v < c.vcpu_first + c.n_vcpus && v < old->vcpu_pins->len; v++)
            g_ptr_array_add(p->vcpu_pins,
                            vn_bitmap_copy(moved ? cpus : g_ptr_array_index(old->vcpu_pins, v)));
    }
    p->threads_per_core = old->threads_per_core;
    p->dies = old->dies;
    return p;
}

/* The running VMs as residents named by their trace index. */
static GPtrArray *
residents_new(const VnSim *s)
{
    GPtrArray *res = g_ptr_array_new_with_free_func((GDestroyNotify)vn_resident_free);

    for (guint i = 0; i < s->placed->len; i++) {
        const VnPlacement *p = g_ptr_array_index(s->placed, i);
        const VnRequest *r = g_ptr_array_index(s->requests, i);
        g_autofree gchar *name = NULL;
        guint64 overhead;
        VnResident *x;

        if (!p)
            continue;
        name = g_strdup_printf("%u", i);
        x = vn_resident_new(name, r->priority, p->dedicated, rebalance_clock(s->since[i]));
        overhead = vn_policy_overhead_kib(s->policy, r->memory_kib) / MAX(p->cells->len, 1);
        for (guint c = 0; c < p->cells->len; c++) {
            const VnCell *cell = &g_array_index(p->cells, VnCell, c);
            vn_resident_add_cell(x, cell->id, cell->node, cell->n_vcpus, cell->memory_kib);
            vn_resident_set_cell_charge(x, cell->memory_kib + overhead);
        }
        g_ptr_array_add(res, x);
    }
    return res;
}

void
vn_sim_rebalance_round(VnSim *s, gdouble now)
{
    g_autoptr(GPtrArray) residents = residents_new(s);
    g_autoptr(GPtrArray) moves = NULL;
    VnRebalanceLimits limits;

    vn_rebalance_limits_init(&limits, rebalance_clock(now));
    moves = vn_rebalance_propose(s->t, s->load, s->plan_policy, residents, &limits, NULL);
    for (guint k = 0; k < moves->len; k++) {
        const VnMove *m = g_ptr_array_index(moves, k);
        guint64 vm = g_ascii_strtoull(m->vm, NULL, 10);

        if (m->from_domain >= 0 || vm >= s->placed->len || !g_ptr_array_index(s->placed, vm))
            continue;
        s->m.moves++;
        s->m.moved_gib += m->memory_kib / (1024.0 * 1024.0);
        vn_sim_move_vm(s, (guint)vm,
                       with_cell_moved(s, g_ptr_array_index(s->placed, vm), m->cell, m->to_node));
    }
}
