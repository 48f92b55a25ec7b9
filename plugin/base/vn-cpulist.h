/* vn-cpulist.h: text form of CPU and node sets ("0-3,8"), as the kernel,
 * libvirt (cpuset='...', nodeset='...') and numactl write them.
 *
 * Both directions go through hwloc's list functions; the scheduler's
 * VnBitmap stays free of text handling.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"

/* Returns a newly allocated list such as "0-3,8"; "" for an empty set. */
gchar *vn_cpulist_format(const VnBitmap *b);

/* Parses `text` ("0-3,8", "5", "" for the empty set) into a new bitmap of
 * capacity `n_bits`.  Fails with VN_CPULIST_ERROR_INVALID when the text is
 * not a list, is unbounded ("4-"), or names an id >= n_bits; the message
 * quotes the text. */
VnBitmap *vn_cpulist_parse(const gchar *text, guint n_bits, GError **error);

/* The kernel's hex mask form of `b`, as rps_cpus and smp_affinity print
 * it: ceil(n_cpus / 4) hex digits, a ',' between 32-bit words ("fff",
 * "00000001,ffffffff").  CPUs >= n_cpus are dropped. */
gchar *vn_cpumask_format(const VnBitmap *b, guint n_cpus);

/* Parses such a mask ("f0f", "00000000,00000f0f"; hex digits and ','
 * only) into a new bitmap of capacity `n_bits`.  VN_CPULIST_ERROR_INVALID,
 * quoting the text, for anything else or a CPU >= n_bits. */
VnBitmap *vn_cpumask_parse(const gchar *text, guint n_bits, GError **error);

#define VN_CPULIST_ERROR (vn_cpulist_error_quark())
GQuark vn_cpulist_error_quark(void);
typedef enum {
    VN_CPULIST_ERROR_INVALID,
    VN_CPULIST_ERROR_MAX
} VnCpulistError;
