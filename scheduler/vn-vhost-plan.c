/* vn-vhost-plan.c: see vn-vhost-plan.h. */
#include "vn-vhost-plan.h"

void
vn_vhost_plan_free(VnVhostPlan *p)
{
    if (!p)
        return;
    g_array_unref(p->cpus);
    vn_bitmap_free(p->pool);
    g_ptr_array_unref(p->reasons);
    g_free(p);
}

/* A copy of `from` without `taken` (which may be NULL). */
static VnBitmap *
without(const VnBitmap *from, const VnBitmap *taken)
{
    VnBitmap *b = vn_bitmap_copy(from);

    if (taken)
        vn_bitmap_and_not(b, taken);
    return b;
}

static VnBitmap *
choose_pool(const VnBitmap *cell_cpus, const VnBitmap *node_cpus, gboolean dedicated,
            const VnBitmap *taken, GPtrArray *reasons)
{
    guint cells = vn_bitmap_count(cell_cpus);
    VnBitmap *pool;

    if (!dedicated) {
        pool = without(cell_cpus, taken);
        if (!vn_bitmap_is_empty(pool)) {
            g_ptr_array_add(reasons,
                            g_strdup_printf("shared VM: workers on its cells' %u CPUs", cells));
            return pool;
        }
        vn_bitmap_free(pool);
        g_ptr_array_add(reasons, g_strdup_printf("shared VM whose %u CPUs are all taken: on them "
                                                 "all the same",
                                                 cells));
        return vn_bitmap_copy(cell_cpus);
    }
    pool = without(node_cpus ? node_cpus : cell_cpus, taken);
    vn_bitmap_and_not(pool, cell_cpus);
    if (!vn_bitmap_is_empty(pool)) {
        g_ptr_array_add(reasons, g_strdup_printf("dedicated VM: workers on %u CPUs of its nodes, "
                                                 "off its %u vCPU CPUs and every CPU another VM "
                                                 "owns or the host keeps",
                                                 vn_bitmap_count(pool), cells));
        return pool;
    }
    vn_bitmap_free(pool);
    g_ptr_array_add(reasons, g_strdup_printf("dedicated VM: no CPU of its nodes is left beside "
                                             "what VMs own and the host keeps: workers on its "
                                             "%u vCPU CPUs",
                                             cells));
    return vn_bitmap_copy(cell_cpus);
}

VnVhostPlan *
vn_vhost_plan(guint n_workers, const VnBitmap *cell_cpus, const VnBitmap *node_cpus,
              gboolean dedicated, const VnBitmap *taken)
{
    VnVhostPlan *p;
    g_autoptr(GArray) order = g_array_new(FALSE, FALSE, sizeof(guint));

    g_return_val_if_fail(cell_cpus && !vn_bitmap_is_empty(cell_cpus), NULL);
    p = g_new0(VnVhostPlan, 1);
    p->cpus = g_array_new(FALSE, FALSE, sizeof(guint));
    p->reasons = g_ptr_array_new_with_free_func(g_free);
    p->pool = choose_pool(cell_cpus, node_cpus, dedicated, taken, p->reasons);
    VN_BITMAP_FOREACH (p->pool, cpu) {
        guint c = (guint)cpu;
        g_array_append_val(order, c);
    }
    for (guint i = 0; i < n_workers; i++)
        g_array_append_val(p->cpus, g_array_index(order, guint, i % order->len));
    if (n_workers > order->len)
        g_ptr_array_add(p->reasons,
                        g_strdup_printf("%u workers over %u CPUs: some CPUs take two or more",
                                        n_workers, order->len));
    return p;
}
