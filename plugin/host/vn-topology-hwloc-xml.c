/* vn-topology-hwloc-xml.c: VnTopology from an hwloc XML export.
 *
 * The file is parsed with libxml2 first (safe options, size limit, errors
 * with line numbers) and handed to hwloc as a buffer.  Why not let hwloc
 * read the file: hwloc 2.x refuses the hwloc 3.0 format ("cannot import XML
 * version 3.0 > 2") that most current exports and hwloc's own test files
 * use.  The object tree of 3.0 is the 2.0 one; the difference that matters
 * is that 3.0 puts <info> elements after the root object, which 2.x ignores
 * with a warning.  So a 3.0 document is rewritten to version 2.0 without
 * those <info> elements, and its source says so.
 */
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-xml-file.h"

#include <errno.h>
#include <libxml/tree.h>

static gboolean
is_element(xmlNode *n, const gchar *name)
{
    return n->type == XML_ELEMENT_NODE && xmlStrEqual(n->name, BAD_CAST name);
}

/* Removes the <info> children of <topology> (the root object's own infos
 * are inside its <object> and stay). */
static void
drop_toplevel_infos(xmlNode *root)
{
    xmlNode *next;

    for (xmlNode *n = root->children; n; n = next) {
        next = n->next;
        if (is_element(n, "info")) {
            xmlUnlinkNode(n);
            xmlFreeNode(n);
        }
    }
}

/* Checks the root and downgrades 3.x to 2.0.  Sets *ret_downgraded. */
static gboolean
prepare_document(xmlDoc *doc, const gchar *path, gboolean *ret_downgraded, GError **error)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    g_autofree gchar *version = NULL;
    xmlChar *v;

    if (!is_element(root, "topology")) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID,
                    "%s: not an hwloc topology (root element is <%s>, expected <topology>)", path,
                    (const gchar *)root->name);
        return FALSE;
    }
    v = xmlGetProp(root, BAD_CAST "version");
    version = g_strdup((const gchar *)v);
    xmlFree(v);
    if (version && g_str_has_prefix(version, "3.")) {
        xmlSetProp(root, BAD_CAST "version", BAD_CAST "2.0");
        drop_toplevel_infos(root);
        *ret_downgraded = TRUE;
        return TRUE;
    }
    *ret_downgraded = FALSE;
    return TRUE;
}

static gboolean
hwloc_load_doc(hwloc_topology_t topo, xmlDoc *doc, const gchar *path, GError **error)
{
    xmlChar *buf = NULL;
    int len = 0;
    int rc;

    xmlDocDumpMemory(doc, &buf, &len);
    if (!buf)
        g_error("out of memory serialising %s", path);
    /* hwloc wants the length including the final NUL, as its own
     * hwloc_topology_export_xmlbuffer() returns it; libxml2 puts one there. */
    rc = hwloc_topology_set_xmlbuffer(topo, (const char *)buf, len + 1);
    if (rc == 0)
        rc = hwloc_topology_load(topo);
    xmlFree(buf);
    if (rc < 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc cannot import this topology (%s; HWLOC_XML_VERBOSE=1 shows why)",
                    path, g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

VnTopology *
vn_topology_load_hwloc_xml(const gchar *path, GError **error)
{
    g_autoptr(xmlDoc) doc = NULL;
    g_autoptr(VnHwlocTopology) topo = NULL;
    g_autoptr(GError) local = NULL;
    g_autofree gchar *source = NULL;
    gboolean downgraded;

    g_return_val_if_fail(path != NULL, NULL);
    doc = vn_xml_file_read(path, &local);
    if (!doc) {
        vn_topology_source_propagate_xml(error, local);
        return NULL;
    }
    if (!prepare_document(doc, path, &downgraded, error))
        return NULL;
    topo = vn_hwloc_topology_new();
    if (!hwloc_load_doc(topo, doc, path, error))
        return NULL;
    source =
        g_strdup_printf("hwloc XML %s%s", path, downgraded ? " (hwloc 3.0 XML read as 2.0)" : "");
    return vn_topology_from_hwloc(topo, source, error);
}
