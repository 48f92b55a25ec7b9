/* vn-domain.c: load a domain XML safely and read its basic facts.
 *
 * Parsing goes through vn-xml-file (no network, no DTD loading, no entity
 * substitution, libxml2 silent).  On top of that a domain must be at most
 * 16 MiB, checked before anything is read, and a DOCTYPE declaring
 * entities is refused outright: libvirt never writes one, and an
 * unexpanded entity reference would otherwise pass through to libvirt.
 */
#include "vn-domain-private.h"
#include "vn-cpulist.h"
#include "vn-xml-file.h"

#include <errno.h>
#include <glib/gstdio.h>
#include <libxml/entities.h>

G_DEFINE_QUARK(vn-domain-error-quark, vn_domain_error);

void
vn_domain_cell_clear(gpointer p)
{
    VnDomainCell *c = p;
    vn_bitmap_free(c->vcpus);
}

void
vn_domain_device_free(gpointer p)
{
    VnDomainDevice *dev = p;

    if (!dev)
        return;
    g_free(dev->name);
    g_free(dev->pci_address);
    g_free(dev->netdev);
    g_free(dev->bridge);
    g_free(dev->blockdev);
    g_free(dev);
}

void
vn_domain_free(VnDomain *d)
{
    if (!d)
        return;
    g_free(d->source);
    if (d->doc)
        xmlFreeDoc(d->doc);
    g_free(d->name);
    g_free(d->uuid);
    vn_bitmap_free(d->allowed_cpus);
    g_clear_pointer(&d->iothread_ids, g_array_unref);
    g_clear_pointer(&d->cells, g_array_unref);
    g_clear_pointer(&d->devices, g_ptr_array_unref);
    vn_domain_metadata_free(d->meta);
    g_free(d);
}

static gboolean
check_doctype(const xmlDoc *doc, const gchar *source, GError **error)
{
    const xmlDtd *dtds[] = { doc->intSubset, doc->extSubset };

    for (guint i = 0; i < G_N_ELEMENTS(dtds); i++) {
        if (dtds[i] && (dtds[i]->entities || dtds[i]->pentities)) {
            g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_UNSAFE,
                        "%s: the DOCTYPE declares entities; refusing to read it "
                        "(libvirt domain XML has no DOCTYPE)",
                        source);
            return FALSE;
        }
    }
    return TRUE;
}

static gboolean
parse_vcpus(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *vcpu = vn_xml_child(root, "vcpu");
    g_autofree gchar *text = NULL;
    g_autofree gchar *current = NULL;
    g_autofree gchar *cpuset = NULL;
    guint64 max, cur;

    if (!vcpu) {
        /* as libvirt: no <vcpu> means one vCPU */
        d->vcpus_max = d->vcpus_current = 1;
        return TRUE;
    }
    text = vn_xml_text(vcpu);
    current = vn_xml_prop(vcpu, "current");
    cpuset = vn_xml_prop(vcpu, "cpuset");
    if (!vn_domain_parse_uint(text, G_MAXUINT32, "<vcpu>", &max, error))
        return FALSE;
    /* the request schema's limit (vn-request.h): no QEMU runs more */
    if (max > VN_REQUEST_MAX_VCPUS) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "<vcpu>: must be from 1 to %d, the most vCPUs a VM may have (domain '%s' "
                    "has %" G_GUINT64_FORMAT ")",
                    VN_REQUEST_MAX_VCPUS, d->name, max);
        return FALSE;
    }
    if (current && !vn_domain_parse_uint(current, max, "<vcpu current>", &cur, error))
        return FALSE;
    if (max == 0 || (current && cur == 0)) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "<vcpu>: domain '%s' has 0 vCPUs", d->name);
        return FALSE;
    }
    d->vcpus_max = (guint)max;
    d->vcpus_current = current ? (guint)cur : (guint)max;
    /* libvirt's own syntax allows '^' exclusions, which the CPU list reader
     * does not: such a set stays another manager's (vn_domain_foreign_pins) */
    if (cpuset)
        d->allowed_cpus = vn_cpulist_parse(cpuset, VN_DOMAIN_CPUSET_BITS, NULL);
    if (d->allowed_cpus && vn_bitmap_is_empty(d->allowed_cpus))
        g_clear_pointer(&d->allowed_cpus, vn_bitmap_free);
    return TRUE;
}

static gboolean
parse_memory_element(xmlNode *root, const gchar *name, guint64 *ret_kib, gboolean *ret_found,
                     GError **error)
{
    xmlNode *n = vn_xml_child(root, name);
    g_autofree gchar *text = NULL;
    g_autofree gchar *unit = NULL;
    g_autofree gchar *what = g_strdup_printf("<%s>", name);

    *ret_found = n != NULL;
    if (!n)
        return TRUE;
    text = vn_xml_text(n);
    unit = vn_xml_prop(n, "unit");
    return vn_domain_parse_scaled_kib(text, unit, "KiB", what, ret_kib, error);
}

static gboolean
parse_memory(VnDomain *d, xmlNode *root, GError **error)
{
    gboolean has_mem, has_cur;
    guint64 mem = 0, cur = 0, cells = 0;

    if (!parse_memory_element(root, "memory", &mem, &has_mem, error) ||
        !parse_memory_element(root, "currentMemory", &cur, &has_cur, error)) {
        g_prefix_error(error, "%s: ", d->source);
        return FALSE;
    }
    for (guint i = 0; i < d->cells->len; i++)
        cells += g_array_index(d->cells, VnDomainCell, i).memory_kib;
    /* With guest NUMA cells libvirt takes the total from the cells. */
    if (d->cells->len > 0)
        mem = cells;
    if (mem == 0) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: domain '%s' has no memory (<memory> missing or 0)", d->source, d->name);
        return FALSE;
    }
    d->memory_kib = mem;
    d->current_memory_kib = has_cur && cur > 0 ? MIN(cur, mem) : mem;
    return TRUE;
}

