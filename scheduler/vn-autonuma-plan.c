/* vn-autonuma-plan.c: kernel.numa_balancing decided from the wish, the
 * placed VMs' memory modes and the host's tiers. */
#include "vn-autonuma-plan.h"

#include "vn-names.h"

static const gchar *const wish_names[] = { "leave", "off", "tiering", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(wish_names) == VN_NUMA_BALANCING_WISH_MAX + 1);
VN_DEFINE_ENUM_STRINGS(VnNumaBalancingWish, vn_numa_balancing_wish, wish_names,
                       VN_NUMA_BALANCING_WISH_MAX)

const gchar *const *
vn_numa_balancing_wish_names(void)
{
    return wish_names;
}

gboolean
vn_autonuma_vm_bound(const VnAutonumaVm *vm)
{
    if (!vm->mode_known)
        return FALSE;
    if (vm->mode == VN_MEMORY_MODE_STRICT)
        return TRUE;
    return vm->mode == VN_MEMORY_MODE_RESTRICTIVE && vm->n_nodes == 1;
}

void
vn_autonuma_decision_clear(VnAutonumaDecision *d)
{
    g_clear_pointer(&d->reason, g_free);
    g_clear_pointer(&d->refusal, g_free);
}

gboolean
vn_autonuma_has_slow_tier(const VnTopology *t, gchar **ret_why)
{
    gint top = G_MAXINT;
    gchar *why = NULL;
    gboolean found = FALSE;

    /* the kernel's top tier: the lowest tier a CPU node is in */
    for (guint i = 0; i < t->n_nodes; i++)
        if (!vn_bitmap_is_empty(t->nodes[i].cpus) && t->nodes[i].kernel_tier >= 0)
            top = MIN(top, t->nodes[i].kernel_tier);
    for (guint i = 0; i < t->n_nodes && !found; i++) {
        const VnNode *n = &t->nodes[i];
        if (n->tier != VN_MEMORY_TIER_SLOW)
            continue;
        if (top != G_MAXINT && n->kernel_tier >= 0 && n->kernel_tier <= top) {
            g_free(why);
            why = g_strdup_printf("node %u is slow memory but in the kernel's top tier "
                                  "(memory_tier%d): nothing is promoted from it",
                                  n->os_id, n->kernel_tier);
            continue;
        }
        found = TRUE;
        g_free(why);
        why = g_strdup_printf("node %u is a slow tier (%s)", n->os_id, n->tier_reason);
    }
    if (!why)
        why = g_strdup("no node of this host is a slow memory tier");
    if (ret_why)
        *ret_why = why;
    else
        g_free(why);
    return found;
}

/* The first placed VM that is not bound, with why, or NULL. */
static gchar *
unbound_vm(const GArray *vms)
{
    for (guint i = 0; i < vms->len; i++) {
        const VnAutonumaVm *vm = &g_array_index(vms, VnAutonumaVm, i);
        if (vn_autonuma_vm_bound(vm))
            continue;
        if (!vm->mode_known)
            return g_strdup_printf("VM %s has no memory mode recorded by vnuma", vm->name);
        return g_strdup_printf("VM %s is %s over %u nodes: AutoNUMA moves its pages", vm->name,
                               vn_memory_mode_to_string(vm->mode), vm->n_nodes);
    }
    return NULL;
}

/* Nothing to set for `why`; the value vnumad changed comes back. */
static void
decide_back(gint current, gint restore, gchar *why, VnAutonumaDecision *ret)
{
    if (ret->refused)
        ret->refusal = g_strdup(why);
    if (restore >= 0 && current != restore) {
        ret->value = restore;
        ret->reason = g_strdup_printf("%s: restoring %d, the value found at start", why, restore);
        g_free(why);
        return;
    }
    ret->value = -1;
    ret->reason = why;
}

static void
decide_set(gint current, gint value, gchar *why, VnAutonumaDecision *ret)
{
    ret->value = current == value ? -1 : value;
    ret->reason = why;
}

static void
decide_off(gint current, gint restore, const GArray *vms, VnAutonumaDecision *ret)
{
    gchar *unbound = unbound_vm(vms);

    if (vms->len == 0) {
        ret->refused = TRUE;
        decide_back(current, restore,
                    g_strdup("off refused: no placed VM (AutoNUMA is switched off only "
                             "together with binding, never alone)"),
                    ret);
        return;
    }
    if (unbound) {
        ret->refused = TRUE;
        decide_back(current, restore, g_strdup_printf("off refused: %s", unbound), ret);
        g_free(unbound);
        return;
    }
    decide_set(current, 0,
               g_strdup_printf("every placed VM (%u) is bound (strict, or restrictive on one "
                               "node): AutoNUMA has nothing to move",
                               vms->len),
               ret);
}

static void
decide_tiering(gint current, gint restore, const VnTopology *t, VnAutonumaDecision *ret)
{
    g_autofree gchar *why = NULL;

    if (!vn_autonuma_has_slow_tier(t, &why)) {
        ret->refused = TRUE;
        decide_back(current, restore, g_strdup_printf("tiering refused: %s", why), ret);
        return;
    }
    decide_set(current, VN_NUMA_BALANCING_BIT_TIERING,
               g_strdup_printf("tiering: %s; hot pages promoted, normal balancing off", why), ret);
}

void
vn_autonuma_decide(VnNumaBalancingWish wish, gint current, gint restore, const GArray *vms,
                   const VnTopology *t, VnAutonumaDecision *ret)
{
    g_return_if_fail(vms != NULL && t != NULL && ret != NULL && wish < VN_NUMA_BALANCING_WISH_MAX);

    ret->value = -1;
    ret->refused = FALSE;
    ret->reason = NULL;
    ret->refusal = NULL;
    if (current < 0) {
        ret->refused = wish != VN_NUMA_BALANCING_LEAVE;
        ret->reason = g_strdup("kernel.numa_balancing cannot be read: nothing written");
        ret->refusal = ret->refused ? g_strdup(ret->reason) : NULL;
        return;
    }
    switch (wish) {
    case VN_NUMA_BALANCING_LEAVE:
        decide_back(current, restore, g_strdup("leave"), ret);
        return;
    case VN_NUMA_BALANCING_OFF:
        decide_off(current, restore, vms, ret);
        return;
    case VN_NUMA_BALANCING_TIERING:
        decide_tiering(current, restore, t, ret);
        return;
    case VN_NUMA_BALANCING_WISH_MAX:
        break;
    }
}

gchar *
vn_autonuma_warning(gint current, const GArray *vms)
{
    g_autoptr(GPtrArray) names = g_ptr_array_new();
    g_autofree gchar *list = NULL;

    if (current < 0 || !(current & VN_NUMA_BALANCING_BIT_NORMAL))
        return NULL;
    for (guint i = 0; i < vms->len; i++) {
        const VnAutonumaVm *vm = &g_array_index(vms, VnAutonumaVm, i);
        if (vm->mode_known && vm->mode == VN_MEMORY_MODE_RESTRICTIVE)
            g_ptr_array_add(names, (gpointer)vm->name);
    }
    if (!names->len)
        return NULL;
    g_ptr_array_add(names, NULL);
    list = g_strjoinv(", ", (gchar **)names->pdata);
    return g_strdup_printf("kernel.numa_balancing=%d: AutoNUMA scans and may move the pages of "
                           "the restrictive VM%s %s (strict pages it leaves alone); [host] "
                           "numa_balancing = off switches it off once every placed VM is bound",
                           current, names->len > 2 ? "s" : "", list);
}
