/* vn-topology-caps.c: VnTopology from libvirt capabilities XML.
 *
 * Reads <capabilities><host><topology><cells><cell id> with <memory>,
 * <pages>, <distances><sibling id value/> and <cpus><cpu id socket_id die_id
 * cluster_id core_id/>, and the L3 banks of <host><cache><bank level='3'
 * size unit cpus/>, and the HMAT figures of <host><topology><interconnects>
 * (<latency initiator target type value/> in ns, <bandwidth ... unit/> per
 * second; entries for a memory-side cache, cache='N', are not the
 * memory's).  Everything else (guests, other caches) is ignored.  Rules for
 * cores, packages and pages: vn-topology-source.h.  HMAT figures are
 * optional: a bad entry drops them all, and the source says why.
 */
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-cpulist.h"
#include "vn-size.h"
#include "vn-xml-file.h"

#include <libxml/xpath.h>

G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlXPathContext, xmlXPathFreeContext)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlXPathObject, xmlXPathFreeObject)

/* Parsing state for one file; the hash tables give dense core and package
 * numbers for the string keys built from the attributes. */
typedef struct {
    const gchar *path;
    xmlXPathContext *xpath;
    VnTopology *t;
    GHashTable *cores;    /* key -> dense index + 1 */
    GHashTable *packages; /* key -> dense index + 1 */
} CapsParse;

static void
caps_parse_clear(CapsParse *p)
{
    g_clear_pointer(&p->cores, g_hash_table_unref);
    g_clear_pointer(&p->packages, g_hash_table_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(CapsParse, caps_parse_clear)

static gboolean G_GNUC_PRINTF(4, 5)
    fail(GError **error, const CapsParse *p, xmlNode *n, const gchar *fmt, ...)
{
    g_autofree gchar *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    /* one line, also when it quotes element text with newlines in it */
    g_strdelimit(msg, "\r\n", ' ');
    g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID, "%s:%ld: %s",
                p->path, n ? xmlGetLineNo(n) : 0L, msg);
    return FALSE;
}

/* Nodes matching `expr` relative to `n`; an empty array when none. */
static GPtrArray *
xpath_nodes(CapsParse *p, xmlNode *n, const gchar *expr)
{
    g_autoptr(xmlXPathObject) r = NULL;
    GPtrArray *ret = g_ptr_array_new();

    r = xmlXPathNodeEval(n, BAD_CAST expr, p->xpath);
    if (r && r->type == XPATH_NODESET && r->nodesetval)
        for (int i = 0; i < r->nodesetval->nodeNr; i++)
            g_ptr_array_add(ret, r->nodesetval->nodeTab[i]);
    return ret;
}

/* An unsigned attribute.  Absent: *ret_value untouched and *ret_present
 * FALSE (or an error when ret_present is NULL, i.e. required). */
static gboolean
get_uint(CapsParse *p, xmlNode *n, const gchar *name, guint64 *ret_value, gboolean *ret_present,
         GError **error)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    g_autofree gchar *text = g_strdup((const gchar *)v);
    guint64 value;

    xmlFree(v);
    if (!text) {
        if (ret_present) {
            *ret_present = FALSE;
            return TRUE;
        }
        return fail(error, p, n, "<%s> has no %s attribute", (const gchar *)n->name, name);
    }
    if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT32, &value, NULL))
        return fail(error, p, n, "<%s %s='%s'>: not an unsigned integer", (const gchar *)n->name,
                    name, text);
    *ret_value = value;
    if (ret_present)
        *ret_present = TRUE;
    return TRUE;
}

/* Element text as an unsigned number of KiB, checking unit='KiB' (the only
 * unit libvirt writes in capabilities). */
static gboolean
get_kib_text(CapsParse *p, xmlNode *n, guint64 *ret_value, GError **error)
{
    xmlChar *u = xmlGetProp(n, BAD_CAST "unit");
    xmlChar *c = xmlNodeGetContent(n);
    g_autofree gchar *unit = g_strdup((const gchar *)u);
    g_autofree gchar *text = g_strstrip(g_strdup(c ? (const gchar *)c : ""));
    guint64 value;

    xmlFree(u);
    xmlFree(c);
    if (unit && !g_str_equal(unit, "KiB"))
        return fail(error, p, n, "<%s unit='%s'>: only KiB is understood", (const gchar *)n->name,
                    unit);
    if (!g_ascii_string_to_unsigned(text, 10, 0, G_MAXUINT64, &value, NULL))
        return fail(error, p, n, "<%s>%s</%s>: not an unsigned integer", (const gchar *)n->name,
                    text, (const gchar *)n->name);
    *ret_value = value;
    return TRUE;
}

