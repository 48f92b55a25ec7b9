/* vn-domain-hugepages.c: <memoryBacking><hugepages>, read and written.
 *
 * Read: whether the VM wants hugepages and of which size (a bare
 * <hugepages/> means the host default, reported as 0).  Pages of several
 * sizes in one domain are valid libvirt, so they load; the request refuses
 * them (vnuma places one page size per VM).
 * Written: one <page size unit='KiB' nodeset=all guest cells/> (no nodeset
 * without guest cells); the other children of <memoryBacking> stay.
 */
#include "vn-domain-private.h"

gboolean
vn_domain_parse_hugepages(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *hp = vn_xml_child(vn_xml_child(root, "memoryBacking"), "hugepages");
    g_autoptr(GPtrArray) pages = vn_xml_children(hp, "page");

    d->hugepages = hp != NULL;
    for (guint i = 0; i < pages->len; i++) {
        xmlNode *page = pages->pdata[i];
        g_autofree gchar *size = vn_xml_prop(page, "size");
        g_autofree gchar *unit = vn_xml_prop(page, "unit");
        g_autofree gchar *what =
            g_strdup_printf("%s:%ld: <hugepages><page size>", d->source, xmlGetLineNo(page));
        guint64 kib;

        if (!vn_domain_parse_scaled_kib(size, unit, "KiB", what, &kib, error))
            return FALSE;
        if (kib == 0) {
            g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID, "%s: a page size of 0",
                        what);
            return FALSE;
        }
        if (d->hugepage_kib && d->hugepage_kib != kib)
            d->hugepage_sizes_mixed = TRUE;
        d->hugepage_kib = d->hugepage_kib ? MIN(d->hugepage_kib, kib) : kib;
    }
    return TRUE;
}

void
vn_domain_write_hugepages(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c)
{
    static const gchar *const after[] = { "memory",    "maxMemory", "currentMemory",
                                          "blkiotune", "memtune",   NULL };
    gboolean owned = d->meta && d->meta->has_placement && d->meta->hugepage_kib > 0;
    xmlNode *mb = vn_xml_child(root, "memoryBacking");
    xmlNode *hp = vn_xml_child(mb, "hugepages");
    xmlNode *page;

    if (c->p->hugepage_kib == 0) {
        if (hp && owned) {
            vn_xml_remove(hp);
            vn_xml_remove_if_empty(mb);
        }
        return;
    }
    if (!mb)
        mb = vn_domain_ensure(root, "memoryBacking", after);
    hp = hp ? vn_xml_replace_new(hp) : vn_xml_add_new(mb, "hugepages", NULL);
    page = vn_xml_add_new(hp, "page", NULL);
    vn_xml_set_uint(page, "size", c->p->hugepage_kib);
    xmlSetProp(page, BAD_CAST "unit", BAD_CAST "KiB");
    if (c->write_numa) {
        g_autoptr(VnBitmap) ids = vn_bitmap_new(65536);
        for (guint i = 0; i < c->n_cells; i++)
            vn_bitmap_set(ids, g_array_index(c->cell_ids, guint, i));
        vn_xml_set_bitmap(page, "nodeset", ids);
    }
}
