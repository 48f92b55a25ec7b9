/* vn-domain-numatune.c: <numatune>, checked and written.
 *
 * vnuma writes <memory mode=M nodeset=all nodes/> and, with guest cells,
 * one <memnode cellid mode=M nodeset=node/> per cell.  M is the same in
 * both: libvirt refuses restrictive in one and not the other.  Restrictive
 * (the default) lets the nodeset move while the VM runs; strict binds each
 * cell with mbind and cannot move since libvirt 8.0.  An interleaved
 * placement writes mode='interleave' over its nodes alone (libvirt 9.0
 * makes it a memory-backend-ram with policy interleave); a spilled one
 * restrictive over the CPU node and its slow node, no memnode.
 */
#include "vn-domain-private.h"
#include "vn-cpulist.h"

#define NODE_BITS VN_DOMAIN_CPUSET_BITS

static gboolean
nodeset_equals(xmlNode *n, const VnBitmap *want)
{
    g_autofree gchar *s = vn_xml_prop(n, "nodeset");
    g_autoptr(VnBitmap) b = s ? vn_cpulist_parse(s, NODE_BITS, NULL) : NULL;

    return b && vn_bitmap_equal(b, want);
}

static VnBitmap *
recorded_nodes(const VnDomainMetadata *m, gint cell_id)
{
    VnBitmap *b = vn_bitmap_new(NODE_BITS);

    for (guint i = 0; i < m->cells->len; i++) {
        const VnDomainMetaCell *c = &g_array_index(m->cells, VnDomainMetaCell, i);
        if (cell_id < 0 || (guint)cell_id == c->id)
            vn_bitmap_set(b, MIN(c->node_os_id, NODE_BITS - 1));
    }
    return b;
}

static gboolean
memnode_owned(xmlNode *n, const VnDomainMetadata *m)
{
    g_autofree gchar *id = vn_xml_prop(n, "cellid");
    g_autoptr(VnBitmap) want = NULL;
    guint64 v;

    if (!vn_domain_parse_uint(id, 65535, "cellid", &v, NULL))
        return FALSE;
    want = recorded_nodes(m, (gint)v);
    return !vn_bitmap_is_empty(want) && nodeset_equals(n, want);
}

gchar *
vn_domain_numatune_handwritten(xmlNode *root, const VnDomainMetadata *m)
{
    xmlNode *numatune = vn_xml_child(root, "numatune");
    gboolean placed = m && m->has_placement;
    g_autoptr(VnBitmap) all = placed ? recorded_nodes(m, -1) : NULL;

    for (xmlNode *n = numatune ? numatune->children : NULL; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || n->ns)
            continue;
        if (xmlStrEqual(n->name, BAD_CAST "memory") && !(placed && nodeset_equals(n, all)))
            return g_strdup("<numatune><memory>");
        if (xmlStrEqual(n->name, BAD_CAST "memnode") && !(placed && memnode_owned(n, m))) {
            g_autofree gchar *id = vn_xml_prop(n, "cellid");
            return g_strdup_printf("<numatune><memnode cellid='%s'>", id ? id : "");
        }
    }
    return NULL;
}

void
vn_domain_write_numatune(xmlNode *root, const VnDomainWriteCtx *c)
{
    static const gchar *const after[] = { "vcpu", "iothreads", "iothreadids", "cputune", NULL };
    /* interleaved: one policy over all the nodes, no guest cells */
    const gchar *mode =
        c->p->interleave ? "interleave" : vn_memory_mode_to_string(c->o->memory_mode);
    xmlNode *numatune = vn_xml_child(root, "numatune");
    g_autoptr(GArray) nodes = vn_placement_nodes(c->p);
    g_autoptr(VnBitmap) all = vn_bitmap_new(NODE_BITS);
    xmlNode *mem;

    numatune = numatune ? vn_xml_replace_new(numatune) : vn_domain_ensure(root, "numatune", after);
    for (guint i = 0; i < nodes->len; i++)
        vn_bitmap_set(all, c->t->nodes[g_array_index(nodes, guint, i)].os_id);
    mem = vn_xml_add_new(numatune, "memory", NULL);
    xmlSetProp(mem, BAD_CAST "mode", BAD_CAST mode);
    vn_xml_set_bitmap(mem, "nodeset", all);
    for (guint i = 0; c->write_numa && i < c->n_cells; i++) {
        const VnCell *cell = &g_array_index(c->p->cells, VnCell, i);
        xmlNode *mn = vn_xml_add_new(numatune, "memnode", NULL);
        g_autoptr(VnBitmap) one = vn_bitmap_new(NODE_BITS);
        vn_bitmap_set(one, cell->node_os_id);
        vn_xml_set_uint(mn, "cellid", g_array_index(c->cell_ids, guint, i));
        xmlSetProp(mn, BAD_CAST "mode", BAD_CAST mode);
        vn_xml_set_bitmap(mn, "nodeset", one);
    }
}
