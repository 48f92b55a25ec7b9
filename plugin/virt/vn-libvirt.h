/* vn-libvirt.h: the libvirt client calls of vnumactl and vnumad.
 *
 * Built into its own library (vnvirt) so the qemu hook, which must never
 * call libvirt (a hook calling back into libvirt deadlocks), links plugin/
 * without it.  libvirt's default error printing is switched off: errors
 * come back as GError with libvirt's own message, prefixed by the URI.
 */
#pragma once

#include <glib.h>

#define VN_LIBVIRT_DEFAULT_URI "qemu:///system"

#define VN_LIBVIRT_ERROR (vn_libvirt_error_quark())
GQuark vn_libvirt_error_quark(void);
typedef enum {
    VN_LIBVIRT_ERROR_CONNECT,   /* cannot connect to the daemon */
    VN_LIBVIRT_ERROR_NO_DOMAIN, /* no domain of that name or UUID */
    VN_LIBVIRT_ERROR_FAILED,    /* libvirt refused the call */
    VN_LIBVIRT_ERROR_MAX
} VnLibvirtError;

typedef struct _VnLibvirt VnLibvirt;

/* Connects read-write to `uri` (NULL: VN_LIBVIRT_DEFAULT_URI). */
VnLibvirt *vn_libvirt_open(const gchar *uri, GError **error);
void vn_libvirt_close(VnLibvirt *c);
const gchar *vn_libvirt_uri(const VnLibvirt *c);

/* The persistent definition of domain `name` (a name or a UUID), with
 * secrets (VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE) so that
 * defining it again loses nothing.  *ret_active: whether it runs now. */
gchar *vn_libvirt_get_definition(VnLibvirt *c, const gchar *name, gboolean *ret_active,
                                 GError **error);

/* Defines `xml` persistently, validated against libvirt's schema
 * (VIR_DOMAIN_DEFINE_VALIDATE).  *ret_name (may be NULL): its name. */
gboolean vn_libvirt_define(VnLibvirt *c, const gchar *xml, gchar **ret_name, GError **error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnLibvirt, vn_libvirt_close)
