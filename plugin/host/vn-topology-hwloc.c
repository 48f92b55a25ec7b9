/* vn-topology-hwloc.c: VnTopology from an hwloc topology (live host,
 * synthetic string; XML files come through vn-topology-hwloc-xml.c).
 *
 * Contract and the rules for allowed CPUs, CPU-to-node attachment and shared
 * CPU sets: vn-topology-source.h.
 */
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-xml-file.h"

#include <errno.h>

G_DEFINE_QUARK(vn-topology-source-error-quark, vn_topology_source_error);

void
vn_topology_source_propagate_xml(GError **error, const GError *xml_error)
{
    gboolean io = g_error_matches(xml_error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_IO);

    g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR,
                        io ? VN_TOPOLOGY_SOURCE_ERROR_IO : VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                        xml_error->message);
}

hwloc_topology_t
vn_hwloc_topology_new(void)
{
    hwloc_topology_t topo;

    if (hwloc_topology_init(&topo) < 0)
        g_error("hwloc_topology_init failed: %s", g_strerror(errno));
    /* Default type filters on purpose: filtering caches or groups away
     * would re-attach NUMA nodes that hang below an L3 cache or a group
     * (AMD dies, SNC) to the package above and widen their cpusets.  I/O
     * objects are already dropped by default.  Disallowed PUs and nodes are
     * dropped by hwloc itself (no INCLUDE_DISALLOWED flag).  Memory-side
     * caches, which hwloc drops by default, are kept: they are memory
     * objects between a NUMA node and its parent and move no CPU. */
    hwloc_topology_set_type_filter(topo, HWLOC_OBJ_MEMCACHE, HWLOC_TYPE_FILTER_KEEP_ALL);
    return topo;
}

/* Hugepage sizes from hwloc's page types: the smallest type is the base
 * page, the others are hugepages.  Counts from XML are configured pages;
 * free is unknown (== total) until vn_topology_read_sysfs_memory(). */
static void
add_node_hugepages(VnTopology *t, guint index, hwloc_obj_t node)
{
    const struct hwloc_numanode_attr_s *a = &node->attr->numanode;
    hwloc_uint64_t base = G_MAXUINT64;

    for (unsigned k = 0; k < a->page_types_len; k++)
        if (a->page_types[k].size)
            base = MIN(base, a->page_types[k].size);
    for (unsigned k = 0; k < a->page_types_len; k++) {
        hwloc_uint64_t size = a->page_types[k].size;
        if (size > base)
            vn_topology_add_hugepages(t, index, size / 1024, a->page_types[k].count,
                                      a->page_types[k].count);
    }
}

/* Nodes in hwloc's logical order while building (node index ==
 * NUMANode logical_index); vn_topology_finish() renumbers them by kernel
 * node number. */
static void
add_nodes(VnTopology *t, hwloc_topology_t topo)
{
    guint n = (guint)hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_NUMANODE);

    for (guint i = 0; i < n; i++) {
        hwloc_obj_t node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        guint index =
            vn_topology_add_node(t, node->os_index, node->attr->numanode.local_memory / 1024);

        /* No setter exists for these fields; plugin/ fills them in
         * directly while building (vn-topology.h documents them). */
        t->nodes[index].subtype = g_strdup(node->subtype);
        /* hwloc puts memory-side caches (MemCache) between a node and its parent */
        for (hwloc_obj_t c = node->parent; c && c->type == HWLOC_OBJ_MEMCACHE; c = c->parent)
            t->nodes[index].mem_side_cache_kib =
                MAX(t->nodes[index].mem_side_cache_kib, c->attr->cache.size / 1024);
        add_node_hugepages(t, index, node);
    }
}

/* Ordinary memory wins a tie between nodes with the same CPUs: HBM, CXL
 * and other special memory are then the nodes without CPUs. */
static gboolean
is_plain_memory(hwloc_obj_t node)
{
    return !node->subtype || g_ascii_strcasecmp(node->subtype, "DRAM") == 0;
}

