/* vn-domain-cpu-numa.c: <cpu><topology> and <cpu><numa> cells, read and
 * written.
 *
 * Guest cells are guest ABI.  Cells already in the domain whose count and
 * per-cell vCPU counts match the placement are kept as they are (cpus,
 * memory, memAccess, discard, caches); only their <distances> are written.
 * <distances> are replaced only when they are exactly what vnuma wrote for
 * the recorded placement; anyone else's stay.  Otherwise the cells are
 * replaced by the placement's.
 *
 * Distances are the host's between the cells' nodes; two cells on one
 * node get 11 (libvirt refuses 10 between different cells).
 *
 * The guest topology is sockets = cells (cells of different vCPU counts:
 * sockets of their greatest common count), dies = 1, threads
 * = the placement's threads per core, so every cell is whole sockets; when
 * the vCPUs do not divide evenly it falls back to one socket.  With the
 * vCPUs split evenly over host cache domains (the placement's dies) each
 * socket has that many dies, every die's vCPUs pinned inside one domain:
 * QEMU gives each die its own L3, so the guest kernel groups its vCPUs by
 * the host's L3 (also for a one-cell guest, which otherwise gets no
 * topology).  A topology already there is kept when it has exactly the
 * vCPU count and its sockets*dies split evenly into the cells (and, for
 * SMT guests, the same threads; with dies, the same sockets and dies); a
 * topology is never removed.  No `clusters` (libvirt 9.0).
 */
#include "vn-domain-private.h"
#include "vn-cpulist.h"

static gboolean
parse_cell(VnDomain *d, xmlNode *n, guint pos, GError **error)
{
    g_autofree gchar *id = vn_xml_prop(n, "id");
    g_autofree gchar *cpus = vn_xml_prop(n, "cpus");
    g_autofree gchar *mem = vn_xml_prop(n, "memory");
    g_autofree gchar *unit = vn_xml_prop(n, "unit");
    g_autofree gchar *what = g_strdup_printf("%s:%ld: <cell memory>", d->source, xmlGetLineNo(n));
    g_autoptr(GError) local = NULL;
    VnDomainCell c = { .id = pos };
    guint64 v;

    if (id && !vn_domain_parse_uint(id, 65535, "<cell id>", &v, error))
        return FALSE;
    if (id)
        c.id = (guint)v;
    if (!vn_domain_parse_scaled_kib(mem, unit, "KiB", what, &c.memory_kib, error))
        return FALSE;
    c.vcpus = cpus ? vn_cpulist_parse(cpus, d->vcpus_max, &local) : vn_bitmap_new(d->vcpus_max);
    if (!c.vcpus) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s:%ld: <cell cpus>: %s (domain has %u vCPUs)", d->source, xmlGetLineNo(n),
                    local->message, d->vcpus_max);
        return FALSE;
    }
    g_array_append_val(d->cells, c);
    return TRUE;
}

gboolean
vn_domain_parse_cpu_numa(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *numa = vn_xml_child(vn_xml_child(root, "cpu"), "numa");
    g_autoptr(GPtrArray) cells = vn_xml_children(numa, "cell");

    for (guint i = 0; i < cells->len; i++)
        if (!parse_cell(d, cells->pdata[i], i, error))
            return FALSE;
    return TRUE;
}

/* ---- writing ------------------------------------------------------------ */

/* Sockets so that every cell is whole sockets: one per cell, or, for
 * cells of different vCPU counts (the user's, or vnuma's fill split),
 * sockets of their greatest common count (cells of 2 and 6 vCPUs: 4
 * sockets of 2; of 3 and 1: 4 sockets of 1), so no socket spans two
 * guest nodes. */
static guint
cell_sockets(const VnDomain *d, const VnDomainWriteCtx *c)
{
    guint g = 0, first = 0, with_vcpus = 0;
    gboolean differ = FALSE;

    for (guint i = 0; i < c->n_cells; i++) {
        guint n = vn_bitmap_count(c->cell_vcpus->pdata[i]), a = g, b = n;
        if (n == 0)
            continue;
        differ |= first && n != first;
        first = first ? first : n;
        while (b) {
            guint r = a % b;
            a = b;
            b = r;
        }
        g = a;
    }
    if (differ)
        return d->vcpus_max / g;
    /* CPU-less cells (memory on a slow or memory-only node) hold no socket */
    for (guint i = 0; i < c->n_cells; i++)
        with_vcpus += !vn_bitmap_is_empty(c->cell_vcpus->pdata[i]);
    return MAX(with_vcpus, 1);
}

