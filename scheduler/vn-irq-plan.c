/* vn-irq-plan.c: a NIC's vectors, RPS and XPS masks on its node's free
 * cores (see vn-irq-plan.h for the rules). */
#include "vn-irq-plan.h"

#include "vn-names.h"

/* Node os ids are below this in any Linux (MAX_NUMNODES is 1 << 10). */
#define MAX_NODES 1024

static const gchar *const kind_names[] = { "host", "passthrough" };
G_STATIC_ASSERT(G_N_ELEMENTS(kind_names) == VN_IRQ_NIC_KIND_MAX);
VN_DEFINE_ENUM_STRINGS(VnIrqNicKind, vn_irq_nic_kind, kind_names, VN_IRQ_NIC_KIND_MAX)

static const gchar *const state_names[] = { "chosen", "sibling", "dedicated", "reserved" };
G_STATIC_ASSERT(G_N_ELEMENTS(state_names) == VN_IRQ_CPU_STATE_MAX);
VN_DEFINE_ENUM_STRINGS(VnIrqCpuState, vn_irq_cpu_state, state_names, VN_IRQ_CPU_STATE_MAX)

VnIrqNic *
vn_irq_nic_new(const gchar *name, VnIrqNicKind kind, gint node_os_id)
{
    VnIrqNic *n = g_new0(VnIrqNic, 1);

    n->name = g_strdup(name);
    n->kind = kind;
    n->node_os_id = node_os_id;
    n->vectors = g_array_new(FALSE, TRUE, sizeof(VnIrqVector));
    n->users = g_ptr_array_new_with_free_func(g_free);
    n->vm_nodes = vn_bitmap_new(MAX_NODES);
    return n;
}

void
vn_irq_nic_free(VnIrqNic *n)
{
    if (!n)
        return;
    g_free(n->name);
    g_array_unref(n->vectors);
    g_ptr_array_unref(n->users);
    vn_bitmap_free(n->vm_nodes);
    g_free(n);
}

void
vn_irq_nic_add_vector(VnIrqNic *n, guint irq, gboolean queue, gboolean read_only)
{
    VnIrqVector v = { .irq = irq, .queue = queue, .read_only = read_only };

    g_array_append_val(n->vectors, v);
}

void
vn_irq_nic_add_user(VnIrqNic *n, const gchar *vm, guint node_os_id)
{
    if (!g_ptr_array_find_with_equal_func(n->users, vm, g_str_equal, NULL))
        g_ptr_array_add(n->users, g_strdup(vm));
    if (node_os_id < MAX_NODES)
        vn_bitmap_set(n->vm_nodes, node_os_id);
}

static void
row_clear(gpointer p)
{
    VnIrqRow *r = p;

    g_clear_pointer(&r->irqs, g_array_unref);
}

static void
target_clear(gpointer p)
{
    VnIrqTarget *t = p;

    g_clear_pointer(&t->cpus, vn_bitmap_free);
}

static void
nic_plan_free(gpointer p)
{
    VnIrqNicPlan *n = p;

    g_free(n->name);
    vn_bitmap_free(n->nodes);
    g_clear_pointer(&n->cpus, vn_bitmap_free);
    g_array_unref(n->targets);
    g_ptr_array_unref(n->rps);
    g_ptr_array_unref(n->xps);
    g_ptr_array_unref(n->reasons);
    g_array_unref(n->rows);
    g_free(n);
}

void
vn_irq_plan_free(VnIrqPlan *p)
{
    if (!p)
        return;
    g_ptr_array_unref(p->nics);
    g_free(p);
}

static void G_GNUC_PRINTF(2, 3) reason(VnIrqNicPlan *p, const gchar *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    g_ptr_array_add(p->reasons, g_strdup_vprintf(fmt, ap));
    va_end(ap);
}

static gchar *
nodes_text(const VnBitmap *b)
{
    GString *s = g_string_new(NULL);

    VN_BITMAP_FOREACH (b, i)
        g_string_append_printf(s, "%s%d", s->len ? "," : "", i);
    return g_string_free(s, FALSE);
}

/* The users and their nodes, for the reasons: "vm-a, vm-b on node(s) 1". */
static gchar *
users_text(const VnIrqNic *n)
{
    g_autofree gchar *nodes = nodes_text(n->vm_nodes);
    GString *s = g_string_new(NULL);

    for (guint i = 0; i < n->users->len; i++)
        g_string_append_printf(s, "%s%s", i ? ", " : "", (const gchar *)n->users->pdata[i]);
    if (!n->users->len)
        g_string_append(s, "no VM");
    else if (*nodes)
        g_string_append_printf(s, " on node(s) %s", nodes);
    return g_string_free(s, FALSE);
}

