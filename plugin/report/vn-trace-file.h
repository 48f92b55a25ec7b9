/* vn-trace-file.h: VM traces as CSV, and a synthetic trace generator.
 *
 * Format (one VM per line, after a header line):
 *     time_s,vm,vcpus,memory_mib,duration_s
 *     0,web1,2,4096,3600
 * time_s: arrival in seconds from the trace's origin (a number >= 0);
 * vm: a unique name (no comma); vcpus: 1..4096; memory_mib: 1..2^30;
 * duration_s: seconds the VM runs once admitted (a number > 0).
 * Blank lines and lines starting with '#' are skipped.  Every error names
 * the file, the line and the column: "trace.csv:4:7: vcpus: ...".
 */
#pragma once

#include <glib.h>
#include "vn-trace.h"

#define VN_TRACE_FILE_ERROR (vn_trace_file_error_quark())
GQuark vn_trace_file_error_quark(void);
typedef enum {
    VN_TRACE_FILE_ERROR_READ,   /* missing or unreadable file */
    VN_TRACE_FILE_ERROR_SYNTAX, /* header, field count, a bad value */
    VN_TRACE_FILE_ERROR_EMPTY,  /* no VM at all */
    VN_TRACE_FILE_ERROR_MAX
} VnTraceFileError;

#define VN_TRACE_CSV_HEADER "time_s,vm,vcpus,memory_mib,duration_s"

/* Parses CSV `text`; `name` is the file name used in errors. */
VnTrace *vn_trace_parse(const gchar *text, const gchar *name, GError **error);
VnTrace *vn_trace_load_file(const gchar *path, GError **error);
/* The CSV form of `t` (header included); memory rounded down to MiB. */
gchar *vn_trace_format(const VnTrace *t);

/* Size and lifetime mixes of the generator.  AZURE is the published mix
 * below; the others are stress mixes built from its parts, assumptions
 * rather than data:
 *   size SMALL    vCPUs {1: 40 %, 2: 30 %, 4: 20 %, 8: 10 %}: every VM
 *                 fits one node of any current server.
 *   size LARGE    vCPUs {4: 30 %, 8: 30 %, 16: 25 %, 32: 10 %, 64: 5 %}:
 *                 the wide tail made common, to stress the split path.
 *   lifetime SHORT  every VM from the short part (lognormal, median
 *                   20 min, 1 min .. 2 h).
 *   lifetime LONG   no short VMs: half medium, half long.
 * GiB per vCPU is the published {2: 30 %, 4: 50 %, 8: 20 %} in every mix. */
typedef enum {
    VN_TRACE_SIZE_AZURE,
    VN_TRACE_SIZE_SMALL,
    VN_TRACE_SIZE_LARGE,
    VN_TRACE_SIZE_MAX
} VnTraceSizeMix;

typedef enum {
    VN_TRACE_LIFETIME_AZURE,
    VN_TRACE_LIFETIME_SHORT,
    VN_TRACE_LIFETIME_LONG,
    VN_TRACE_LIFETIME_MAX
} VnTraceLifetimeMix;

/* "azure", "small", "large" / "azure", "short", "long"; NULL-terminated. */
const gchar *const *vn_trace_size_mix_names(void);
const gchar *const *vn_trace_lifetime_mix_names(void);
/* The index of `s` in `names` (one of the two lists above): the mix. */
gboolean vn_trace_mix_from_string(const gchar *const *names, const gchar *s, guint *ret);

/* A trace of `n_vms` VMs arriving uniformly at random (a Poisson process)
 * over `hours`, drawn with GLib's Mersenne Twister seeded with `seed`, so
 * the same arguments always give the same trace.  With the AZURE mixes,
 * sizes and lifetimes follow the published Azure mix (reference:
 * performance-anchors.md section 4): vCPUs {1: 35 %, 2: 23 %, 4: 23 %,
 * 8: 12 %, 16: 5.5 %, 32: 1 %, 64: 0.5 %}; GiB per vCPU {2: 30 %,
 * 4: 50 %, 8: 20 %} (so ~61 % of VMs have at most 8 GiB); lifetimes: 72 %
 * short (lognormal, median 20 min, 1 min .. 2 h), 18 % medium
 * (log-uniform 2 .. 24 h), 10 % long (log-uniform 1 .. 30 days).
 * `max_kib` (0: none) caps a VM's memory: a larger draw is drawn again,
 * so the mix is truncated, not clamped (a light trace for a small host);
 * it must be at least vn_trace_smallest_vm_kib(), or it is ignored. */
VnTrace *vn_trace_generate(guint n_vms, guint32 seed, gdouble hours, VnTraceSizeMix size,
                           VnTraceLifetimeMix lifetime, guint64 max_kib);
/* The smallest VM any mix draws (1 vCPU x 2 GiB), in KiB. */
guint64 vn_trace_smallest_vm_kib(void);
