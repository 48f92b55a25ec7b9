/* vn-topology-tiers.c: HMAT figures, memory tiers, and distances from HMAT.
 *
 * Which evidence decides a node's tier, first match wins:
 *   1. an hwloc subtype other than DRAM (the firmware or hwloc named it),
 *      except SPM below the CPU nodes' kernel tier: hwloc names any
 *      soft-reserved (EFI specific-purpose) memory SPM, and that is also
 *      how CXL or other slow memory reaches dax/kmem (seen on the emulated
 *      host: memmap=...%...+0xefffffff, dax0.0 rebound to kmem, the node
 *      in memory_tier22 below DRAM's memory_tier4, hwloc subtype SPM);
 *   2. a kernel memory tier below the CPU nodes' (Linux puts memory onlined
 *      through dax/kmem there; on 6.1 a CPU-less node from the firmware
 *      tables lands in the DRAM tier, so the same tier proves nothing);
 *   3. CPUs of its own (DRAM);
 *   4. no CPUs of its own: HMAT figures from the nearest CPU node against
 *      that node's own memory decide when published (1.5 times the latency
 *      or half the bandwidth is slow); without them a node that shares
 *      another's CPU set is DRAM, one without CPUs slow.
 */
#include "vn-topology.h"
#include "vn-topology-private.h"

#include <string.h>
#include "vn-names.h"

static const gchar *const tier_names[] = { "dram", "slow", "special" };
G_STATIC_ASSERT(G_N_ELEMENTS(tier_names) == VN_MEMORY_TIER_MAX);
VN_DEFINE_ENUM_STRINGS(VnMemoryTier, vn_memory_tier, tier_names, VN_MEMORY_TIER_MAX)

static const gchar *const access_names[] = { "read_latency", "write_latency", "read_bandwidth",
                                             "write_bandwidth" };
G_STATIC_ASSERT(G_N_ELEMENTS(access_names) == VN_ACCESS_MAX);
VN_DEFINE_ENUM_STRINGS(VnAccessKind, vn_access_kind, access_names, VN_ACCESS_MAX)

static VnNodeAccess *
find_access(const VnTopology *t, guint initiator, guint target)
{
    for (guint i = 0; t->access && i < t->access->len; i++) {
        VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, i);
        if (a->initiator == initiator && a->target == target)
            return a;
    }
    return NULL;
}

void
vn_topology_set_access(VnTopology *t, guint initiator, guint target, VnAccessKind kind, guint value)
{
    VnNodeAccess *a;

    g_return_if_fail(!t->finished && initiator < t->n_nodes && target < t->n_nodes &&
                     kind < VN_ACCESS_MAX);
    if (!t->access)
        t->access = g_array_new(FALSE, TRUE, sizeof(VnNodeAccess));
    if (!(a = find_access(t, initiator, target))) {
        VnNodeAccess fresh = { .initiator = initiator, .target = target };
        g_array_append_val(t->access, fresh);
        a = &g_array_index(t->access, VnNodeAccess, t->access->len - 1);
    }
    a->value[kind] = value;
}

const VnNodeAccess *
vn_topology_access(const VnTopology *t, guint initiator, guint target)
{
    return find_access(t, initiator, target);
}

static gint
access_cmp(gconstpointer a, gconstpointer b)
{
    const VnNodeAccess *x = a, *y = b;

    if (x->initiator != y->initiator)
        return x->initiator < y->initiator ? -1 : 1;
    return (x->target > y->target) - (x->target < y->target);
}

void
vn_topology_finish_access(VnTopology *t)
{
    if (t->access)
        g_array_sort(t->access, access_cmp);
}

/* ---- tiers ---- */

typedef struct {
    const gchar *subtype;
    VnMemoryTier tier;
    const gchar *what;
} SubtypeClass;

/* hwloc's NUMA node subtypes (hwloc 2.9 documentation, "Normal attributes"). */
static const SubtypeClass subtype_classes[] = {
    { "HBM", VN_MEMORY_TIER_SPECIAL, "high-bandwidth memory" },
    { "MCDRAM", VN_MEMORY_TIER_SPECIAL, "high-bandwidth memory" },
    { "SPM", VN_MEMORY_TIER_SPECIAL, "specific-purpose memory" },
    { "GPU-Memory", VN_MEMORY_TIER_SPECIAL, "device memory" },
    { "NVM", VN_MEMORY_TIER_SLOW, "non-volatile memory" },
};

