/* vn-cpulist.c: cpulists through hwloc's list parser and formatter.
 *
 * hwloc_bitmap_list_sscanf() is lenient: it stops at the first character it
 * does not understand ("1-2x" reads as 1-2, "0x3" as 3), reads "4-" as an
 * infinite set and a reversed range "3-1" as nothing.  For user and XML input
 * that silently means a different set, so the text is first checked for
 * shape (digits, ',' and '-' only, each '-' between two numbers, numbers no
 * longer than the capacity allows, which also bounds hwloc's allocation), and
 * the result is checked for being finite, non-empty and in range.
 */
#include "vn-cpulist.h"

#include <hwloc.h>
#include <stdlib.h>
#include <string.h>

G_DEFINE_QUARK(vn-cpulist-error-quark, vn_cpulist_error);

typedef struct hwloc_bitmap_s VnHwlocBitmap;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnHwlocBitmap, hwloc_bitmap_free)

gchar *
vn_cpulist_format(const VnBitmap *b)
{
    g_autoptr(VnHwlocBitmap) hb = hwloc_bitmap_alloc();
    char *s = NULL;
    gchar *ret;

    g_return_val_if_fail(b != NULL, NULL);
    VN_BITMAP_FOREACH (b, i)
        hwloc_bitmap_set(hb, (unsigned)i);
    if (hwloc_bitmap_list_asprintf(&s, hb) < 0 || !s)
        g_error("out of memory formatting a cpulist");
    ret = g_strdup(s);
    free(s);
    return ret;
}

static guint
decimal_digits(guint v)
{
    guint n = 1;

    while (v >= 10) {
        v /= 10;
        n++;
    }
    return n;
}

/* Shape check: "N", "N-M", joined by ','.  Returns a reason or NULL. */
static const gchar *
cpulist_shape_error(const gchar *text, guint max_digits)
{
    guint digits = 0;
    gboolean in_range = FALSE;

    for (const gchar *p = text;; p++) {
        if (g_ascii_isdigit(*p)) {
            if (++digits > max_digits)
                return "a number is out of range";
            continue;
        }
        if (*p != ',' && *p != '-' && *p != '\0')
            return "unexpected character";
        if (digits == 0)
            return "a number is missing";
        if (*p == '-' && in_range)
            return "a range has two '-'";
        in_range = *p == '-';
        digits = 0;
        if (*p == '\0')
            return NULL;
    }
}

VnBitmap *
vn_cpulist_parse(const gchar *text, guint n_bits, GError **error)
{
    g_autoptr(VnHwlocBitmap) hb = NULL;
    g_autoptr(VnBitmap) b = NULL;
    const gchar *why;
    int last;

    g_return_val_if_fail(text != NULL, NULL);
    b = vn_bitmap_new(n_bits);
    if (*text == '\0')
        return g_steal_pointer(&b);
    why = cpulist_shape_error(text, decimal_digits(n_bits));
    if (!why) {
        hb = hwloc_bitmap_alloc();
        if (hwloc_bitmap_list_sscanf(hb, text) < 0 || hwloc_bitmap_weight(hb) <= 0)
            why = "not a list such as 0-3,8";
    }
    if (!why && (last = hwloc_bitmap_last(hb)) >= (int)n_bits)
        why = "an id is out of range";
    if (why) {
        g_set_error(error, VN_CPULIST_ERROR, VN_CPULIST_ERROR_INVALID,
                    "invalid cpulist '%s': %s (ids must be below %u)", text, why, n_bits);
        return NULL;
    }
    for (int i = hwloc_bitmap_first(hb); i >= 0; i = hwloc_bitmap_next(hb, i))
        vn_bitmap_set(b, (guint)i);
    return g_steal_pointer(&b);
}

gchar *
vn_cpumask_format(const VnBitmap *b, guint n_cpus)
{
    g_autoptr(VnHwlocBitmap) hb = hwloc_bitmap_alloc();
    g_autoptr(GString) out = g_string_new(NULL);
    char *s = NULL;
    const gchar *hex;
    guint width = MAX(1, (n_cpus + 3) / 4), len;

    g_return_val_if_fail(b != NULL, NULL);
    VN_BITMAP_FOREACH (b, i)
        if ((guint)i < n_cpus)
            hwloc_bitmap_set(hb, (unsigned)i);
    if (hwloc_bitmap_taskset_asprintf(&s, hb) < 0 || !s)
        g_error("out of memory formatting a CPU mask");
    hex = g_str_has_prefix(s, "0x") ? s + 2 : s;
    len = (guint)strlen(hex);
    for (guint i = len; i < width; i++)
        g_string_append_c(out, '0');
    g_string_append(out, hex);
    free(s);
    /* a ',' before every 8 digits from the right, as bitmap_print does */
    for (gint pos = (gint)out->len - 8; pos > 0; pos -= 8)
        g_string_insert_c(out, pos, ',');
    return g_string_free(g_steal_pointer(&out), FALSE);
}

VnBitmap *
vn_cpumask_parse(const gchar *text, guint n_bits, GError **error)
{
    g_autoptr(VnHwlocBitmap) hb = hwloc_bitmap_alloc();
    g_autoptr(VnBitmap) b = vn_bitmap_new(n_bits);
    g_autoptr(GString) hex = g_string_new("0x");
    const gchar *why = NULL;

    g_return_val_if_fail(text != NULL, NULL);
    for (const gchar *p = text; *p && !why; p++)
        if (g_ascii_isxdigit(*p))
            g_string_append_c(hex, *p);
        else if (*p != ',')
            why = "unexpected character";
    if (!why && hex->len == 2)
        why = "no digits";
    if (!why && hwloc_bitmap_taskset_sscanf(hb, hex->str) < 0)
        why = "not a mask such as f0f";
    if (!why && hwloc_bitmap_last(hb) >= (int)n_bits)
        why = "a CPU is out of range";
    if (why) {
        g_set_error(error, VN_CPULIST_ERROR, VN_CPULIST_ERROR_INVALID,
                    "invalid CPU mask '%s': %s (CPUs must be below %u)", text, why, n_bits);
        return NULL;
    }
    for (int i = hwloc_bitmap_first(hb); i >= 0; i = hwloc_bitmap_next(hb, i))
        vn_bitmap_set(b, (guint)i);
    return g_steal_pointer(&b);
}