/* The node a PU is local to: the smallest cpuset that contains it; on a
 * tie plain memory first, then hwloc's order. */
static gint
pu_node(hwloc_topology_t topo, hwloc_obj_t pu)
{
    hwloc_obj_t best = NULL;
    int best_weight = G_MAXINT;

    for (hwloc_obj_t node = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_NUMANODE, NULL); node;
         node = node->next_cousin) {
        int w = hwloc_bitmap_weight(node->cpuset);
        if (!hwloc_bitmap_isset(node->cpuset, pu->os_index) || w < 0)
            continue;
        if (w < best_weight ||
            (w == best_weight && !is_plain_memory(best) && is_plain_memory(node))) {
            best = node;
            best_weight = w;
        }
    }
    return best ? (gint)best->logical_index : -1;
}

/* How many CPUs each node (by index) got while building; free with g_free(). */
static guint *
node_cpu_counts(const VnTopology *t)
{
    guint *ncpus = g_new0(guint, MAX(t->n_nodes, 1));

    for (guint i = 0; i < t->cpus->len; i++) {
        gint node = g_array_index(t->cpus, VnCpu, i).node;
        if (node >= 0)
            ncpus[node]++;
    }
    return ncpus;
}

/* vn_topology_finish() sees each CPU on one node only, so it cannot tell
 * that a CPU-less node shares its CPU set with another: a node that got no
 * CPU but has the same cpuset as one that did points at it. */
static void
set_cpu_owners(VnTopology *t, hwloc_topology_t topo)
{
    g_autofree guint *ncpus = node_cpu_counts(t);

    for (guint i = 0; i < t->n_nodes; i++) {
        hwloc_obj_t a = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, i);
        if (ncpus[i] > 0 || hwloc_bitmap_iszero(a->cpuset))
            continue;
        for (guint j = 0; j < t->n_nodes; j++) {
            hwloc_obj_t b = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, j);
            if (ncpus[j] > 0 && hwloc_bitmap_isequal(a->cpuset, b->cpuset)) {
                t->nodes[i].cpu_owner = (gint)j;
                break;
            }
        }
    }
}

/* Core and package numbers are hwloc logical indices, which are dense.  A
 * PU without a Core ancestor is its own core (numbered after all real
 * cores); one without a Package ancestor is on package 0. */
static void
add_cpus(VnTopology *t, hwloc_topology_t topo)
{
    guint n_cores = (guint)MAX(hwloc_get_nbobjs_by_type(topo, HWLOC_OBJ_CORE), 0);

    for (hwloc_obj_t pu = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_PU, NULL); pu;
         pu = pu->next_cousin) {
        hwloc_obj_t core = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_CORE, pu);
        hwloc_obj_t pkg = hwloc_get_ancestor_obj_by_type(topo, HWLOC_OBJ_PACKAGE, pu);

        vn_topology_add_cpu(t, pu->os_index, pu_node(topo, pu),
                            core ? core->logical_index : n_cores + pu->logical_index,
                            pkg ? pkg->logical_index : 0);
    }
}

/* The last-level caches: hwloc's L3 objects (data or unified; L3ICACHE is
 * another type).  Their cpusets hold allowed PUs only, as the nodes'. */
static void
add_l3(VnTopology *t, hwloc_topology_t topo)
{
    for (hwloc_obj_t c = hwloc_get_next_obj_by_type(topo, HWLOC_OBJ_L3CACHE, NULL); c;
         c = c->next_cousin) {
        g_autoptr(VnBitmap) cpus = NULL;
        int last = hwloc_bitmap_last(c->cpuset);

        if (last < 0 || (guint)last >= VN_TOPOLOGY_MAX_CPU_ID)
            continue;
        cpus = vn_bitmap_new((guint)last + 1);
        for (int pu = hwloc_bitmap_first(c->cpuset); pu >= 0; pu = hwloc_bitmap_next(c->cpuset, pu))
            vn_bitmap_set(cpus, (guint)pu);
        vn_topology_add_l3(t, cpus, c->attr->cache.size / 1024);
    }
}

