/* vn-domain-units.c: libvirt's scaled integers (<memory unit='GiB'>4</memory>).
 *
 * Same rules as libvirt's virScaleInteger(): the first letter picks the
 * power (b, k, m, g, t, p, e; case-insensitive), "" or "iB" after it means
 * 1024-based, "B" 1000-based; "bytes" is 1.  Sizes are rounded up to KiB as
 * libvirt does.  Anything else, or a total of 2^64 bytes or more, is an
 * error naming the element.
 */
#include "vn-domain-private.h"

static gboolean
unit_scale(const gchar *unit, guint64 *ret_scale)
{
    static const gchar powers[] = "kmgtpe";
    const gchar *p;
    guint64 base, scale = 1;

    if (g_ascii_strcasecmp(unit, "b") == 0 || g_ascii_strcasecmp(unit, "bytes") == 0) {
        *ret_scale = 1;
        return TRUE;
    }
    p = strchr(powers, g_ascii_tolower(unit[0]));
    if (unit[0] == '\0' || !p)
        return FALSE;
    if (unit[1] == '\0' || g_ascii_strcasecmp(unit + 1, "iB") == 0)
        base = 1024;
    else if (g_ascii_strcasecmp(unit + 1, "B") == 0)
        base = 1000;
    else
        return FALSE;
    for (gsize i = 0; i <= (gsize)(p - powers); i++)
        scale *= base;
    *ret_scale = scale;
    return TRUE;
}

gboolean
vn_domain_parse_uint(const gchar *text, guint64 max, const gchar *what, guint64 *ret,
                     GError **error)
{
    g_autoptr(GError) local = NULL;
    guint64 v;

    if (!text || !g_ascii_string_to_unsigned(text, 10, 0, max, &v, &local)) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: '%s' is not a whole number from 0 to %" G_GUINT64_FORMAT, what,
                    text ? text : "", max);
        return FALSE;
    }
    *ret = v;
    return TRUE;
}

gboolean
vn_domain_parse_scaled_kib(const gchar *value, const gchar *unit, const gchar *default_unit,
                           const gchar *what, guint64 *ret_kib, GError **error)
{
    guint64 v, scale, kib;

    if (!unit_scale(unit ? unit : default_unit, &scale)) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: unknown unit '%s' (use b, KiB, MiB, GiB, TiB, KB, MB, ...)", what, unit);
        return FALSE;
    }
    if (!vn_domain_parse_uint(value, G_MAXUINT64, what, &v, error))
        return FALSE;
    if (v != 0 && v > G_MAXUINT64 / scale) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: %s %s is 2^64 bytes or more", what, value, unit ? unit : default_unit);
        return FALSE;
    }
    v *= scale;
    kib = v / 1024 + (v % 1024 != 0);
    *ret_kib = kib;
    return TRUE;
}