/* FALSE for no subtype and DRAM: the other rules decide. */
static gboolean
tier_from_subtype(VnNode *n)
{
    if (!n->subtype || g_ascii_strcasecmp(n->subtype, "DRAM") == 0)
        return FALSE;
    for (gsize k = 0; k < G_N_ELEMENTS(subtype_classes); k++)
        if (g_ascii_strcasecmp(n->subtype, subtype_classes[k].subtype) == 0) {
            n->tier = subtype_classes[k].tier;
            n->tier_reason =
                g_strdup_printf("hwloc subtype %s (%s)", n->subtype, subtype_classes[k].what);
            return TRUE;
        }
    if (g_ascii_strncasecmp(n->subtype, "CXL", 3) == 0) {
        n->tier = VN_MEMORY_TIER_SLOW;
        n->tier_reason = g_strdup_printf("hwloc subtype %s (CXL-attached memory)", n->subtype);
        return TRUE;
    }
    n->tier = VN_MEMORY_TIER_SPECIAL;
    n->tier_reason = g_strdup_printf("hwloc subtype %s (not ordinary DRAM)", n->subtype);
    return TRUE;
}

/* The slowest kernel tier of a node with CPUs; -1 when none is known. */
static gint
cpu_kernel_tier(const VnTopology *t)
{
    gint tier = -1;

    for (guint i = 0; i < t->n_nodes; i++)
        if (vn_topology_node_ncpus(t, i) > 0)
            tier = MAX(tier, t->nodes[i].kernel_tier);
    return tier;
}

/* " read latency 11 ns (local 6 ns)": one figure against the initiator's
 * local one, when both are published. */
static void
append_figure(GString *s, const VnNodeAccess *far, const VnNodeAccess *local, VnAccessKind k)
{
    gboolean latency = k == VN_ACCESS_READ_LATENCY || k == VN_ACCESS_WRITE_LATENCY;

    if (!far->value[k])
        return;
    g_string_append_printf(s, "%s%s %u %s", s->len ? ", " : "",
                           k == VN_ACCESS_READ_LATENCY ? "read latency" : "read bandwidth",
                           far->value[k], latency ? "ns" : "MiB/s");
    if (local && local->value[k])
        g_string_append_printf(s, " (local %u %s)", local->value[k], latency ? "ns" : "MiB/s");
}

/* Slower than the initiator's own memory: 1.5 times its latency, or half
 * its bandwidth.  FALSE when nothing compares. */
static gboolean
is_slower(const VnNodeAccess *far, const VnNodeAccess *local, gboolean *ret_compared)
{
    guint fl = far->value[VN_ACCESS_READ_LATENCY], ll = local->value[VN_ACCESS_READ_LATENCY];
    guint fb = far->value[VN_ACCESS_READ_BANDWIDTH], lb = local->value[VN_ACCESS_READ_BANDWIDTH];

    *ret_compared = (fl && ll) || (fb && lb);
    return (fl && ll && (guint64)fl * 2 >= (guint64)ll * 3) ||
           (fb && lb && (guint64)fb * 2 <= (guint64)lb);
}

/* The CPU node with the lowest published latency (else the highest
 * bandwidth) to node `target` and a figure for its own memory; -1: none. */
static gint
nearest_initiator(const VnTopology *t, guint target)
{
    gint best = -1;
    guint best_lat = G_MAXUINT, best_bw = 0;

    for (guint i = 0; i < t->n_nodes; i++) {
        const VnNodeAccess *far = vn_topology_access(t, i, target);
        guint lat, bw;

        if (i == target || !far || vn_topology_node_ncpus(t, i) == 0 ||
            !vn_topology_access(t, i, i))
            continue;
        lat = far->value[VN_ACCESS_READ_LATENCY] ? far->value[VN_ACCESS_READ_LATENCY] : G_MAXUINT;
        bw = far->value[VN_ACCESS_READ_BANDWIDTH];
        if (lat < best_lat || (lat == best_lat && bw > best_bw)) {
            best = (gint)i;
            best_lat = lat;
            best_bw = bw;
        }
    }
    return best;
}

/* A node without CPUs of its own: one that shares another's CPU set
 * (hwloc puts CPU-less memory next to its initiators) or has none. */