static gboolean
parse_root(VnDomain *d, GError **error)
{
    xmlNode *root = xmlDocGetRootElement(d->doc);
    xmlNode *name;

    if (!xmlStrEqual(root->name, BAD_CAST "domain") || root->ns) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: root element is <%s>, not <domain>", d->source, root->name);
        return FALSE;
    }
    name = vn_xml_child(root, "name");
    d->name = name ? vn_xml_text(name) : NULL;
    if (!d->name || !*d->name) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID, "%s: domain has no <name>",
                    d->source);
        return FALSE;
    }
    /* libvirt refuses it at define too; and every message naming the
     * domain is one line */
    if (strchr(d->name, '\n')) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID, "%s: <name> holds a newline",
                    d->source);
        return FALSE;
    }
    if (vn_xml_child(root, "uuid"))
        d->uuid = vn_xml_text(vn_xml_child(root, "uuid"));
    return parse_vcpus(d, root, error) && vn_domain_parse_cpu_numa(d, root, error) &&
           parse_memory(d, root, error) && vn_domain_parse_hugepages(d, root, error) &&
           vn_domain_parse_devices(d, root, error) && vn_domain_parse_metadata(d, root, error);
}

static VnDomain *
domain_from_doc(xmlDoc *doc, const gchar *source, gboolean had_declaration, GError **error)
{
    g_autoptr(VnDomain) d = g_new0(VnDomain, 1);
    g_autoptr(GError) local = NULL;

    d->source = g_strdup(source);
    d->doc = doc;
    d->had_declaration = had_declaration;
    d->iothread_ids = g_array_new(FALSE, FALSE, sizeof(guint));
    d->cells = g_array_new(FALSE, TRUE, sizeof(VnDomainCell));
    g_array_set_clear_func(d->cells, vn_domain_cell_clear);
    d->devices = g_ptr_array_new_with_free_func(vn_domain_device_free);
    if (!check_doctype(doc, source, error))
        return NULL;
    if (!parse_root(d, &local)) {
        /* every message names the input (most parts say file:line) and is
         * one line, also when it quotes a value with newlines in it */
        g_strdelimit(local->message, "\r\n", ' ');
        if (!g_str_has_prefix(local->message, source))
            g_prefix_error(&local, "%s: ", source);
        g_propagate_error(error, g_steal_pointer(&local));
        return NULL;
    }
    return g_steal_pointer(&d);
}

static GError *
convert_xml_error(GError *e)
{
    VnDomainError code = VN_DOMAIN_ERROR_MALFORMED;

    if (g_error_matches(e, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_IO))
        code = VN_DOMAIN_ERROR_IO;
    else if (g_error_matches(e, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_TOO_LARGE))
        code = VN_DOMAIN_ERROR_TOO_LARGE;
    return g_error_new_literal(VN_DOMAIN_ERROR, code, e->message);
}

VnDomain *
vn_domain_load_buffer(const gchar *buf, gsize len, const gchar *name_for_errors, GError **error)
{
    g_autoptr(GError) local = NULL;
    const gchar *source = name_for_errors ? name_for_errors : "domain XML";
    VnDomain *d;
    xmlDoc *doc;
    gsize skip = 0;

    g_return_val_if_fail(buf != NULL, NULL);
    if (len > VN_DOMAIN_MAX_BYTES) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_TOO_LARGE,
                    "%s: %" G_GSIZE_FORMAT " bytes, more than the %d allowed for a domain", source,
                    len, VN_DOMAIN_MAX_BYTES);
        return NULL;
    }
    doc = vn_xml_file_parse(source, buf, len, &local);
    if (!doc) {
        g_propagate_error(error, convert_xml_error(local));
        return NULL;
    }
    while (skip < len && g_ascii_isspace(buf[skip]))
        skip++;
    d = domain_from_doc(doc, source, len - skip >= 5 && strncmp(buf + skip, "<?xml", 5) == 0,
                        error);
    if (d)
        d->single_quotes = vn_domain_quote_style(buf, len);
    return d;
}

VnDomain *
vn_domain_load_file(const gchar *path, GError **error)
{
    g_autofree gchar *buf = NULL;
    g_autoptr(GError) local = NULL;
    GStatBuf st;
    gsize len;

    g_return_val_if_fail(path != NULL, NULL);
    if (g_stat(path, &st) != 0) {
        int saved = errno;
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_IO, "%s: cannot read: %s", path,
                    g_strerror(saved));
        return NULL;
    }
    if (st.st_size > VN_DOMAIN_MAX_BYTES) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_TOO_LARGE,
                    "%s: %lld bytes, more than the %d allowed for a domain", path,
                    (long long)st.st_size, VN_DOMAIN_MAX_BYTES);
        return NULL;
    }
    if (!g_file_get_contents(path, &buf, &len, &local)) {
        g_set_error_literal(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_IO, local->message);
        return NULL;
    }
    return vn_domain_load_buffer(buf, len, path, error);
}

gboolean
vn_domain_get_metadata(const VnDomain *d, const VnDomainMetadata **ret_meta, GError **error)
{
    g_return_val_if_fail(d != NULL && ret_meta != NULL, FALSE);
    *ret_meta = d->meta;
    return TRUE;
}
