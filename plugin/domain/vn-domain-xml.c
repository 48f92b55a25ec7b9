/* vn-domain-xml.c: small libxml2 tree helpers that keep the layout. */
#include "vn-domain-private.h"
#include "vn-cpulist.h"

static gboolean
is_element(const xmlNode *n, const gchar *name)
{
    return n->type == XML_ELEMENT_NODE && xmlStrEqual(n->name, BAD_CAST name);
}

xmlNode *
vn_xml_child(const xmlNode *parent, const gchar *name)
{
    for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
        if (is_element(n, name) && !n->ns)
            return n;
    return NULL;
}

xmlNode *
vn_xml_child_ns(const xmlNode *parent, const gchar *href, const gchar *name)
{
    for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
        if (is_element(n, name) && n->ns && xmlStrEqual(n->ns->href, BAD_CAST href))
            return n;
    return NULL;
}

GPtrArray *
vn_xml_children(const xmlNode *parent, const gchar *name)
{
    GPtrArray *a = g_ptr_array_new();

    for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
        if (is_element(n, name) && !n->ns)
            g_ptr_array_add(a, n);
    return a;
}

gchar *
vn_xml_prop(const xmlNode *node, const gchar *name)
{
    xmlChar *v = xmlGetNoNsProp(node, BAD_CAST name);
    gchar *ret = v ? g_strdup((const gchar *)v) : NULL;

    xmlFree(v);
    return ret;
}

gchar *
vn_xml_text(const xmlNode *node)
{
    xmlChar *v = xmlNodeGetContent(node);
    gchar *ret = g_strstrip(g_strdup(v ? (const gchar *)v : ""));

    xmlFree(v);
    return ret;
}

static gboolean
is_blank_text(const xmlNode *n)
{
    return n && n->type == XML_TEXT_NODE && xmlIsBlankNode((xmlNode *)n);
}

guint
vn_xml_indent_unit(const xmlDoc *doc)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    const gchar *nl;

    if (!root || !is_blank_text(root->children))
        return 0;
    nl = strrchr((const gchar *)root->children->content, '\n');
    if (!nl)
        return 0;
    return MAX(1, (guint)strlen(nl + 1));
}

guint
vn_xml_depth(const xmlNode *node)
{
    guint depth = 0;

    for (const xmlNode *n = node->parent; n && n->type == XML_ELEMENT_NODE; n = n->parent)
        depth++;
    return depth;
}

static xmlNode *
indent_text(xmlDoc *doc, guint unit, guint depth)
{
    g_autofree gchar *s = g_strnfill(unit * depth, ' ');
    g_autofree gchar *t = g_strconcat("\n", s, NULL);

    return xmlNewDocText(doc, BAD_CAST t);
}

static xmlNode *
last_element(const xmlNode *parent)
{
    xmlNode *last = NULL;

    for (xmlNode *n = parent->children; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE)
            last = n;
    return last;
}

/* An element without element children gets its whitespace rebuilt:
 * "\n" + indent before the child and "\n" + the parent's indent before
 * the closing tag. */
static void
add_first(xmlNode *parent, xmlNode *child, guint unit, guint depth)
{
    xmlNode *n = parent->children;

    while (n) {
        xmlNode *next = n->next;
        if (is_blank_text(n)) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
        n = next;
    }
    if (unit)
        xmlAddChild(parent, indent_text(parent->doc, unit, depth + 1));
    xmlAddChild(parent, child);
    if (unit)
        xmlAddChild(parent, indent_text(parent->doc, unit, depth));
}

xmlNode *
vn_xml_add(xmlNode *parent, xmlNode *child, xmlNode *after)
{
    guint unit = vn_xml_indent_unit(parent->doc);
    guint depth = vn_xml_depth(parent);

    if (!after)
        after = last_element(parent);
    if (!after) {
        add_first(parent, child, unit, depth);
        return child;
    }
    xmlAddNextSibling(after, child);
    if (unit)
        xmlAddPrevSibling(child, indent_text(parent->doc, unit, depth + 1));
    return child;
}

xmlNode *
vn_xml_add_start(xmlNode *parent, xmlNode *child)
{
    xmlNode *first = parent->children;
    guint unit = vn_xml_indent_unit(parent->doc);

    while (first && first->type != XML_ELEMENT_NODE)
        first = first->next;
    if (!first)
        return vn_xml_add(parent, child, NULL);
    xmlAddPrevSibling(first, child);
    if (unit)
        xmlAddPrevSibling(first, indent_text(parent->doc, unit, vn_xml_depth(parent) + 1));
    return child;
}

xmlNode *
vn_xml_add_new(xmlNode *parent, const gchar *name, xmlNode *after)
{
    return vn_xml_add(parent, xmlNewDocNode(parent->doc, NULL, BAD_CAST name, NULL), after);
}

xmlNode *
vn_xml_replace_new(xmlNode *old)
{
    xmlNode *n = xmlNewDocNode(old->doc, NULL, old->name, NULL);

    xmlReplaceNode(old, n);
    xmlFreeNode(old);
    return n;
}

void
vn_xml_remove(xmlNode *node)
{
    xmlNode *prev = node->prev;

    if (is_blank_text(prev)) {
        xmlUnlinkNode(prev);
        xmlFreeNode(prev);
    }
    xmlUnlinkNode(node);
    xmlFreeNode(node);
}

void
vn_xml_remove_if_empty(xmlNode *node)
{
    if (node && !node->properties && !last_element(node))
        vn_xml_remove(node);
}

void
vn_xml_set_uint(xmlNode *node, const gchar *name, guint64 value)
{
    g_autofree gchar *s = g_strdup_printf("%" G_GUINT64_FORMAT, value);

    xmlSetProp(node, BAD_CAST name, BAD_CAST s);
}

void
vn_xml_set_bitmap(xmlNode *node, const gchar *name, const VnBitmap *b)
{
    g_autofree gchar *s = vn_cpulist_format(b);

    xmlSetProp(node, BAD_CAST name, BAD_CAST s);
}

xmlNode *
vn_domain_anchor(xmlNode *root, const gchar *const *names)
{
    xmlNode *best = NULL;

    for (xmlNode *n = root->children; n; n = n->next)
        for (guint i = 0; names && names[i]; i++)
            if (is_element(n, names[i]) && !n->ns)
                best = n;
    return best;
}

xmlNode *
vn_domain_ensure(xmlNode *root, const gchar *name, const gchar *const *after)
{
    xmlNode *n = vn_xml_child(root, name);

    if (n)
        return n;
    return vn_xml_add_new(root, name, vn_domain_anchor(root, after));
}