/* Whether every run of `per_die` guest vCPUs (QEMU numbers them socket,
 * die, core, thread) is pinned inside one host cache domain. */
static gboolean
dies_pinned(const VnDomainWriteCtx *c, guint per_die)
{
    for (guint v = 0; v < c->vcpu_pins->len; v++) {
        const VnBitmap *pin = c->vcpu_pins->pdata[v];
        const VnBitmap *first = c->vcpu_pins->pdata[v - v % per_die];
        gint cpu = vn_bitmap_next(first, -1);
        const VnCacheDomain *dom = cpu < 0 ? NULL : vn_topology_cpu_domain(c->t, (guint)cpu);
        if (!dom || vn_bitmap_count_and(pin, dom->cpus) != vn_bitmap_count(pin))
            return FALSE;
    }
    return TRUE;
}

/* The placement's dies a socket (p->dies) when each socket is one cell and
 * every die's vCPUs are pinned inside one cache domain (the user's cells
 * kept as written may number their vCPUs otherwise), else 1. */
static guint
socket_dies(const VnDomain *d, const VnDomainWriteCtx *c, guint sockets, guint threads)
{
    guint dies = MAX(1, c->p->dies);

    if (dies == 1 || sockets != c->n_cells || d->vcpus_max % (sockets * dies * threads) != 0 ||
        !dies_pinned(c, d->vcpus_max / (sockets * dies)))
        return 1;
    return dies;
}

static void
guest_topology(const VnDomain *d, const VnDomainWriteCtx *c, guint ret[4])
{
    guint threads = MAX(1, c->p->threads_per_core);
    guint sockets = cell_sockets(d, c), dies;

    if (d->vcpus_max % (sockets * threads) != 0)
        sockets = 1;
    if (d->vcpus_max % (sockets * threads) != 0)
        threads = 1;
    dies = socket_dies(d, c, sockets, threads);
    ret[0] = sockets;
    ret[1] = dies;
    ret[2] = d->vcpus_max / (sockets * dies * threads);
    ret[3] = threads;
}

/* An existing topology fits when it has exactly the vCPU count, its
 * sockets*dies split evenly into the cells and, for SMT guests, the same
 * threads; with cache domains mirrored (`want` has dies), only the same
 * sockets and dies. */
static gboolean
topology_fits(xmlNode *topo, const VnDomain *d, const VnDomainWriteCtx *c, const guint want[4])
{
    static const gchar *const names[] = { "sockets", "dies", "cores", "threads" };
    guint64 v[4] = { 1, 1, 1, 1 }, total = 1;

    for (guint i = 0; i < 4; i++) {
        g_autofree gchar *s = vn_xml_prop(topo, names[i]);
        if ((s || i != 1) && !vn_domain_parse_uint(s, 65536, names[i], &v[i], NULL))
            return FALSE;
        total *= v[i];
    }
    if (want[1] > 1 && (v[0] != want[0] || v[1] != want[1]))
        return FALSE;
    return total == d->vcpus_max && (v[0] * v[1]) % c->n_cells == 0 &&
           (c->p->threads_per_core <= 1 || v[3] == c->p->threads_per_core);
}

/* Whether the domain gets a guest topology: with guest cells, guest SMT
 * threads or mirrored cache domains. */
static gboolean
wants_topology(const VnDomainWriteCtx *c)
{
    return c->write_numa || c->p->threads_per_core > 1 || c->p->dies > 1;
}

