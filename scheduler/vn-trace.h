/* vn-trace.h: a trace of VM arrivals and departures (for vn_simulate()).
 *
 * A plain value: plugin/report/vn-trace-file.c reads and writes it as CSV,
 * plugin/report/vn-trace-gen.c draws one from the published Azure VM mix.
 * Each VM arrives at `time_s` and, if admitted, leaves at
 * `time_s + duration_s` (seconds from the trace's origin), both at most
 * VN_TRACE_MAX_SECONDS.
 */
#pragma once

#include <glib.h>

/* The longest time and duration a trace may give (about 31,700 years):
 * the replay counts whole seconds in 64 bits. */
#define VN_TRACE_MAX_SECONDS 1e12

typedef struct {
    gchar *name;        /* unique within the trace */
    gdouble time_s;     /* arrival, 0 to VN_TRACE_MAX_SECONDS */
    guint vcpus;        /* >= 1 */
    guint64 memory_kib; /* >= 1 MiB */
    gdouble duration_s; /* > 0, at most VN_TRACE_MAX_SECONDS */
} VnTraceVm;

typedef struct {
    GArray *vms; /* of VnTraceVm, in the order read or drawn */
} VnTrace;

VnTrace *vn_trace_new(void);
void vn_trace_free(VnTrace *t);
/* Appends a VM (copies `name`). */
void vn_trace_add(VnTrace *t, const gchar *name, gdouble time_s, guint vcpus, guint64 memory_kib,
                  gdouble duration_s);

/* A new trace of the VMs of `t` whose `keep` (one per VM) is TRUE, in
 * the same order and with the same times: the same arrivals and
 * departures with the others left out. */
VnTrace *vn_trace_subset(const VnTrace *t, const gboolean *keep);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnTrace, vn_trace_free)
