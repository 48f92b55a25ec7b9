/* vn-probe.h: node distances as measured, and where the firmware's table
 * (SLIT) disagrees with them.
 *
 * A VnProbe holds, for each CPU node and each memory node of a topology
 * (node indices), the latency of a dependent random pointer walk run on
 * the CPU node over memory bound to the memory node, and one thread's
 * sequential read bandwidth there.  plugin/ measures it (vnumactl probe)
 * and saves it; this file only derives distances and compares: a plain
 * value in, values out.
 */
#pragma once

#include <glib.h>
#include "vn-topology.h"

typedef struct {
    guint n_nodes;
    gdouble *latency_ns;    /* n_nodes * n_nodes, [cpu node][memory node]; < 0: not measured */
    gdouble *bandwidth_mbs; /* likewise, MB/s (10^6 bytes) */
} VnProbe;

/* Everything unmeasured. */
VnProbe *vn_probe_new(guint n_nodes);
void vn_probe_free(VnProbe *p);
void vn_probe_set(VnProbe *p, guint cpu_node, guint mem_node, gdouble latency_ns,
                  gdouble bandwidth_mbs);
gboolean vn_probe_measured(const VnProbe *p, guint cpu_node, guint mem_node);
gdouble vn_probe_latency(const VnProbe *p, guint cpu_node, guint mem_node);

/* The local latency of CPU node `i`: to its own memory, or for a node
 * without measured memory of its own (CPU-only) the lowest it measured;
 * < 0 when the row has nothing. */
gdouble vn_probe_local_latency(const VnProbe *p, guint i);

/* Derived distances, SLIT-like: 10 x latency / local latency, rounded,
 * at least 10; 0 where not measured.  Returns a new n_nodes * n_nodes
 * array (row-major, node indices). */
guint *vn_probe_distances(const VnProbe *p);

/* Two derived remote distances are one class when within this ratio. */
#define VN_PROBE_CLASS_RATIO 1.15
/* An order inversion: the firmware says j is nearer than k, the walk is
 * slower to j than to k by more than this ratio. */
#define VN_PROBE_INVERSION_RATIO 1.10
/* Asymmetry: latency i->j and j->i differ by more than this ratio while
 * the firmware gives both one value. */
#define VN_PROBE_ASYMMETRY_RATIO 1.20

typedef enum {
    VN_PROBE_FINDING_FLAT,      /* one firmware remote value, >= 2 measured classes */
    VN_PROBE_FINDING_INVERSION, /* firmware order of two targets reversed */
    VN_PROBE_FINDING_ASYMMETRY, /* i->j and j->i differ, firmware symmetric */
    VN_PROBE_FINDING_MAX
} VnProbeFindingKind;

const gchar *vn_probe_finding_kind_to_string(VnProbeFindingKind k);

typedef struct {
    VnProbeFindingKind kind;
    /* node indices: FLAT none (0); INVERSION from `a`, `b` firmware-nearer
     * than `c`; ASYMMETRY between `a` and `b` */
    guint a, b, c;
    gchar *text; /* one line, kernel node numbers */
} VnProbeFinding;

void vn_probe_finding_free(VnProbeFinding *f);

/* Where `t`'s distance table disagrees with `p` (same node indices), in
 * the order flat, inversions, asymmetries.  Returns a new array of
 * VnProbeFinding (empty when they agree or too little was measured). */
GPtrArray *vn_probe_compare(const VnProbe *p, const VnTopology *t);

/* The distinct measured remote distance classes: the derived distance of
 * each pair of nodes (the mean of both ways when both were measured, so
 * that an asymmetric pair is one pair, not two classes), grouped by
 * VN_PROBE_CLASS_RATIO; the lowest of each class, ascending, in a new
 * GArray of guint. */
GArray *vn_probe_classes(const VnProbe *p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnProbe, vn_probe_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnProbeFinding, vn_probe_finding_free)