static void
write_topology(xmlNode *cpu, const VnDomain *d, const VnDomainWriteCtx *c)
{
    static const gchar *const names[] = { "sockets", "dies", "cores", "threads" };
    xmlNode *topo = vn_xml_child(cpu, "topology");
    guint v[4];

    if (!wants_topology(c))
        return;
    guest_topology(d, c, v);
    /* Any topology that fits is kept, so rewriting is stable; none is
     * removed (a topology alone is always valid guest ABI). */
    if (topo && topology_fits(topo, d, c, v))
        return;
    if (!topo) {
        xmlNode *anchor = vn_domain_anchor(cpu, (const gchar *const[]){ "model", "vendor", NULL });
        topo = xmlNewDocNode(cpu->doc, NULL, BAD_CAST "topology", NULL);
        if (anchor)
            vn_xml_add(cpu, topo, anchor);
        else
            vn_xml_add_start(cpu, topo);
    }
    for (xmlAttr *a = topo->properties; a; a = topo->properties)
        xmlRemoveProp(a);
    for (guint i = 0; i < 4; i++)
        vn_xml_set_uint(topo, names[i], v[i]);
}

static void
write_distances(xmlNode *cell, guint i, const VnDomainWriteCtx *c)
{
    xmlNode *dist = vn_xml_add_new(cell, "distances", NULL);
    const VnCell *from = &g_array_index(c->p->cells, VnCell, i);

    for (guint j = 0; j < c->n_cells; j++) {
        const VnCell *to = &g_array_index(c->p->cells, VnCell, j);
        xmlNode *s = vn_xml_add_new(dist, "sibling", NULL);
        vn_xml_set_uint(s, "id", g_array_index(c->cell_ids, guint, j));
        guint d = vn_topology_distance(c->t, from->node, to->node);
        /* libvirt wants 10 for a cell to itself and more than 10 between
         * two cells, also when both sit on one host node */
        vn_xml_set_uint(s, "value", i == j ? VN_DISTANCE_LOCAL : MAX(d, VN_DISTANCE_LOCAL + 1));
    }
}

/* Whether `dist` of guest cell `i` is exactly what vnuma wrote for the
 * recorded placement (so it is vnuma's to replace). */
static gboolean
distances_recorded(xmlNode *dist, guint i, const VnDomain *d, const VnDomainWriteCtx *c)
{
    g_autoptr(GPtrArray) sib = vn_xml_children(dist, "sibling");
    const VnDomainMetadata *m = d->meta;
    gint from;

    if (!m || !m->has_placement || m->cells->len != c->n_cells || sib->len != c->n_cells)
        return FALSE;
    from = vn_topology_node_by_os_id(c->t, g_array_index(m->cells, VnDomainMetaCell, i).node_os_id);
    for (guint j = 0; j < sib->len; j++) {
        const VnDomainMetaCell *to = &g_array_index(m->cells, VnDomainMetaCell, j);
        gint node = vn_topology_node_by_os_id(c->t, to->node_os_id);
        g_autofree gchar *id = vn_xml_prop(sib->pdata[j], "id");
        g_autofree gchar *value = vn_xml_prop(sib->pdata[j], "value");
        g_autofree gchar *want_id = g_strdup_printf("%u", to->id);
        g_autofree gchar *want = NULL;
        if (from < 0 || node < 0)
            return FALSE;
        want = g_strdup_printf("%u", vn_topology_distance(c->t, (guint)from, (guint)node));
        if (g_strcmp0(id, want_id) != 0 || g_strcmp0(value, want) != 0)
            return FALSE;
    }
    return TRUE;
}

static void
update_kept_cells(xmlNode *numa, const VnDomain *d, const VnDomainWriteCtx *c)
{
    g_autoptr(GPtrArray) cells = vn_xml_children(numa, "cell");

    for (guint i = 0; i < cells->len; i++) {
        xmlNode *dist = vn_xml_child(cells->pdata[i], "distances");
        if (dist && !distances_recorded(dist, i, d, c))
            continue; /* the user's own distances */
        if (dist)
            vn_xml_remove(dist);
        if (c->n_cells > 1)
            write_distances(cells->pdata[i], i, c);
    }
}

/* One <latency> or <bandwidth> of guest cell `i` reaching cell `j`. */
static void
add_interconnect(xmlNode *ic, guint i, guint j, VnAccessKind k, guint value,
                 const VnDomainWriteCtx *c)
{
    gboolean latency = k == VN_ACCESS_READ_LATENCY || k == VN_ACCESS_WRITE_LATENCY;
    gboolean read = k == VN_ACCESS_READ_LATENCY || k == VN_ACCESS_READ_BANDWIDTH;
    xmlNode *n = vn_xml_add_new(ic, latency ? "latency" : "bandwidth", NULL);

    vn_xml_set_uint(n, "initiator", g_array_index(c->cell_ids, guint, i));
    vn_xml_set_uint(n, "target", g_array_index(c->cell_ids, guint, j));
    xmlSetProp(n, BAD_CAST "type", BAD_CAST(read ? "read" : "write"));
    vn_xml_set_uint(n, "value", value);
    if (!latency)
        xmlSetProp(n, BAD_CAST "unit", BAD_CAST "MiB");
}