static guint
dense_index(GHashTable *h, gchar *key)
{
    gpointer v = g_hash_table_lookup(h, key);

    if (v) {
        g_free(key);
        return GPOINTER_TO_UINT(v) - 1;
    }
    g_hash_table_insert(h, key, GUINT_TO_POINTER(g_hash_table_size(h) + 1));
    return g_hash_table_size(h) - 1;
}

static gboolean
parse_cpu(CapsParse *p, xmlNode *cpu, guint node_index, guint cell_id, GError **error)
{
    guint64 id = 0, socket = 0, die = 0, cluster = 0, core = 0;
    gboolean has_socket, has_die, has_cluster, has_core;
    gchar *core_key, *pkg_key;

    if (!get_uint(p, cpu, "id", &id, NULL, error) ||
        !get_uint(p, cpu, "socket_id", &socket, &has_socket, error) ||
        !get_uint(p, cpu, "die_id", &die, &has_die, error) ||
        !get_uint(p, cpu, "cluster_id", &cluster, &has_cluster, error) ||
        !get_uint(p, cpu, "core_id", &core, &has_core, error))
        return FALSE;
    if (id >= (1u << 20))
        return fail(error, p, cpu, "<cpu id='%" G_GUINT64_FORMAT "'>: CPU id too large", id);
    pkg_key = has_socket ? g_strdup_printf("socket %" G_GUINT64_FORMAT, socket)
                         : g_strdup_printf("cell %u", cell_id);
    /* core_id is unique only inside its die and cluster: key on all of them. */
    core_key = has_core ? g_strdup_printf("%s die %" G_GINT64_FORMAT " cluster %" G_GINT64_FORMAT
                                          " core %" G_GUINT64_FORMAT,
                                          pkg_key, has_die ? (gint64)die : -1,
                                          has_cluster ? (gint64)cluster : -1, core)
                        : g_strdup_printf("cpu %" G_GUINT64_FORMAT, id);
    vn_topology_add_cpu(p->t, (guint)id, (gint)node_index, dense_index(p->cores, core_key),
                        dense_index(p->packages, pkg_key));
    return TRUE;
}

/* <pages size='S' unit='KiB'>count</pages>: the smallest size is the base
 * page, the larger ones hugepages. */
static gboolean
parse_pages(CapsParse *p, xmlNode *cell, guint node_index, GError **error)
{
    g_autoptr(GPtrArray) pages = xpath_nodes(p, cell, "pages");
    g_autofree guint64 *size = g_new0(guint64, pages->len + 1);
    g_autofree guint64 *count = g_new0(guint64, pages->len + 1);
    guint64 base = G_MAXUINT64;

    for (guint i = 0; i < pages->len; i++) {
        if (!get_uint(p, pages->pdata[i], "size", &size[i], NULL, error) ||
            !get_kib_text(p, pages->pdata[i], &count[i], error))
            return FALSE;
        base = MIN(base, size[i]);
    }
    for (guint i = 0; i < pages->len; i++)
        if (size[i] > base)
            vn_topology_add_hugepages(p->t, node_index, size[i], count[i], count[i]);
    return TRUE;
}

static gboolean
parse_cell(CapsParse *p, xmlNode *cell, GError **error)
{
    g_autoptr(GPtrArray) memory = xpath_nodes(p, cell, "memory");
    g_autoptr(GPtrArray) cpus = xpath_nodes(p, cell, "cpus/cpu");
    guint64 id = 0, mem_kib = 0;
    guint index;

    if (!get_uint(p, cell, "id", &id, NULL, error))
        return FALSE;
    if (memory->len > 0 && !get_kib_text(p, memory->pdata[0], &mem_kib, error))
        return FALSE;
    index = vn_topology_add_node(p->t, (guint)id, mem_kib);
    if (!parse_pages(p, cell, index, error))
        return FALSE;
    for (guint i = 0; i < cpus->len; i++)
        if (!parse_cpu(p, cpus->pdata[i], index, (guint)id, error))
            return FALSE;
    return TRUE;
}

/* After all cells exist: <distances><sibling id value/>.  No cell with
 * distances means none are known; otherwise every pair must be given. */
