/* vn-domain-metadata.c: vnuma's own <metadata> element, parse and format.
 *
 * The format is in vn-domain.h; the qemu hook, the ledger and the writer
 * all read it through this file.  Unknown attributes and children are
 * refused so a typo never reads as "no placement".
 */
#include "vn-domain-private.h"
#include "vn-cpulist.h"
#include "vn-xml-file.h"

#define META_MAX_ID 65535
/* host CPUs: as VN_DOMAIN_CPUSET_BITS */
#define META_MAX_CPUS 65536
/* a cell's vCPUs: below the most vCPUs a VM may have.  Each recorded vCPU
 * is looked up in <cputune> and gets a pin: vcpus='0-65535' took 13 s and
 * 830 MB under ASan (the domain-xml fuzzer). */
#define META_MAX_VCPUS VN_REQUEST_MAX_VCPUS

static void
meta_cell_clear(gpointer p)
{
    VnDomainMetaCell *c = p;
    vn_bitmap_free(c->vcpus);
    vn_bitmap_free(c->cpus);
}

static void
meta_iothread_clear(gpointer p)
{
    VnDomainMetaIOThread *io = p;
    vn_bitmap_free(io->cpus);
}

VnDomainMetadata *
vn_domain_metadata_new(void)
{
    VnDomainMetadata *m = g_new0(VnDomainMetadata, 1);

    m->cells = g_array_new(FALSE, TRUE, sizeof(VnDomainMetaCell));
    g_array_set_clear_func(m->cells, meta_cell_clear);
    m->iothreads = g_array_new(FALSE, TRUE, sizeof(VnDomainMetaIOThread));
    g_array_set_clear_func(m->iothreads, meta_iothread_clear);
    m->threads_per_core = 1;
    return m;
}

void
vn_domain_metadata_free(VnDomainMetadata *m)
{
    if (!m)
        return;
    g_free(m->version);
    g_free(m->time);
    g_array_unref(m->cells);
    vn_bitmap_free(m->emulator_cpus);
    g_array_unref(m->iothreads);
    g_free(m);
}

/* ---- parsing ------------------------------------------------------------ */

typedef struct {
    const xmlNode *node;
    const gchar *source;
} Where;

static gboolean fail(const Where *w, GError **error, const gchar *fmt, ...) G_GNUC_PRINTF(3, 4);

static gboolean
fail(const Where *w, GError **error, const gchar *fmt, ...)
{
    g_autofree gchar *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID, "%s:%ld: vnuma metadata <%s>: %s",
                w->source, xmlGetLineNo(w->node), w->node->name, msg);
    return FALSE;
}

static gboolean
check_attrs(const Where *w, const gchar *const *allowed, GError **error)
{
    for (xmlAttr *a = w->node->properties; a; a = a->next)
        if (!g_strv_contains(allowed, (const gchar *)a->name))
            return fail(w, error, "unknown attribute '%s'", a->name);
    return TRUE;
}

static gboolean
get_uint(const Where *w, const gchar *name, guint64 max, gboolean required, guint64 *ret,
         GError **error)
{
    g_autofree gchar *v = vn_xml_prop(w->node, name);
    g_autoptr(GError) local = NULL;

    if (!v)
        return required ? fail(w, error, "missing attribute '%s'", name) : TRUE;
    if (!vn_domain_parse_uint(v, max, name, ret, &local))
        return fail(w, error, "%s", local->message);
    return TRUE;
}

static gboolean
get_bool(const Where *w, const gchar *name, gboolean *ret_set, gboolean *ret, GError **error)
{
    g_autofree gchar *v = vn_xml_prop(w->node, name);

    if (ret_set)
        *ret_set = v != NULL;
    if (!v)
        return TRUE;
    if (g_strcmp0(v, "yes") != 0 && g_strcmp0(v, "no") != 0)
        return fail(w, error, "%s='%s' is neither 'yes' nor 'no'", name, v);
    *ret = g_strcmp0(v, "yes") == 0;
    return TRUE;
}

static gboolean
get_cpus(const Where *w, const gchar *name, guint n_bits, VnBitmap **ret, GError **error)
{
    g_autofree gchar *v = vn_xml_prop(w->node, name);
    g_autoptr(GError) local = NULL;

    if (!v)
        return fail(w, error, "missing attribute '%s'", name);
    *ret = vn_cpulist_parse(v, n_bits, &local);
    if (!*ret)
        return fail(w, error, "%s: %s", name, local->message);
    return TRUE;
}

