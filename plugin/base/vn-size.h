/* vn-size.h: memory sizes as people write them ("4G", "512M", "2048").
 *
 * Binary suffixes only: K/KiB, M/MiB, G/GiB, T/TiB (case-insensitive);
 * a plain number is MiB, as `virsh setmem --size` and the CLI
 * contract say.  Whole numbers only.
 */
#pragma once

#include <glib.h>

#define VN_SIZE_ERROR (vn_size_error_quark())
GQuark vn_size_error_quark(void);
typedef enum {
    VN_SIZE_ERROR_INVALID, /* empty, negative, garbage, unknown suffix */
    VN_SIZE_ERROR_RANGE,   /* zero, or more than 2^64 bytes */
    VN_SIZE_ERROR_MAX
} VnSizeError;

/* Parses `text` into KiB.  On error, the one-line message names the text;
 * callers prefix the flag or key it came from with g_prefix_error(). */
gboolean vn_size_parse_kib(const gchar *text, guint64 *ret_kib, GError **error);

/* The one rounding rule of every MiB figure vnumactl and vnumad print
 * (JSON and text): the nearest whole MiB, a half rounding up (1536 KiB is
 * 2 MiB, 1535 KiB is 1 MiB, 511 KiB is 0).  Each figure rounds its own
 * KiB: a record's memory_mib is its KiB total rounded, not the sum of its
 * cells' rounded figures.  Where the exact amount matters, a "memory_kib"
 * member stands beside the MiB one. */
guint64 vn_size_kib_to_mib(guint64 kib);
