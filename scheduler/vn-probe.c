/* vn-probe.c: derived distances and the comparison with the firmware's. */
#include "vn-probe.h"

VnProbe *
vn_probe_new(guint n_nodes)
{
    VnProbe *p = g_new0(VnProbe, 1);

    p->n_nodes = n_nodes;
    p->latency_ns = g_new(gdouble, MAX((gsize)n_nodes * n_nodes, 1));
    p->bandwidth_mbs = g_new(gdouble, MAX((gsize)n_nodes * n_nodes, 1));
    for (gsize i = 0; i < (gsize)n_nodes * n_nodes; i++)
        p->latency_ns[i] = p->bandwidth_mbs[i] = -1.0;
    return p;
}

void
vn_probe_free(VnProbe *p)
{
    if (!p)
        return;
    g_free(p->latency_ns);
    g_free(p->bandwidth_mbs);
    g_free(p);
}

void
vn_probe_set(VnProbe *p, guint cpu_node, guint mem_node, gdouble latency_ns, gdouble bandwidth_mbs)
{
    g_return_if_fail(cpu_node < p->n_nodes && mem_node < p->n_nodes);
    p->latency_ns[cpu_node * p->n_nodes + mem_node] = latency_ns;
    p->bandwidth_mbs[cpu_node * p->n_nodes + mem_node] = bandwidth_mbs;
}

gboolean
vn_probe_measured(const VnProbe *p, guint cpu_node, guint mem_node)
{
    return p->latency_ns[cpu_node * p->n_nodes + mem_node] > 0;
}

gdouble
vn_probe_latency(const VnProbe *p, guint cpu_node, guint mem_node)
{
    return p->latency_ns[cpu_node * p->n_nodes + mem_node];
}

gdouble
vn_probe_local_latency(const VnProbe *p, guint i)
{
    gdouble best = -1.0;

    if (vn_probe_measured(p, i, i))
        return vn_probe_latency(p, i, i);
    for (guint j = 0; j < p->n_nodes; j++)
        if (vn_probe_measured(p, i, j) && (best < 0 || vn_probe_latency(p, i, j) < best))
            best = vn_probe_latency(p, i, j);
    return best;
}

guint *
vn_probe_distances(const VnProbe *p)
{
    guint n = p->n_nodes;
    guint *d = g_new0(guint, MAX((gsize)n * n, 1));

    for (guint i = 0; i < n; i++) {
        gdouble local = vn_probe_local_latency(p, i);
        for (guint j = 0; j < n && local > 0; j++)
            if (vn_probe_measured(p, i, j))
                d[i * n + j] = MAX(10u, (guint)(10.0 * vn_probe_latency(p, i, j) / local + 0.5));
    }
    return d;
}

static gint
uint_cmp(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return (x > y) - (x < y);
}

GArray *
vn_probe_classes(const VnProbe *p)
{
    g_autofree guint *d = vn_probe_distances(p);
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(guint));
    GArray *classes = g_array_new(FALSE, FALSE, sizeof(guint));
    guint n = p->n_nodes;

    for (guint i = 0; i < n; i++)
        for (guint j = i + 1; j < n; j++) {
            guint a = d[i * n + j], b = d[j * n + i];
            guint v = a && b ? (a + b + 1) / 2 : MAX(a, b);
            if (v)
                g_array_append_val(all, v);
        }
    g_array_sort(all, uint_cmp);
    for (guint k = 0; k < all->len; k++) {
        guint v = g_array_index(all, guint, k);
        if (classes->len == 0 ||
            v > VN_PROBE_CLASS_RATIO * g_array_index(classes, guint, classes->len - 1))
            g_array_append_val(classes, v);
    }
    return classes;
}

const gchar *
vn_probe_finding_kind_to_string(VnProbeFindingKind k)
{
    static const gchar *const names[] = { "flat", "inversion", "asymmetry" };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_PROBE_FINDING_MAX);

    g_return_val_if_fail(k < VN_PROBE_FINDING_MAX, NULL);
    return names[k];
}

void
vn_probe_finding_free(VnProbeFinding *f)
{
    if (!f)
        return;
    g_free(f->text);
    g_free(f);
}