/* Which nodes the NIC's work goes to (empty: none known). */
static void
choose_nodes(const VnTopology *t, const VnIrqNic *n, VnIrqNicPlan *p)
{
    g_autofree gchar *users = users_text(n);
    gboolean known = n->node_os_id >= 0 && vn_topology_node_by_os_id(t, (guint)n->node_os_id) >= 0;

    if (n->kind == VN_IRQ_NIC_PASSTHROUGH && !vn_bitmap_is_empty(n->vm_nodes)) {
        vn_bitmap_or(p->nodes, n->vm_nodes);
        reason(p, "%s: passed through to %s: its interrupts follow that VM", n->name, users);
    } else if (known) {
        vn_bitmap_set(p->nodes, (guint)n->node_os_id);
        reason(p, "%s: on node %d, its PCI function's node (serving %s)", n->name, n->node_os_id,
               users);
    } else if (!vn_bitmap_is_empty(n->vm_nodes)) {
        vn_bitmap_or(p->nodes, n->vm_nodes);
        reason(p, "%s: its PCI function gives no node: on the nodes of the VMs it serves (%s)",
               n->name, users);
    } else {
        reason(p, "%s: its PCI function gives no node and no placed VM uses it: left as it is",
               n->name);
    }
}

/* Every CPU of the nodes in `nodes`. */
static VnBitmap *
node_cpus(const VnTopology *t, const VnBitmap *nodes)
{
    VnBitmap *b = vn_bitmap_new(t->n_cpu_ids);

    VN_BITMAP_FOREACH (nodes, os) {
        gint i = vn_topology_node_by_os_id(t, (guint)os);
        if (i >= 0)
            vn_bitmap_or(b, t->nodes[i].cpus);
    }
    return b;
}

static VnBitmap *
dedicated_union(guint n_bits, const GArray *dedicated)
{
    VnBitmap *b = vn_bitmap_new(n_bits);

    for (guint i = 0; dedicated && i < dedicated->len; i++)
        vn_bitmap_or(b, g_array_index(dedicated, VnIrqDedicated, i).cpus);
    return b;
}

/* The pool less dedicated and reserved CPUs; when that leaves nothing,
 * reserved host CPUs come back first, then dedicated ones (said). */
static VnBitmap *
choose_cpus(const VnBitmap *pool, const VnBitmap *dedicated, const VnBitmap *reserved,
            VnIrqNicPlan *p)
{
    g_autoptr(VnBitmap) free_cpus = vn_bitmap_copy(pool);
    g_autofree gchar *nodes = nodes_text(p->nodes);

    vn_bitmap_and_not(free_cpus, dedicated);
    if (reserved)
        vn_bitmap_and_not(free_cpus, reserved);
    if (!vn_bitmap_is_empty(free_cpus))
        return g_steal_pointer(&free_cpus);
    vn_bitmap_clear_all(free_cpus);
    vn_bitmap_or(free_cpus, pool);
    vn_bitmap_and_not(free_cpus, dedicated);
    if (!vn_bitmap_is_empty(free_cpus)) {
        reason(p,
               "every CPU of node(s) %s not dedicated to a VM is reserved for the host: "
               "the interrupts go to the reserved CPUs",
               nodes);
        return g_steal_pointer(&free_cpus);
    }
    reason(p,
           "every CPU of node(s) %s is dedicated to a VM: nothing else is left, the "
           "interrupts go to dedicated CPUs and will disturb those VMs",
           nodes);
    return vn_bitmap_copy(pool);
}

/* The first CPU of each core among `cpus`, ascending. */
static GArray *
first_threads(const VnTopology *t, const VnBitmap *cpus)
{
    GArray *firsts = g_array_new(FALSE, FALSE, sizeof(guint));
    g_autoptr(GHashTable) seen = g_hash_table_new(NULL, NULL);

    VN_BITMAP_FOREACH (cpus, c) {
        const VnCpu *cpu = vn_topology_cpu(t, (guint)c);
        guint key = cpu ? cpu->core : G_MAXUINT - (guint)c;
        if (g_hash_table_add(seen, GUINT_TO_POINTER(key + 1))) {
            guint v = (guint)c;
            g_array_append_val(firsts, v);
        }
    }
    return firsts;
}

static const gchar *
dedicated_owner(const GArray *dedicated, guint cpu)
{
    for (guint i = 0; dedicated && i < dedicated->len; i++) {
        const VnIrqDedicated *d = &g_array_index(dedicated, VnIrqDedicated, i);
        if (cpu < d->cpus->n_bits && vn_bitmap_test(d->cpus, cpu))
            return d->vm;
    }
    return NULL;
}

static void
add_rows(const VnTopology *t, const VnBitmap *pool, const GArray *firsts, const GArray *dedicated,
         VnIrqNicPlan *p)
{
    VN_BITMAP_FOREACH (pool, c) {
        const VnCpu *cpu = vn_topology_cpu(t, (guint)c);
        VnIrqRow row = { .cpu = (guint)c, .core = cpu ? cpu->core : 0 };
        gboolean first = FALSE;

        for (guint i = 0; i < firsts->len && !first; i++)
            first = g_array_index(firsts, guint, i) == (guint)c;
        row.irqs = g_array_new(FALSE, FALSE, sizeof(guint));
        if (vn_bitmap_test(p->cpus, (guint)c))
            row.state = first ? VN_IRQ_CPU_CHOSEN : VN_IRQ_CPU_SIBLING;
        else if ((row.vm = dedicated_owner(dedicated, (guint)c)))
            row.state = VN_IRQ_CPU_DEDICATED;
        else /* neither chosen nor a VM's: reserved for the host */
            row.state = VN_IRQ_CPU_RESERVED;
        g_array_append_val(p->rows, row);
    }
}