static gboolean
parse_cell(VnDomainMetadata *m, const Where *w, GError **error)
{
    static const gchar *const attrs[] = { "id", "node", "vcpus", "cpus", "memory-kib", NULL };
    VnDomainMetaCell c = { 0 };
    guint64 id, node;

    if (!check_attrs(w, attrs, error) || !get_uint(w, "id", META_MAX_ID, TRUE, &id, error) ||
        !get_uint(w, "node", META_MAX_ID, TRUE, &node, error) ||
        !get_uint(w, "memory-kib", G_MAXUINT64, TRUE, &c.memory_kib, error))
        return FALSE;
    c.id = (guint)id;
    c.node_os_id = (guint)node;
    if (!get_cpus(w, "vcpus", META_MAX_VCPUS, &c.vcpus, error))
        return FALSE;
    if (!get_cpus(w, "cpus", META_MAX_CPUS, &c.cpus, error)) {
        vn_bitmap_free(c.vcpus);
        return FALSE;
    }
    g_array_append_val(m->cells, c);
    return TRUE;
}

static gboolean
parse_iothread(VnDomainMetadata *m, const Where *w, GError **error)
{
    static const gchar *const attrs[] = { "id", "cpus", NULL };
    VnDomainMetaIOThread io = { 0 };
    guint64 id;

    if (!check_attrs(w, attrs, error) || !get_uint(w, "id", META_MAX_ID, TRUE, &id, error) ||
        !get_cpus(w, "cpus", META_MAX_CPUS, &io.cpus, error))
        return FALSE;
    io.id = (guint)id;
    g_array_append_val(m->iothreads, io);
    return TRUE;
}

static gboolean
parse_placement_attrs(VnDomainMetadata *m, const Where *w, GError **error)
{
    static const gchar *const attrs[] = { "version",   "time",         "memory-mode",
                                          "dedicated", "hugepage-kib", "threads-per-core",
                                          "tiers",     "interleave",   NULL };
    g_autofree gchar *mode = vn_xml_prop(w->node, "memory-mode");
    g_autofree gchar *tiers = vn_xml_prop(w->node, "tiers");
    guint64 tpc = 1;
    gint m_mode;

    if (!check_attrs(w, attrs, error) || !get_bool(w, "dedicated", NULL, &m->dedicated, error) ||
        !get_uint(w, "hugepage-kib", G_MAXUINT64, FALSE, &m->hugepage_kib, error) ||
        !get_uint(w, "threads-per-core", 64, FALSE, &tpc, error) ||
        !get_bool(w, "interleave", NULL, &m->interleave, error))
        return FALSE;
    if (tiers && !vn_tiers_from_string(tiers, &m->tiers))
        return fail(w, error, "unknown tiers '%s' (off, spill, guest)", tiers);
    m_mode = mode ? vn_memory_mode_from_string(mode) : VN_MEMORY_MODE_RESTRICTIVE;
    if (m_mode < 0 || m_mode == VN_MEMORY_MODE_AUTO)
        return fail(w, error,
                    "unknown memory-mode '%s' (a recorded placement says restrictive or strict)",
                    mode);
    m->memory_mode = (VnMemoryMode)m_mode;
    m->threads_per_core = MAX(1, (guint)tpc);
    m->version = vn_xml_prop(w->node, "version");
    m->time = vn_xml_prop(w->node, "time");
    return TRUE;
}

static gboolean
parse_placement(VnDomainMetadata *m, xmlNode *node, const gchar *source, GError **error)
{
    Where w = { node, source };

    if (!parse_placement_attrs(m, &w, error))
        return FALSE;
    m->has_placement = TRUE;
    for (xmlNode *n = node->children; n; n = n->next) {
        Where cw = { n, source };
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (!n->ns || !xmlStrEqual(n->ns->href, BAD_CAST VN_DOMAIN_XMLNS))
            return fail(&cw, error, "element outside the vnuma namespace");
        if (xmlStrEqual(n->name, BAD_CAST "cell")) {
            if (!parse_cell(m, &cw, error))
                return FALSE;
        } else if (xmlStrEqual(n->name, BAD_CAST "iothread")) {
            if (!parse_iothread(m, &cw, error))
                return FALSE;
        } else if (xmlStrEqual(n->name, BAD_CAST "emulator") && !m->emulator_cpus) {
            static const gchar *const attrs[] = { "cpus", NULL };
            if (!check_attrs(&cw, attrs, error) ||
                !get_cpus(&cw, "cpus", META_MAX_CPUS, &m->emulator_cpus, error))
                return FALSE;
        } else {
            return fail(&cw, error, "unexpected element");
        }
    }
    if (m->cells->len == 0)
        return fail(&w, error, "a placement without cells");
    return TRUE;
}