static void
tier_without_cpus(const VnTopology *t, guint i, VnNode *n)
{
    gint from = nearest_initiator(t, i);
    g_autofree gchar *what = n->cpu_owner >= 0 ? g_strdup_printf("shares the CPUs of node %u",
                                                                 t->nodes[n->cpu_owner].os_id)
                                               : g_strdup("no CPUs");
    const VnNodeAccess *far, *local;
    g_autoptr(GString) figures = g_string_new(NULL);
    gboolean compared = FALSE, slower;

    if (from < 0) {
        n->tier = n->cpu_owner >= 0 ? VN_MEMORY_TIER_DRAM : VN_MEMORY_TIER_SLOW;
        n->tier_reason = g_steal_pointer(&what);
        return;
    }
    far = vn_topology_access(t, (guint)from, i);
    local = vn_topology_access(t, (guint)from, (guint)from);
    slower = is_slower(far, local, &compared);
    append_figure(figures, far, local, VN_ACCESS_READ_LATENCY);
    append_figure(figures, far, local, VN_ACCESS_READ_BANDWIDTH);
    if (!compared) {
        n->tier = n->cpu_owner >= 0 ? VN_MEMORY_TIER_DRAM : VN_MEMORY_TIER_SLOW;
        n->tier_reason = g_steal_pointer(&what);
    } else if (!slower) {
        n->tier = VN_MEMORY_TIER_DRAM;
        n->tier_reason = g_strdup_printf("%s; HMAT from node %u as for its local memory: %s", what,
                                         t->nodes[from].os_id, figures->str);
    } else {
        n->tier = VN_MEMORY_TIER_SLOW;
        n->tier_reason =
            g_strdup_printf("%s; HMAT from node %u: %s", what, t->nodes[from].os_id, figures->str);
    }
}

void
vn_topology_finish_tiers(VnTopology *t)
{
    gint cpu_tier = cpu_kernel_tier(t);

    for (guint i = 0; i < t->n_nodes; i++) {
        VnNode *n = &t->nodes[i];
        guint ncpus = vn_topology_node_ncpus(t, i);

        g_clear_pointer(&n->tier_reason, g_free);
        if (!(cpu_tier >= 0 && n->kernel_tier > cpu_tier && n->subtype &&
              g_ascii_strcasecmp(n->subtype, "SPM") == 0) &&
            tier_from_subtype(n))
            continue;
        if (cpu_tier >= 0 && n->kernel_tier > cpu_tier) {
            n->tier = VN_MEMORY_TIER_SLOW;
            n->tier_reason = g_strdup_printf(
                "kernel memory_tier%d, below the CPU nodes' memory_tier%d (dax/kmem memory)",
                n->kernel_tier, cpu_tier);
        } else if (ncpus > 0) {
            n->tier = VN_MEMORY_TIER_DRAM;
            n->tier_reason =
                g_strdup_printf("local memory of %u CPU%s", ncpus, ncpus == 1 ? "" : "s");
            if (n->mem_side_cache_kib) {
                g_autofree gchar *old = g_steal_pointer(&n->tier_reason);
                n->tier_reason =
                    g_strdup_printf("%s, behind a %" G_GUINT64_FORMAT " MiB memory-side cache", old,
                                    n->mem_side_cache_kib / 1024);
            }
        } else {
            tier_without_cpus(t, i, n);
        }
    }
}

/* ---- distances ---- */

gboolean
vn_topology_has_hmat_latency(const VnTopology *t)
{
    for (guint i = 0; t->access && i < t->access->len; i++)
        if (g_array_index(t->access, VnNodeAccess, i).value[VN_ACCESS_READ_LATENCY])
            return TRUE;
    return FALSE;
}

/* One value everywhere off the diagonal (a SLIT that tells nothing). */
static gboolean
is_uniform(const VnTopology *t)
{
    guint n = t->n_nodes, first = 0;

    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++) {
            guint d = t->distance[i * n + j];
            if (i == j)
                continue;
            if (!first)
                first = d;
            else if (d != first)
                return FALSE;
        }
    return TRUE;
}

gboolean
vn_topology_use_hmat_distances(VnTopology *t, gboolean always)
{
    guint n = t->n_nodes;
    g_autofree guint *d = NULL;
    g_autofree gboolean *given = NULL;

    g_return_val_if_fail(t->finished, FALSE);
    if (!vn_topology_has_hmat_latency(t) || (!always && !t->distances_assumed && !is_uniform(t)))
        return FALSE;
    d = g_memdup2(t->distance, (gsize)n * n * sizeof(guint));
    given = g_new0(gboolean, (gsize)n * n);
    for (guint k = 0; k < t->access->len; k++) {
        const VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, k);
        const VnNodeAccess *local = vn_topology_access(t, a->initiator, a->initiator);
        guint64 far = a->value[VN_ACCESS_READ_LATENCY], own;

        if (a->initiator == a->target || !far || !local ||
            !(own = local->value[VN_ACCESS_READ_LATENCY]))
            continue;
        d[a->initiator * n + a->target] =
            (guint)CLAMP((10 * far + own / 2) / own, VN_DISTANCE_LOCAL, 10000);
        given[a->initiator * n + a->target] = TRUE;
    }
    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            if (given[i * n + j] && !given[j * n + i])
                d[j * n + i] = d[i * n + j];
    if (memcmp(d, t->distance, (gsize)n * n * sizeof(guint)) == 0)
        return FALSE;
    memcpy(t->distance, d, (gsize)n * n * sizeof(guint));
    t->distances_assumed = FALSE;
    return TRUE;
}
