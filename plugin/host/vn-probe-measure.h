/* vn-probe-measure.h: measure this host's node distances (vnumactl probe).
 *
 * For each memory node (a node with memory, CPU-less ones included) one
 * buffer is mapped and bound to it (mbind MPOL_BIND), touched, and its
 * pages' node checked with move_pages(2) in query mode; then, for each
 * CPU node, a thread bound to that node (numa_run_on_node) walks a random
 * cyclic chain of pointers through the buffer, one cache line a step, each
 * load depending on the one before (the latency), and reads the buffer
 * sequentially (one thread's read bandwidth).  The pages are checked again
 * after the walks.  A pair is reported only when every page was on its
 * node both times and the walking thread ran on its CPU node; otherwise it
 * stays unmeasured and a note says why.
 */
#pragma once

#include <glib.h>
#include "vn-probe.h"
#include "vn-topology.h"

typedef struct {
    /* the whole run: what is left after each buffer's setup is shared by
     * the pairs left (at least 3 ms a pair, so a slow machine overruns by
     * that much) */
    gdouble seconds;
    guint64 buffer_bytes; /* per memory node; larger than the L3 caches */
} VnProbeOptions;

#define VN_PROBE_BUFFER_BYTES (64ull << 20)
#define VN_PROBE_QUICK_BUFFER_BYTES (16ull << 20)
/* The default budget: 0.15 s per pair, at most 10 s (8 nodes: 64 pairs);
 * quick: 0.03 s per pair, at most 2 s. */
gdouble vn_probe_default_seconds(const VnTopology *t, gboolean quick);

#define VN_PROBE_MEASURE_ERROR (vn_probe_measure_error_quark())
GQuark vn_probe_measure_error_quark(void);
typedef enum {
    VN_PROBE_MEASURE_ERROR_NOTHING, /* no pair could be measured (the notes say why) */
    VN_PROBE_MEASURE_ERROR_MAX
} VnProbeMeasureError;

/* Measures this host, described by `t` (its live topology: node indices
 * and kernel node numbers).  `ret_notes` (optional) gets one line per pair
 * or node that was not measured and why.  Errors: _NOTHING. */
VnProbe *vn_probe_measure(const VnTopology *t, const VnProbeOptions *o, GPtrArray **ret_notes,
                          GError **error);