static gboolean
parse_hints(VnDomainMetadata *m, const Where *w, GError **error)
{
    static const gchar *const attrs[] = { "manage", "dedicated", "smt", "priority",
                                          "tiers",  "memory",    NULL };
    g_autofree gchar *smt = vn_xml_prop(w->node, "smt");
    g_autofree gchar *tiers = vn_xml_prop(w->node, "tiers");
    g_autofree gchar *memory = vn_xml_prop(w->node, "memory");
    g_autofree gchar *prio = vn_xml_prop(w->node, "priority");
    gboolean manage_set;

    if (!check_attrs(w, attrs, error) || !get_bool(w, "manage", &manage_set, &m->manage, error) ||
        !get_bool(w, "dedicated", &m->hint_dedicated_set, &m->hint_dedicated, error))
        return FALSE;
    m->hint_smt_set = smt != NULL;
    if (smt && !vn_smt_policy_from_string(smt, &m->hint_smt))
        return fail(w, error, "unknown smt '%s' (prefer, isolate, require)", smt);
    m->hint_priority_set = prio != NULL;
    if (prio && !vn_priority_from_string(prio, &m->hint_priority))
        return fail(w, error, "unknown priority '%s' (low, normal, high)", prio);
    m->hint_tiers_set = tiers != NULL;
    if (tiers && !vn_tiers_from_string(tiers, &m->hint_tiers))
        return fail(w, error, "unknown tiers '%s' (off, spill, guest)", tiers);
    if (memory && g_strcmp0(memory, "interleave") != 0)
        return fail(w, error, "unknown memory '%s' (interleave, the only wish there is)", memory);
    m->hint_interleave = memory != NULL;
    return TRUE;
}

VnDomainMetadata *
vn_domain_metadata_parse(xmlNode *node, const gchar *source, GError **error)
{
    g_autoptr(VnDomainMetadata) m = vn_domain_metadata_new();
    Where w = { node, source };
    gboolean seen = FALSE;

    if (!parse_hints(m, &w, error))
        return NULL;
    for (xmlNode *n = node->children; n; n = n->next) {
        Where cw = { n, source };
        if (n->type != XML_ELEMENT_NODE)
            continue;
        if (seen || !n->ns || !xmlStrEqual(n->ns->href, BAD_CAST VN_DOMAIN_XMLNS) ||
            !xmlStrEqual(n->name, BAD_CAST "placement")) {
            fail(&cw, error, "unexpected element (only one <vnuma:placement> may follow)");
            return NULL;
        }
        seen = TRUE;
        if (!parse_placement(m, n, source, error))
            return NULL;
    }
    return g_steal_pointer(&m);
}

xmlNode *
vn_domain_metadata_element(xmlNode *root)
{
    return vn_xml_child_ns(vn_xml_child(root, "metadata"), VN_DOMAIN_XMLNS, "vnuma");
}

gboolean
vn_domain_parse_metadata(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *el = vn_domain_metadata_element(root);

    if (!el)
        return TRUE;
    d->meta = vn_domain_metadata_parse(el, d->source, error);
    return d->meta != NULL;
}

/* ---- formatting --------------------------------------------------------- */

static void
set_str(xmlNode *n, const gchar *name, const gchar *value)
{
    if (value)
        xmlSetProp(n, BAD_CAST name, BAD_CAST value);
}

static xmlNode *
add_el(xmlNode *parent, xmlNs *ns, const gchar *name)
{
    xmlNode *n = xmlNewDocNode(parent->doc, ns, BAD_CAST name, NULL);

    return vn_xml_add(parent, n, NULL);
}

static void
format_placement(const VnDomainMetadata *m, xmlNode *parent, xmlNs *ns)
{
    xmlNode *pl = add_el(parent, ns, "placement");

    set_str(pl, "version", m->version);
    set_str(pl, "time", m->time);
    set_str(pl, "memory-mode", vn_memory_mode_to_string(m->memory_mode));
    set_str(pl, "dedicated", m->dedicated ? "yes" : "no");
    vn_xml_set_uint(pl, "hugepage-kib", m->hugepage_kib);
    vn_xml_set_uint(pl, "threads-per-core", m->threads_per_core);
    if (m->tiers != VN_TIERS_OFF)
        set_str(pl, "tiers", vn_tiers_to_string(m->tiers));
    if (m->interleave)
        set_str(pl, "interleave", "yes");
    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *c = &g_array_index(m->cells, VnDomainMetaCell, i);
        xmlNode *n = add_el(pl, ns, "cell");
        vn_xml_set_uint(n, "id", c->id);
        vn_xml_set_uint(n, "node", c->node_os_id);
        vn_xml_set_bitmap(n, "vcpus", c->vcpus);
        vn_xml_set_bitmap(n, "cpus", c->cpus);
        vn_xml_set_uint(n, "memory-kib", c->memory_kib);
    }
    if (m->emulator_cpus)
        vn_xml_set_bitmap(add_el(pl, ns, "emulator"), "cpus", m->emulator_cpus);
    for (guint i = 0; i < m->iothreads->len; i++) {
        const VnDomainMetaIOThread *io = &g_array_index(m->iothreads, VnDomainMetaIOThread, i);
        xmlNode *n = add_el(pl, ns, "iothread");
        vn_xml_set_uint(n, "id", io->id);
        vn_xml_set_bitmap(n, "cpus", io->cpus);
    }
}