static struct hwloc_distances_s *
find_numa_latency(hwloc_topology_t topo)
{
    struct hwloc_distances_s *d = NULL;
    unsigned nr = 1;

    /* "NUMALatency" is the matrix the Linux backend reads from SLIT and the
     * one XML exports carry; any other latency matrix between NUMA nodes is
     * the fallback. */
    /* On return nr is how many exist; at most one (the first) was stored. */
    if (hwloc_distances_get_by_name(topo, "NUMALatency", &nr, &d, 0) == 0 && nr >= 1)
        return d;
    nr = 1;
    d = NULL;
    if (hwloc_distances_get_by_type(topo, HWLOC_OBJ_NUMANODE, &nr, &d,
                                    HWLOC_DISTANCES_KIND_MEANS_LATENCY, 0) == 0 &&
        nr >= 1)
        return d;
    return NULL;
}

/* A matrix is used only if it covers every node: a partial one would
 * leave holes that no SLIT value can fill honestly, so the topology falls
 * back to assumed distances and says so in its source. */
static void
set_distances(VnTopology *t, hwloc_topology_t topo)
{
    struct hwloc_distances_s *d = find_numa_latency(topo);
    g_autofree gchar *old = NULL;

    if (!d)
        return;
    if (d->nbobjs != t->n_nodes) {
        old = g_steal_pointer(&t->source);
        t->source = g_strdup_printf("%s (NUMA latency matrix covers %u of %u nodes, ignored)", old,
                                    d->nbobjs, t->n_nodes);
        hwloc_distances_release(topo, d);
        return;
    }
    for (guint i = 0; i < d->nbobjs; i++)
        for (guint j = 0; j < d->nbobjs; j++) {
            hwloc_uint64_t v = d->values[i * d->nbobjs + j];
            vn_topology_set_distance(t, d->objs[i]->logical_index, d->objs[j]->logical_index,
                                     (guint)MIN(v, (hwloc_uint64_t)G_MAXUINT));
        }
    hwloc_distances_release(topo, d);
}

/* hwloc's memory attributes: read and write figures where hwloc has
 * them, else its generic Latency and Bandwidth (no read/write split) stand
 * for the read figures. */
static const struct {
    hwloc_memattr_id_t id;
    VnAccessKind kind;
    hwloc_memattr_id_t fallback; /* G_MAXUINT: none */
} memattrs[] = {
    { HWLOC_MEMATTR_ID_READ_LATENCY, VN_ACCESS_READ_LATENCY, HWLOC_MEMATTR_ID_LATENCY },
    { HWLOC_MEMATTR_ID_WRITE_LATENCY, VN_ACCESS_WRITE_LATENCY, G_MAXUINT },
    { HWLOC_MEMATTR_ID_READ_BANDWIDTH, VN_ACCESS_READ_BANDWIDTH, HWLOC_MEMATTR_ID_BANDWIDTH },
    { HWLOC_MEMATTR_ID_WRITE_BANDWIDTH, VN_ACCESS_WRITE_BANDWIDTH, G_MAXUINT },
};

/* Each memory node's figures from each node with CPUs (the CPUs of that
 * node as the initiator; hwloc matches a value given for any cpuset that
 * includes them). */
