/* vn-size.c: size suffixes.  The number itself goes through
 * g_ascii_strtoull; this file only maps the suffix to a multiplier. */
#include "vn-size.h"

#include <errno.h>

G_DEFINE_QUARK(vn-size-error-quark, vn_size_error);

typedef struct {
    const gchar *suffix;
    guint64 kib; /* KiB per unit */
} VnSizeUnit;

static const VnSizeUnit units[] = {
    { "", 1024 }, /* plain number: MiB */
    { "K", 1 },
    { "KiB", 1 },
    { "M", 1024 },
    { "MiB", 1024 },
    { "G", 1024 * 1024 },
    { "GiB", 1024 * 1024 },
    { "T", 1024ULL * 1024 * 1024 },
    { "TiB", 1024ULL * 1024 * 1024 },
};

static gboolean
unit_lookup(const gchar *suffix, guint64 *ret_kib)
{
    for (gsize i = 0; i < G_N_ELEMENTS(units); i++) {
        if (g_ascii_strcasecmp(units[i].suffix, suffix) == 0) {
            *ret_kib = units[i].kib;
            return TRUE;
        }
    }
    return FALSE;
}

gboolean
vn_size_parse_kib(const gchar *text, guint64 *ret_kib, GError **error)
{
    const guint64 max_kib = G_MAXUINT64 / 1024; /* 2^64 bytes */
    gchar *end = NULL;
    guint64 number, per_unit;

    g_return_val_if_fail(text != NULL, FALSE);

    /* g_ascii_strtoull() skips blanks and accepts a sign (negating "-1"
     * into a huge value), so insist on a leading digit. */
    if (!g_ascii_isdigit(text[0])) {
        g_set_error(error, VN_SIZE_ERROR, VN_SIZE_ERROR_INVALID,
                    "invalid size \"%s\": expected a positive whole number "
                    "with an optional K, M, G or T suffix",
                    text);
        return FALSE;
    }
    errno = 0;
    number = g_ascii_strtoull(text, &end, 10);
    if (!unit_lookup(end, &per_unit)) {
        g_set_error(error, VN_SIZE_ERROR, VN_SIZE_ERROR_INVALID,
                    "invalid size \"%s\": unknown suffix \"%s\" "
                    "(use K, M, G or T; a plain number is MiB)",
                    text, end);
        return FALSE;
    }
    if (errno == ERANGE || number > max_kib / per_unit) {
        g_set_error(error, VN_SIZE_ERROR, VN_SIZE_ERROR_RANGE,
                    "invalid size \"%s\": larger than 2^64 bytes", text);
        return FALSE;
    }
    if (number == 0) {
        g_set_error(error, VN_SIZE_ERROR, VN_SIZE_ERROR_RANGE,
                    "invalid size \"%s\": must be more than zero", text);
        return FALSE;
    }
    *ret_kib = number * per_unit;
    return TRUE;
}

guint64
vn_size_kib_to_mib(guint64 kib)
{
    return kib / 1024 + (kib % 1024 >= 512); /* no overflow near 2^64 */
}