/* Tiers guest: the host's HMAT figures (latency ns, bandwidth MiB/s)
 * from each cell with vCPUs to every cell, as libvirt's <interconnects>:
 * libvirt then runs QEMU with hmat=on and -numa hmat-lb, and takes a
 * CPU-less cell's initiator from them.  Latencies first, as the schema
 * reads them. */
static void
write_interconnects(xmlNode *numa, const VnDomainWriteCtx *c)
{
    static const VnAccessKind order[] = { VN_ACCESS_READ_LATENCY, VN_ACCESS_WRITE_LATENCY,
                                          VN_ACCESS_READ_BANDWIDTH, VN_ACCESS_WRITE_BANDWIDTH };
    xmlNode *ic = NULL;

    if (c->p->tiers != VN_TIERS_GUEST)
        return;
    for (guint o = 0; o < G_N_ELEMENTS(order); o++)
        for (guint i = 0; i < c->n_cells; i++) {
            const VnCell *from = &g_array_index(c->p->cells, VnCell, i);
            if (from->n_vcpus == 0)
                continue;
            for (guint j = 0; j < c->n_cells; j++) {
                const VnCell *to = &g_array_index(c->p->cells, VnCell, j);
                const VnNodeAccess *a = vn_topology_access(c->t, from->node, to->node);
                if (!a || !a->value[order[o]])
                    continue;
                if (!ic)
                    ic = vn_xml_add_new(numa, "interconnects", NULL);
                add_interconnect(ic, i, j, order[o], a->value[order[o]], c);
            }
        }
}

static void
write_new_cells(xmlNode *numa, const VnDomain *d, const VnDomainWriteCtx *c)
{
    g_autoptr(GPtrArray) old = vn_xml_children(numa, "cell");
    xmlNode *anchor = NULL;

    for (guint i = 0; i < old->len; i++)
        vn_xml_remove(old->pdata[i]);
    for (guint i = 0; i < c->n_cells; i++) {
        xmlNode *cell = vn_xml_add_new(numa, "cell", anchor);
        vn_xml_set_uint(cell, "id", g_array_index(c->cell_ids, guint, i));
        /* a CPU-less cell has no cpus attribute (libvirt refuses an
         * empty list) */
        if (!vn_bitmap_is_empty(c->cell_vcpus->pdata[i]))
            vn_xml_set_bitmap(cell, "cpus", c->cell_vcpus->pdata[i]);
        vn_xml_set_uint(cell, "memory", g_array_index(c->cell_memory, guint64, i));
        xmlSetProp(cell, BAD_CAST "unit", BAD_CAST "KiB");
        if (d->shared_memory)
            xmlSetProp(cell, BAD_CAST "memAccess", BAD_CAST "shared");
        write_distances(cell, i, c);
        anchor = cell;
    }
    for (xmlNode *ic = vn_xml_child(numa, "interconnects"); ic;
         ic = vn_xml_child(numa, "interconnects"))
        vn_xml_remove(ic);
    write_interconnects(numa, c);
}

void
vn_domain_write_cpu_numa(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c)
{
    static const gchar *const after[] = { "features", "os", "vcpus", "vcpu", NULL };
    xmlNode *cpu = vn_xml_child(root, "cpu");
    xmlNode *numa = vn_xml_child(cpu, "numa");

    if (!cpu && !wants_topology(c))
        return;
    if (!cpu)
        cpu = vn_domain_ensure(root, "cpu", after);
    write_topology(cpu, d, c);
    if (!c->write_numa) {
        if (numa)
            vn_xml_remove(numa);
    } else if (c->keep_cells) {
        update_kept_cells(numa, d, c);
    } else {
        if (!numa)
            numa = vn_xml_add_new(cpu, "numa", NULL);
        write_new_cells(numa, d, c);
    }
    vn_xml_remove_if_empty(cpu);
}