static void
add_finding(GPtrArray *out, VnProbeFindingKind kind, guint a, guint b, guint c, gchar *text)
{
    VnProbeFinding *f = g_new0(VnProbeFinding, 1);

    *f = (VnProbeFinding){ .kind = kind, .a = a, .b = b, .c = c, .text = text };
    g_ptr_array_add(out, f);
}

/* The firmware gives every measured remote pair one value, and the walk
 * sees two or more classes. */
static void
find_flat(const VnProbe *p, const VnTopology *t, GPtrArray *out)
{
    g_autoptr(GArray) classes = vn_probe_classes(p);
    g_autoptr(GString) list = g_string_new(NULL);
    guint n = p->n_nodes, slit = 0;

    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++) {
            if (i == j || !vn_probe_measured(p, i, j))
                continue;
            if (slit && vn_topology_distance(t, i, j) != slit)
                return;
            slit = vn_topology_distance(t, i, j);
        }
    if (!slit || classes->len < 2)
        return;
    for (guint k = 0; k < classes->len; k++)
        g_string_append_printf(list, "%s%u", k ? ", " : "", g_array_index(classes, guint, k));
    add_finding(out, VN_PROBE_FINDING_FLAT, 0, 0, 0,
                g_strdup_printf("flat firmware table: every remote distance is %u, but the "
                                "measured distances form %u classes (from %s)",
                                slit, classes->len, list->str));
}

static void
find_inversions(const VnProbe *p, const VnTopology *t, GPtrArray *out)
{
    guint n = p->n_nodes;

    for (guint i = 0; i < n; i++)
        for (guint j = 0; j < n; j++)
            for (guint k = 0; k < n; k++) {
                gdouble lj, lk;
                if (!vn_probe_measured(p, i, j) || !vn_probe_measured(p, i, k) ||
                    vn_topology_distance(t, i, j) >= vn_topology_distance(t, i, k))
                    continue;
                lj = vn_probe_latency(p, i, j);
                lk = vn_probe_latency(p, i, k);
                if (lj <= VN_PROBE_INVERSION_RATIO * lk)
                    continue;
                add_finding(out, VN_PROBE_FINDING_INVERSION, i, j, k,
                            g_strdup_printf("order inversion from node %u: the firmware puts "
                                            "node %u (%u) nearer than node %u (%u), but it "
                                            "measures %.0f ns against %.0f ns",
                                            t->nodes[i].os_id, t->nodes[j].os_id,
                                            vn_topology_distance(t, i, j), t->nodes[k].os_id,
                                            vn_topology_distance(t, i, k), lj, lk));
            }
}

static void
find_asymmetries(const VnProbe *p, const VnTopology *t, GPtrArray *out)
{
    guint n = p->n_nodes;

    for (guint i = 0; i < n; i++)
        for (guint j = i + 1; j < n; j++) {
            gdouble a, b;
            if (!vn_probe_measured(p, i, j) || !vn_probe_measured(p, j, i) ||
                vn_topology_distance(t, i, j) != vn_topology_distance(t, j, i))
                continue;
            a = vn_probe_latency(p, i, j);
            b = vn_probe_latency(p, j, i);
            if (MAX(a, b) <= VN_PROBE_ASYMMETRY_RATIO * MIN(a, b))
                continue;
            add_finding(out, VN_PROBE_FINDING_ASYMMETRY, i, j, 0,
                        g_strdup_printf("asymmetry between nodes %u and %u: the firmware gives "
                                        "both ways %u, the walk measures %.0f ns from %u and "
                                        "%.0f ns from %u",
                                        t->nodes[i].os_id, t->nodes[j].os_id,
                                        vn_topology_distance(t, i, j), a, t->nodes[i].os_id, b,
                                        t->nodes[j].os_id));
        }
}

GPtrArray *
vn_probe_compare(const VnProbe *p, const VnTopology *t)
{
    GPtrArray *out = g_ptr_array_new_with_free_func((GDestroyNotify)vn_probe_finding_free);

    g_return_val_if_fail(p != NULL && t != NULL && p->n_nodes == t->n_nodes, out);
    find_flat(p, t, out);
    find_inversions(p, t, out);
    find_asymmetries(p, t, out);
    return out;
}