static xmlNode *
new_vnuma_element(const VnDomainMetadata *m, xmlDoc *doc)
{
    xmlNode *el = xmlNewDocNode(doc, NULL, BAD_CAST "vnuma", NULL);

    xmlSetNs(el, xmlNewNs(el, BAD_CAST VN_DOMAIN_XMLNS, BAD_CAST VN_DOMAIN_XMLNS_PREFIX));
    set_str(el, "manage", m->manage ? "yes" : "no");
    if (m->hint_dedicated_set)
        set_str(el, "dedicated", m->hint_dedicated ? "yes" : "no");
    if (m->hint_smt_set)
        set_str(el, "smt", vn_smt_policy_to_string(m->hint_smt));
    if (m->hint_priority_set)
        set_str(el, "priority", vn_priority_to_string(m->hint_priority));
    if (m->hint_tiers_set)
        set_str(el, "tiers", vn_tiers_to_string(m->hint_tiers));
    if (m->hint_interleave)
        set_str(el, "memory", "interleave");
    return el;
}

xmlNode *
vn_domain_metadata_format_into(const VnDomainMetadata *m, xmlNode *parent, xmlNode *after)
{
    xmlNode *el = vn_xml_add(parent, new_vnuma_element(m, parent->doc), after);

    if (m->has_placement)
        format_placement(m, el, el->nsDef);
    return el;
}

/* Built inside a scratch document at the right depth, so the indentation
 * helpers see where it will live, then moved to `doc`. */
xmlNode *
vn_domain_metadata_format(const VnDomainMetadata *m, xmlDoc *doc, guint depth, guint indent)
{
    g_autoptr(xmlDoc) scratch = xmlNewDoc(BAD_CAST "1.0");
    xmlNode *holder = xmlNewDocNode(scratch, NULL, BAD_CAST "s", NULL);
    xmlNode *el;

    xmlDocSetRootElement(scratch, holder);
    if (indent) {
        g_autofree gchar *pad = g_strnfill(indent, ' ');
        g_autofree gchar *t = g_strconcat("\n", pad, NULL);
        xmlAddChild(holder, xmlNewDocText(scratch, BAD_CAST t));
    }
    for (guint i = 1; i < depth; i++)
        holder = xmlNewChild(holder, NULL, BAD_CAST "s", NULL);
    el = vn_domain_metadata_format_into(m, holder, NULL);
    xmlUnlinkNode(el);
    xmlSetTreeDoc(el, doc);
    return el;
}

static gboolean
bitmap_eq(const VnBitmap *a, const VnBitmap *b)
{
    if (!a || !b)
        return a == b;
    return vn_bitmap_equal(a, b);
}

gboolean
vn_domain_metadata_equal_placement(const VnDomainMetadata *a, const VnDomainMetadata *b)
{
    if (!a || !b || a->has_placement != b->has_placement)
        return FALSE;
    if (a->memory_mode != b->memory_mode || a->dedicated != b->dedicated ||
        a->hugepage_kib != b->hugepage_kib || a->threads_per_core != b->threads_per_core ||
        a->tiers != b->tiers || a->interleave != b->interleave || a->cells->len != b->cells->len ||
        a->iothreads->len != b->iothreads->len || !bitmap_eq(a->emulator_cpus, b->emulator_cpus) ||
        g_strcmp0(a->version, b->version))
        return FALSE;
    for (guint i = 0; i < a->cells->len; i++) {
        const VnDomainMetaCell *x = &g_array_index(a->cells, VnDomainMetaCell, i);
        const VnDomainMetaCell *y = &g_array_index(b->cells, VnDomainMetaCell, i);
        if (x->id != y->id || x->node_os_id != y->node_os_id || x->memory_kib != y->memory_kib ||
            !bitmap_eq(x->vcpus, y->vcpus) || !bitmap_eq(x->cpus, y->cpus))
            return FALSE;
    }
    for (guint i = 0; i < a->iothreads->len; i++) {
        const VnDomainMetaIOThread *x = &g_array_index(a->iothreads, VnDomainMetaIOThread, i);
        const VnDomainMetaIOThread *y = &g_array_index(b->iothreads, VnDomainMetaIOThread, i);
        if (x->id != y->id || !bitmap_eq(x->cpus, y->cpus))
            return FALSE;
    }
    return TRUE;
}
