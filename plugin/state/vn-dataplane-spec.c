/* vn-dataplane-spec.c: [dataplane] specs, parsed (nothing is read). */
#include "vn-dataplane-spec.h"
#include "vn-names.h"

#include <string.h>

G_DEFINE_QUARK(vn-dataplane-error-quark, vn_dataplane_error);

static const gchar *const spec_kind_names[] = { "pidfile", "unit", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(spec_kind_names) == VN_DATAPLANE_SPEC_MAX + 1);

const gchar *
vn_dataplane_spec_kind_to_string(VnDataplaneSpecKind k)
{
    g_return_val_if_fail(k < VN_DATAPLANE_SPEC_MAX, NULL);
    return spec_kind_names[k];
}

gint
vn_dataplane_spec_kind_from_string(const gchar *s)
{
    return vn_name_index(spec_kind_names, VN_DATAPLANE_SPEC_MAX, s);
}

/* ---- specs ---- */

/* A spec that is not pidfile:/ABSOLUTE or unit:NAME.service. */
#define spec_error(error, ...)                                                                     \
    (g_set_error((error), VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_SPEC, __VA_ARGS__), FALSE)

static gboolean
check_unit_name(const gchar *spec, const gchar *name, GError **error)
{
    if (strchr(name, '/') || name[0] == '.' || !g_str_has_suffix(name, ".service") ||
        strlen(name) == strlen(".service"))
        return spec_error(error, "%s: not a unit name such as spdk-vhost.service", spec);
    return TRUE;
}

gboolean
vn_dataplane_spec_parse(const gchar *spec, VnDataplaneSpecKind *ret_kind, gchar **ret_value,
                        GError **error)
{
    const gchar *colon = spec ? strchr(spec, ':') : NULL;
    g_autofree gchar *kind_text = NULL;
    const gchar *value;
    gint kind;

    g_return_val_if_fail(spec != NULL, FALSE);
    if (!colon)
        return spec_error(error, "\"%s\": not pidfile:/PATH or unit:NAME.service", spec);
    kind_text = g_strndup(spec, (gsize)(colon - spec));
    kind = vn_dataplane_spec_kind_from_string(kind_text);
    value = colon + 1;
    if (kind < 0)
        return spec_error(error, "%s: unknown kind \"%s\" (pidfile or unit)", spec, kind_text);
    if (kind == VN_DATAPLANE_SPEC_PIDFILE && !g_path_is_absolute(value))
        return spec_error(error, "%s: the pid file must be an absolute path", spec);
    if (kind == VN_DATAPLANE_SPEC_UNIT && !check_unit_name(spec, value, error))
        return FALSE;
    *ret_kind = (VnDataplaneSpecKind)kind;
    *ret_value = g_strdup(value);
    return TRUE;
}