static VnIrqRow *
row_of(VnIrqNicPlan *p, guint cpu)
{
    for (guint i = 0; i < p->rows->len; i++)
        if (g_array_index(p->rows, VnIrqRow, i).cpu == cpu)
            return &g_array_index(p->rows, VnIrqRow, i);
    return NULL;
}

/* Queue vectors one per core, others on every chosen CPU. */
static void
place_vectors(const VnIrqNic *n, const GArray *firsts, VnIrqNicPlan *p)
{
    guint k = 0, queues = 0;

    for (guint i = 0; i < n->vectors->len; i++) {
        const VnIrqVector *v = &g_array_index(n->vectors, VnIrqVector, i);
        VnIrqTarget target = { .irq = v->irq };

        if (v->read_only) {
            target.left = TRUE;
            reason(p,
                   "irq %u: the kernel takes no affinity for it (managed or read-only): "
                   "left where it is",
                   v->irq);
        } else if (v->queue) {
            guint cpu = g_array_index(firsts, guint, k++ % firsts->len);
            target.cpus = vn_bitmap_new(p->cpus->n_bits);
            vn_bitmap_set(target.cpus, cpu);
            g_array_append_val(row_of(p, cpu)->irqs, v->irq);
            queues++;
        } else {
            target.cpus = vn_bitmap_copy(p->cpus);
        }
        g_array_append_val(p->targets, target);
    }
    if (queues)
        reason(p, "%u queue vector(s) one per core over %u core(s)%s", queues, firsts->len,
               queues > firsts->len ? " (more vectors than cores: some share one)" : "");
}

/* RPS: every chosen CPU for each rx queue; XPS: the chosen CPUs dealt
 * round the tx queues. */
static void
place_queues(const VnIrqNic *n, VnIrqNicPlan *p)
{
    guint ncpus = vn_bitmap_count(p->cpus), j = 0;

    for (guint i = 0; i < n->n_rx; i++)
        g_ptr_array_add(p->rps, vn_bitmap_copy(p->cpus));
    for (guint i = 0; i < n->n_tx; i++)
        g_ptr_array_add(p->xps, vn_bitmap_new(p->cpus->n_bits));
    if (!n->n_tx)
        return;
    VN_BITMAP_FOREACH (p->cpus, c)
        vn_bitmap_set(p->xps->pdata[j++ % n->n_tx], (guint)c);
    for (guint i = ncpus; i < n->n_tx; i++) {
        guint k = 0;
        VN_BITMAP_FOREACH (p->cpus, c)
            if (k++ == i % ncpus)
                vn_bitmap_set(p->xps->pdata[i], (guint)c);
    }
}

static VnIrqNicPlan *
plan_nic(const VnTopology *t, const VnIrqNic *n, const GArray *dedicated, const VnBitmap *reserved)
{
    VnIrqNicPlan *p = g_new0(VnIrqNicPlan, 1);
    g_autoptr(VnBitmap) pool = NULL;
    g_autoptr(VnBitmap) owned = dedicated_union(t->n_cpu_ids, dedicated);
    g_autoptr(GArray) firsts = NULL;

    p->name = g_strdup(n->name);
    p->kind = n->kind;
    p->nodes = vn_bitmap_new(MAX_NODES);
    p->targets = g_array_new(FALSE, TRUE, sizeof(VnIrqTarget));
    g_array_set_clear_func(p->targets, target_clear);
    p->rps = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    p->xps = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    p->reasons = g_ptr_array_new_with_free_func(g_free);
    p->rows = g_array_new(FALSE, TRUE, sizeof(VnIrqRow));
    g_array_set_clear_func(p->rows, row_clear);
    choose_nodes(t, n, p);
    pool = node_cpus(t, p->nodes);
    if (vn_bitmap_is_empty(pool)) {
        if (!vn_bitmap_is_empty(p->nodes))
            reason(p, "%s: its node(s) have no CPUs: left as it is", n->name);
        vn_bitmap_clear_all(p->nodes);
        return p;
    }
    p->cpus = choose_cpus(pool, owned, reserved, p);
    firsts = first_threads(t, p->cpus);
    add_rows(t, pool, firsts, dedicated, p);
    place_vectors(n, firsts, p);
    place_queues(n, p);
    return p;
}

VnIrqPlan *
vn_irq_plan(const VnTopology *t, const GPtrArray *nics, const GArray *dedicated,
            const VnBitmap *reserved)
{
    VnIrqPlan *p = g_new0(VnIrqPlan, 1);

    g_return_val_if_fail(t != NULL && t->finished && nics != NULL, NULL);
    p->nics = g_ptr_array_new_with_free_func(nic_plan_free);
    for (guint i = 0; i < nics->len; i++)
        g_ptr_array_add(p->nics, plan_nic(t, nics->pdata[i], dedicated, reserved));
    return p;
}