static gboolean
parse_distances(CapsParse *p, GPtrArray *cells, GError **error)
{
    VnTopology *t = p->t;

    for (guint i = 0; i < cells->len; i++) {
        g_autoptr(GPtrArray) sib = xpath_nodes(p, cells->pdata[i], "distances/sibling");
        for (guint k = 0; k < sib->len; k++) {
            guint64 id = 0, value = 0;
            gint j;

            if (!get_uint(p, sib->pdata[k], "id", &id, NULL, error) ||
                !get_uint(p, sib->pdata[k], "value", &value, NULL, error))
                return FALSE;
            if ((j = vn_topology_node_by_os_id(t, (guint)id)) < 0)
                return fail(error, p, sib->pdata[k],
                            "<sibling id='%" G_GUINT64_FORMAT "'>: no such cell", id);
            vn_topology_set_distance(t, i, (guint)j, (guint)value);
        }
    }
    for (guint i = 0; t->distance && i < t->n_nodes; i++)
        for (guint j = 0; j < t->n_nodes; j++)
            if (t->distance[i * t->n_nodes + j] == 0)
                return fail(error, p, cells->pdata[i], "cell %u has no valid distance to cell %u",
                            t->nodes[i].os_id, t->nodes[j].os_id);
    return TRUE;
}

/* A string attribute, or NULL. */
static gchar *
get_string(xmlNode *n, const gchar *name)
{
    xmlChar *v = xmlGetProp(n, BAD_CAST name);
    gchar *ret = g_strdup((const gchar *)v);

    xmlFree(v);
    return ret;
}

/* <bank id level='3' type size unit cpus/>: libvirt lists a host's caches
 * (resctrl hosts, and every host since 4.1) one bank per cache instance. */
static gboolean
parse_l3_bank(CapsParse *p, xmlNode *bank, GError **error)
{
    g_autofree gchar *type = get_string(bank, "type");
    g_autofree gchar *size = get_string(bank, "size");
    g_autofree gchar *unit = get_string(bank, "unit");
    g_autofree gchar *cpulist = get_string(bank, "cpus");
    g_autofree gchar *size_text = NULL;
    g_autoptr(VnBitmap) cpus = NULL;
    g_autoptr(GError) local = NULL;
    guint64 size_kib = 0;

    if (g_strcmp0(type, "code") == 0)
        return TRUE; /* instructions only: nothing VMs share */
    if (!cpulist)
        return fail(error, p, bank, "<bank level='3'> has no cpus attribute");
    if (!(cpus = vn_cpulist_parse(cpulist, VN_TOPOLOGY_MAX_CPU_ID, &local)))
        return fail(error, p, bank, "<bank cpus='%s'>: %s", cpulist, local->message);
    if (size && !unit)
        return fail(error, p, bank, "<bank size='%s'> has no unit attribute", size);
    size_text = g_strdup_printf("%s%s", size ? size : "", unit ? unit : "");
    if (size && !vn_size_parse_kib(size_text, &size_kib, &local))
        return fail(error, p, bank, "<bank size='%s' unit='%s'>: %s", size, unit ? unit : "",
                    local->message);
    vn_topology_add_l3(p->t, cpus, size_kib);
    return TRUE;
}

/* The cell an interconnect attribute names, or -1 with `error` set. */
static gint
interconnect_node(CapsParse *p, xmlNode *e, const gchar *name, GError **error)
{
    guint64 id = 0;
    gint i;

    if (!get_uint(p, e, name, &id, NULL, error))
        return -1;
    if ((i = vn_topology_node_by_os_id(p->t, (guint)id)) < 0)
        fail(error, p, e, "<%s %s='%" G_GUINT64_FORMAT "'>: no such cell", (const gchar *)e->name,
             name, id);
    return i;
}

/* The figure of an entry: a <latency> value in ns, a <bandwidth> value
 * and unit (per second, KiB when no unit is given) in MiB/s. */
static gboolean
interconnect_value(CapsParse *p, xmlNode *e, gboolean latency, guint *ret, GError **error)
{
    g_autofree gchar *value = get_string(e, "value");
    g_autofree gchar *unit = get_string(e, "unit");
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    guint64 v;

    if (latency || !value) {
        if (!get_uint(p, e, "value", &v, NULL, error))
            return FALSE;
        *ret = (guint)v;
        return TRUE;
    }
    text = g_strdup_printf("%s%s", value, unit ? unit : "KiB");
    if (!vn_size_parse_kib(text, &v, &local))
        return fail(error, p, e, "<bandwidth value='%s' unit='%s'>: %s", value, unit ? unit : "KiB",
                    local->message);
    *ret = (guint)MIN(v / 1024, G_MAXUINT);
    return TRUE;
}

