/* vn-dataplane-spec.h: how vnuma.conf [dataplane] names a VM's data-plane
 * processes (`pidfile:/run/x.pid`, `unit:NAME.service`), and the error
 * domain of the data path (steer/vn-dataplane.h), whose specs are read
 * with the configuration.
 */
#pragma once

#include <glib.h>

#define VN_DATAPLANE_ERROR (vn_dataplane_error_quark())
GQuark vn_dataplane_error_quark(void);
typedef enum {
    VN_DATAPLANE_ERROR_SPEC,    /* not pidfile:/ABSOLUTE or unit:NAME.service */
    VN_DATAPLANE_ERROR_RESOLVE, /* pid file or unit cgroup missing, unreadable or empty */
    VN_DATAPLANE_ERROR_PROC,    /* the QEMU process is not in the procroot */
    VN_DATAPLANE_ERROR_STEER,   /* the kernel refused an affinity or a page move */
    VN_DATAPLANE_ERROR_MAX
} VnDataplaneError;

/* The kinds of spec, written before the first ':'. */
typedef enum {
    VN_DATAPLANE_SPEC_PIDFILE, /* "pidfile:/run/ovs-vswitchd.pid" */
    VN_DATAPLANE_SPEC_UNIT,    /* "unit:spdk-vhost.service" */
    VN_DATAPLANE_SPEC_MAX
} VnDataplaneSpecKind;

const gchar *vn_dataplane_spec_kind_to_string(VnDataplaneSpecKind k);
gint vn_dataplane_spec_kind_from_string(const gchar *s); /* -1 if unknown */

/* Splits `spec` into its kind and its value (newly allocated): a pid file
 * must be an absolute path; a unit a plain name ending in ".service"
 * (no '/', not hidden).  VN_DATAPLANE_ERROR_SPEC otherwise, the message
 * quoting the spec.  Pure: nothing is read. */
gboolean vn_dataplane_spec_parse(const gchar *spec, VnDataplaneSpecKind *ret_kind,
                                 gchar **ret_value, GError **error);