static void
add_memattrs(VnTopology *t, hwloc_topology_t topo)
{
    g_autofree guint *ncpus = node_cpu_counts(t);

    for (guint from = 0; from < t->n_nodes; from++) {
        hwloc_obj_t cpu_node = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, from);
        struct hwloc_location loc = { .type = HWLOC_LOCATION_TYPE_CPUSET };

        if (ncpus[from] == 0)
            continue;
        loc.location.cpuset = cpu_node->cpuset;
        for (guint to = 0; to < t->n_nodes; to++) {
            hwloc_obj_t target = hwloc_get_obj_by_type(topo, HWLOC_OBJ_NUMANODE, to);
            for (gsize k = 0; k < G_N_ELEMENTS(memattrs); k++) {
                hwloc_uint64_t v = 0;
                if (hwloc_memattr_get_value(topo, memattrs[k].id, target, &loc, 0, &v) < 0 &&
                    (memattrs[k].fallback == G_MAXUINT ||
                     hwloc_memattr_get_value(topo, memattrs[k].fallback, target, &loc, 0, &v) < 0))
                    continue;
                if (v > 0)
                    vn_topology_set_access(t, from, to, memattrs[k].kind,
                                           (guint)MIN(v, (hwloc_uint64_t)G_MAXUINT));
            }
        }
    }
}

VnTopology *
vn_topology_build_from_hwloc(hwloc_topology_t topo, const gchar *source)
{
    VnTopology *t = vn_topology_new(source);

    add_nodes(t, topo);
    add_cpus(t, topo);
    set_cpu_owners(t, topo);
    add_l3(t, topo);
    set_distances(t, topo);
    add_memattrs(t, topo);
    return t;
}

static gboolean
finish(VnTopology *t, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (!vn_topology_finish(t, &local)) {
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID,
                            local->message);
        return FALSE;
    }
    return TRUE;
}

VnTopology *
vn_topology_from_hwloc(hwloc_topology_t topo, const gchar *source, GError **error)
{
    g_autoptr(VnTopology) t = vn_topology_build_from_hwloc(topo, source);

    return finish(t, error) ? g_steal_pointer(&t) : NULL;
}

VnTopology *
vn_topology_load_synthetic(const gchar *description, GError **error)
{
    g_autoptr(VnHwlocTopology) topo = NULL;
    g_autofree gchar *source = NULL;

    g_return_val_if_fail(description != NULL, NULL);
    topo = vn_hwloc_topology_new();
    if (hwloc_topology_set_synthetic(topo, description) < 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                    "invalid hwloc synthetic description '%s' (expected e.g. "
                    "'pack:2 numa:2 core:8 pu:2'; HWLOC_SYNTHETIC_VERBOSE=1 shows hwloc's reason)",
                    description);
        return NULL;
    }
    if (hwloc_topology_load(topo) < 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "hwloc synthetic description '%s': hwloc cannot build it: %s", description,
                    g_strerror(errno));
        return NULL;
    }
    source = g_strdup_printf("hwloc synthetic '%s'", description);
    return vn_topology_from_hwloc(topo, source, error);
}

VnTopology *
vn_topology_load_live(GError **error)
{
    g_autoptr(VnHwlocTopology) topo = vn_hwloc_topology_new();
    g_autoptr(VnTopology) t = NULL;
    g_autofree gchar *source = NULL;

    /* Linux sysfs gives packages, cores, PUs and NUMA nodes; the x86 CPUID
     * backend adds nothing used here, and under valgrind it prints a
     * warning on stderr, which library code must not cause. */
    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    if (hwloc_topology_load(topo) < 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "this host: hwloc cannot discover the topology: %s", g_strerror(errno));
        return NULL;
    }
    source = g_strdup("this host (hwloc)");
    t = vn_topology_build_from_hwloc(topo, source);
    /* A kernel built without NUMA has no node directory; hwloc then made
     * one node and its memory figures are all there is. */
    if (!g_file_test("/sys/devices/system/node", G_FILE_TEST_IS_DIR))
        return finish(t, error) ? g_steal_pointer(&t) : NULL;
    if (!vn_topology_add_sysfs_nodes(t, "/", error))
        return NULL;
    vn_topology_add_sysfs_tiers(t, "/");
    if (!finish(t, error) || !vn_topology_read_sysfs_memory(t, "/", error))
        return NULL;
    return g_steal_pointer(&t);
}