static gboolean
parse_interconnect(CapsParse *p, xmlNode *e, GError **error)
{
    gboolean latency = xmlStrEqual(e->name, BAD_CAST "latency");
    g_autofree gchar *type = get_string(e, "type");
    g_autofree gchar *cache = get_string(e, "cache");
    gint from, to;
    guint value = 0;
    VnAccessKind read = latency ? VN_ACCESS_READ_LATENCY : VN_ACCESS_READ_BANDWIDTH;
    VnAccessKind write = latency ? VN_ACCESS_WRITE_LATENCY : VN_ACCESS_WRITE_BANDWIDTH;
    const VnNodeAccess *a;

    if ((from = interconnect_node(p, e, "initiator", error)) < 0 ||
        (to = interconnect_node(p, e, "target", error)) < 0 ||
        !interconnect_value(p, e, latency, &value, error))
        return FALSE;
    if (cache)
        return TRUE;
    if (g_strcmp0(type, "read") == 0) {
        vn_topology_set_access(p->t, (guint)from, (guint)to, read, value);
    } else if (g_strcmp0(type, "write") == 0) {
        vn_topology_set_access(p->t, (guint)from, (guint)to, write, value);
    } else if (g_strcmp0(type, "access") == 0) {
        /* read and write alike, where not given on their own (in any order) */
        a = vn_topology_access(p->t, (guint)from, (guint)to);
        if (!a || !a->value[read])
            vn_topology_set_access(p->t, (guint)from, (guint)to, read, value);
        a = vn_topology_access(p->t, (guint)from, (guint)to);
        if (!a->value[write])
            vn_topology_set_access(p->t, (guint)from, (guint)to, write, value);
    } else {
        return fail(error, p, e, "<%s type='%s'>: expected access, read or write",
                    (const gchar *)e->name, type ? type : "");
    }
    return TRUE;
}

/* After all cells: the HMAT figures, all or none. */
static void
parse_interconnects(CapsParse *p, xmlNode *root)
{
    g_autoptr(GPtrArray) entries = xpath_nodes(
        p, root, "/capabilities/host/topology/interconnects/*[self::latency or self::bandwidth]");
    g_autoptr(GError) local = NULL;

    for (guint i = 0; i < entries->len; i++)
        if (!parse_interconnect(p, entries->pdata[i], &local)) {
            g_autofree gchar *note =
                g_strdup_printf("warning: HMAT figures ignored: %s", local->message);
            if (p->t->access)
                g_array_set_size(p->t->access, 0);
            vn_topology_add_source_note(p->t, note);
            return;
        }
}

static gboolean
parse_topology(CapsParse *p, xmlDoc *doc, GError **error)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    g_autoptr(GPtrArray) cells = NULL, banks = NULL;

    if (!xmlStrEqual(root->name, BAD_CAST "capabilities"))
        return fail(error, p, root, "not libvirt capabilities (root element is <%s>)",
                    (const gchar *)root->name);
    cells = xpath_nodes(p, root, "/capabilities/host/topology/cells/cell");
    if (cells->len == 0)
        return fail(error, p, root, "no <host><topology><cells><cell> elements");
    for (guint i = 0; i < cells->len; i++)
        if (!parse_cell(p, cells->pdata[i], error))
            return FALSE;
    banks = xpath_nodes(p, root, "/capabilities/host/cache/bank[@level='3']");
    for (guint i = 0; i < banks->len; i++)
        if (!parse_l3_bank(p, banks->pdata[i], error))
            return FALSE;
    if (!parse_distances(p, cells, error))
        return FALSE;
    parse_interconnects(p, root);
    return TRUE;
}

VnTopology *
vn_topology_load_capabilities(const gchar *path, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(xmlDoc) doc = NULL;
    g_autoptr(xmlXPathContext) xpath = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autofree gchar *source = NULL;
    g_auto(CapsParse) p = { 0 };

    g_return_val_if_fail(path != NULL, NULL);
    if (!(doc = vn_xml_file_read(path, &local))) {
        vn_topology_source_propagate_xml(error, local);
        return NULL;
    }
    source = g_strdup_printf("libvirt capabilities %s", path);
    t = vn_topology_new(source);
    xpath = xmlXPathNewContext(doc);
    p = (CapsParse){ .path = path,
                     .xpath = xpath,
                     .t = t,
                     .cores = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL),
                     .packages = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL) };
    if (!parse_topology(&p, doc, error))
        return NULL;
    if (!vn_topology_finish(t, &local)) {
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID,
                            local->message);
        return NULL;
    }
    return g_steal_pointer(&t);
}
