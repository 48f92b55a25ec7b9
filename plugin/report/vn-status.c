/* vn-status.c: joining the ledger, numa_maps and the nodes' counters. */
#include "vn-status.h"

#include "vn-host-load.h"
#include "vn-numa-maps.h"

static const gchar *const level_names[VN_STATUS_LEVEL_MAX] = {
    "ok",
    "look",
    "problem",
    "unknown",
};

const gchar *
vn_status_level_to_string(VnStatusLevel l)
{
    return l < VN_STATUS_LEVEL_MAX ? level_names[l] : NULL;
}

VnStatusLevel
vn_status_miss_level(gdouble miss_share)
{
    if (miss_share < 0)
        return VN_STATUS_LEVEL_UNKNOWN;
    if (miss_share > VN_STATUS_MISS_PROBLEM)
        return VN_STATUS_LEVEL_PROBLEM;
    if (miss_share > VN_STATUS_MISS_LOOK)
        return VN_STATUS_LEVEL_LOOK;
    return VN_STATUS_LEVEL_OK;
}

static void
status_vm_free(VnStatusVm *v)
{
    if (!v)
        return;
    g_free(v->not_measured);
    if (v->memory)
        g_array_unref(v->memory);
    g_free(v);
}

void
vn_status_free(VnStatus *s)
{
    if (!s)
        return;
    g_ptr_array_unref(s->vms);
    g_array_unref(s->nodes);
    g_free(s);
}

/* The record's host nodes, ascending, each once. */
static GArray *
record_nodes(const VnLedgerRecord *r)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint c = 0; c < r->cells->len; c++) {
        guint n = g_array_index(r->cells, VnLedgerCell, c).node_os_id, i = 0;
        while (i < nodes->len && g_array_index(nodes, guint, i) < n)
            i++;
        if (i == nodes->len || g_array_index(nodes, guint, i) != n)
            g_array_insert_val(nodes, i, n);
    }
    return nodes;
}

/* Adds each node's memory of `u` to the tier of that node in `t`. */
static void
sum_tiers(const VnTopology *t, const VnNumaUsage *u, VnStatusVm *v)
{
    for (guint n = 0; n < u->n_nodes; n++) {
        gint i = u->node_kib[n] ? vn_topology_node_by_os_id(t, n) : -1;

        if (!u->node_kib[n])
            continue;
        if (i < 0)
            v->tier_unknown_kib += u->node_kib[n];
        else
            v->tier_kib[t->nodes[i].tier] += u->node_kib[n];
    }
}

static VnStatusVm *
collect_vm(const VnTopology *t, const VnLedgerRecord *r, const gchar *sysroot, const gchar *run_dir)
{
    VnStatusVm *v = g_new0(VnStatusVm, 1);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNumaUsage) u = NULL;
    g_autoptr(GArray) nodes = record_nodes(r);
    gint64 pid;

    v->record = r;
    v->locality = -1;
    /* GLib's file errors quote paths with characters the C locale cannot
     * show; the usual case (not running here) gets a plain note. */
    if (!vn_numa_maps_domain_pid(sysroot, run_dir, r->name, &pid, &error)) {
        v->not_measured = g_strdup_printf("no QEMU pid file %s/%s.pid", run_dir, r->name);
        return v;
    }
    if (!(u = vn_numa_maps_read(sysroot, pid, &error))) {
        v->not_measured = g_strdup_printf("pid %" G_GINT64_FORMAT ": numa_maps unreadable (%s)",
                                          pid, error->message);
        return v;
    }
    v->measured = TRUE;
    v->memory = g_array_new(FALSE, FALSE, sizeof(VnStatusNodeMemory));
    for (guint n = 0; n < u->n_nodes; n++) {
        VnStatusNodeMemory m = { n, u->node_kib[n] };
        if (m.kib)
            g_array_append_val(v->memory, m);
    }
    v->resident_kib = u->total_kib;
    v->locality = vn_numa_usage_locality(u, nodes);
    sum_tiers(t, u, v);
    return v;
}

static void
collect_node(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const gchar *sysroot,
             guint i, VnStatusNode *n)
{
    const VnNode *node = &t->nodes[i];
    g_autoptr(VnBitmap) cpus = vn_policy_usable_cpus(policy, t, NULL, i);
    guint64 headroom = node->mem_total_kib / 100 * policy->headroom_percent;
    guint64 keep = headroom + policy->reserved_memory_kib;
    VnNumastat st;

    n->os_id = node->os_id;
    n->n_cpus = vn_topology_node_ncpus(t, i);
    n->vcpu_capacity = vn_bitmap_count(cpus) * policy->cpu_overcommit;
    n->committed_vcpus = load->nodes[i].committed_vcpus;
    n->committed_memory_kib = load->nodes[i].committed_memory_kib;
    n->mem_total_kib = node->mem_total_kib;
    n->mem_usable_kib = node->mem_total_kib > keep ? node->mem_total_kib - keep : 0;
    n->mem_free_kib = node->mem_free_kib;
    n->cpu_busy = load->nodes[i].cpu_busy;
    n->miss_share = -1;
    if (vn_host_read_numastat(sysroot, node->os_id, &st, NULL) && st.numa_hit + st.numa_miss > 0)
        n->miss_share = (gdouble)st.numa_miss / (gdouble)(st.numa_hit + st.numa_miss);
    n->miss_level = vn_status_miss_level(n->miss_share);
}

VnStatus *
vn_status_collect(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                  GPtrArray *records, const gchar *sysroot, const gchar *run_dir)
{
    VnStatus *s = g_new0(VnStatus, 1);

    g_return_val_if_fail(t && load && policy && records && run_dir, NULL);
    s->vms = g_ptr_array_new_with_free_func((GDestroyNotify)status_vm_free);
    for (guint i = 0; i < records->len; i++)
        g_ptr_array_add(s->vms, collect_vm(t, g_ptr_array_index(records, i), sysroot, run_dir));
    s->nodes = g_array_sized_new(FALSE, TRUE, sizeof(VnStatusNode), t->n_nodes);
    g_array_set_size(s->nodes, t->n_nodes);
    for (guint i = 0; i < t->n_nodes; i++)
        collect_node(t, load, policy, sysroot, i, &g_array_index(s->nodes, VnStatusNode, i));
    for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++)
        s->kernel_tier[k] = -2; /* none seen yet */
    for (guint i = 0; i < t->n_nodes; i++) {
        VnMemoryTier k = t->nodes[i].tier;
        gint kt = t->nodes[i].kernel_tier;

        if (!t->nodes[i].mem_total_kib)
            continue; /* a CPU-only node holds no memory of any tier */
        s->has_tier[k] = TRUE;
        s->kernel_tier[k] = s->kernel_tier[k] == -2 || s->kernel_tier[k] == kt ? kt : -1;
    }
    for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++)
        s->kernel_tier[k] = MAX(s->kernel_tier[k], -1);
    return s;
}
