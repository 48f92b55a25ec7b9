/* vn-cpulist.c: cpulists through hwloc's list parser and formatter.
 *
 * hwloc_bitmap_list_sscanf() is lenient: it stops at the first character it
 * does not understand ("1-2x" reads as 1-2, "0x3" as 3), reads "4-" as an
 * infinite set and a reversed range "3-1" as nothing.  It reads each number
 * with strtoul(base 0): "010" is octal 8, and "09-11" is 0, then '9' skipped,
 * then "-11" as the CPU 2^32 - 11, a 512 MiB bitmap allocated and zeroed
 * (a fuzzed domain with cpuset='09-11' took seconds and 1 GB).  libvirt's
 * virBitmapParse() reads base 10 ("09" is 9).  For user and XML input that
 * silently means a different set, so the text is first checked for shape
 * (digits, ',' and '-' only, each '-' between two numbers, numbers no longer
 * than the capacity allows, which also bounds hwloc's allocation) and handed
 * to hwloc with each number's leading zeros dropped, and the result is
 * checked for being finite, non-empty and in range.
 */
#include "vn-cpulist.h"
#include "vn-json-parse.h"

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

/* Shape check: "N", "N-M", joined by ','.  Appends the list to `canon`
 * with each number's leading zeros dropped ("09" -> "9", "00" -> "0"), so
 * hwloc reads it in base 10 as libvirt does; only significant digits count
 * against `max_digits`.  Returns a reason or NULL. */
static const gchar *
cpulist_shape_error(const gchar *text, guint max_digits, GString *canon)
{
    guint digits = 0;
    gboolean in_number = FALSE, in_range = FALSE;

    for (const gchar *p = text;; p++) {
        if (g_ascii_isdigit(*p)) {
            in_number = TRUE;
            if (*p == '0' && digits == 0)
                continue;
            if (++digits > max_digits)
                return "a number is out of range";
            g_string_append_c(canon, *p);
            continue;
        }
        if (*p != ',' && *p != '-' && *p != '\0')
            return "unexpected character";
        if (!in_number)
            return "a number is missing";
        if (*p == '-' && in_range)
            return "a range has two '-'";
        if (digits == 0)
            g_string_append_c(canon, '0');
        in_range = *p == '-';
        digits = 0;
        in_number = FALSE;
        if (*p == '\0')
            return NULL;
        g_string_append_c(canon, *p);
    }
}

VnBitmap *
vn_cpulist_parse(const gchar *text, guint n_bits, GError **error)
{
    g_autoptr(VnHwlocBitmap) hb = NULL;
    g_autoptr(VnBitmap) b = NULL;
    g_autoptr(GString) canon = g_string_new(NULL);
    const gchar *why;
    int last;

    g_return_val_if_fail(text != NULL, NULL);
    b = vn_bitmap_new(n_bits);
    if (*text == '\0')
        return g_steal_pointer(&b);
    why = cpulist_shape_error(text, decimal_digits(n_bits), canon);
    if (!why) {
        hb = hwloc_bitmap_alloc();
        if (hwloc_bitmap_list_sscanf(hb, canon->str) < 0 || hwloc_bitmap_weight(hb) <= 0)
            why = "not a list such as 0-3,8";
    }
    /* hwloc's int indices: an id above INT_MAX would read as negative */
    if (!why && ((last = hwloc_bitmap_last(hb)) >= (int)n_bits || last < 0))
        why = "an id is out of range";
    if (why) {
        /* escaped: a newline or control character in it keeps the
         * message one line */
        g_autofree gchar *shown = vn_json_escape(text);
        g_set_error(error, VN_CPULIST_ERROR, VN_CPULIST_ERROR_INVALID,
                    "invalid cpulist '%s': %s (ids must be below %u)", shown, why, n_bits);
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
