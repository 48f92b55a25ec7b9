/* vn-libvirt.c: libvirt client calls (never linked into the hook). */
#include "vn-libvirt.h"

#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>

G_DEFINE_QUARK(vn-libvirt-error-quark, vn_libvirt_error);

struct _VnLibvirt {
    virConnectPtr conn;
    gchar *uri;
};

/* libvirt prints every error on stderr unless a handler is set; library
 * code never prints, so the handler drops them (they are read back with
 * virGetLastErrorMessage()). */
static void
quiet(void *data, virErrorPtr e)
{
}

static void
set_error(GError **error, VnLibvirtError code, const gchar *uri, const gchar *what)
{
    g_set_error(error, VN_LIBVIRT_ERROR, code, "%s: %s: %s", uri, what, virGetLastErrorMessage());
}

VnLibvirt *
vn_libvirt_open(const gchar *uri, GError **error)
{
    static gsize once;
    g_autoptr(VnLibvirt) c = g_new0(VnLibvirt, 1);

    if (g_once_init_enter(&once)) {
        virSetErrorFunc(NULL, quiet);
        g_once_init_leave(&once, 1);
    }
    c->uri = g_strdup(uri ? uri : VN_LIBVIRT_DEFAULT_URI);
    c->conn = virConnectOpen(c->uri);
    if (!c->conn) {
        set_error(error, VN_LIBVIRT_ERROR_CONNECT, c->uri, "cannot connect");
        return NULL;
    }
    return g_steal_pointer(&c);
}

void
vn_libvirt_close(VnLibvirt *c)
{
    if (!c)
        return;
    if (c->conn)
        virConnectClose(c->conn);
    g_free(c->uri);
    g_free(c);
}

const gchar *
vn_libvirt_uri(const VnLibvirt *c)
{
    return c->uri;
}

static virDomainPtr
lookup(VnLibvirt *c, const gchar *name, GError **error)
{
    virDomainPtr dom = virDomainLookupByName(c->conn, name);

    if (!dom && strlen(name) == VIR_UUID_STRING_BUFLEN - 1)
        dom = virDomainLookupByUUIDString(c->conn, name);
    if (!dom)
        g_set_error(error, VN_LIBVIRT_ERROR, VN_LIBVIRT_ERROR_NO_DOMAIN, "%s: no domain named '%s'",
                    c->uri, name);
    return dom;
}

gchar *
vn_libvirt_get_definition(VnLibvirt *c, const gchar *name, gboolean *ret_active, GError **error)
{
    virDomainPtr dom = lookup(c, name, error);
    char *xml;
    gchar *ret;
    int active;

    if (!dom)
        return NULL;
    xml = virDomainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);
    active = virDomainIsActive(dom);
    if (!xml || active < 0) {
        set_error(error, VN_LIBVIRT_ERROR_FAILED, c->uri, name);
        free(xml);
        virDomainFree(dom);
        return NULL;
    }
    virDomainFree(dom);
    if (ret_active)
        *ret_active = active == 1;
    ret = g_strdup(xml);
    free(xml);
    return ret;
}

gboolean
vn_libvirt_define(VnLibvirt *c, const gchar *xml, gchar **ret_name, GError **error)
{
    virDomainPtr dom = virDomainDefineXMLFlags(c->conn, xml, VIR_DOMAIN_DEFINE_VALIDATE);

    if (!dom) {
        set_error(error, VN_LIBVIRT_ERROR_FAILED, c->uri, "defining the domain");
        return FALSE;
    }
    if (ret_name)
        *ret_name = g_strdup(virDomainGetName(dom));
    virDomainFree(dom);
    return TRUE;
}
