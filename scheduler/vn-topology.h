/* vn-topology.h: the host as the scheduler sees it.
 *
 * A VnTopology is a plain value.  plugin/ builds it from any source (live
 * host through hwloc, an hwloc XML file, an hwloc synthetic string, libvirt
 * capabilities XML) with vn_topology_new() + vn_topology_add_*() and seals it
 * with vn_topology_finish(); the scheduler only reads it afterwards.
 *
 * Indices: nodes are stored densely (0 .. n_nodes-1, the "node index") and
 * each carries its OS number (`os_id`, what the kernel and libvirt call the
 * node).  CPUs are indexed by their OS number (PU os_index).
 * Memory is in KiB throughout, as libvirt's <cell memory unit='KiB'>.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"

#define VN_DISTANCE_LOCAL 10
#define VN_DISTANCE_REMOTE_DEFAULT 20

typedef struct {
    guint64 size_kib; /* page size */
    guint64 total;    /* pages configured on this node */
    guint64 free;     /* pages free; == total when unknown */
} VnHugepages;

/* What kind of memory a node holds (derived by vn_topology_finish() from
 * what the source says; `tier_reason` tells which evidence decided):
 *   dram     ordinary memory next to CPUs (or CPU-less memory whose HMAT
 *            figures match local memory's)
 *   slow     a slower tier: CXL, PMEM or other memory onlined through
 *            dax/kmem (a kernel memory_tier below the CPU nodes'), an
 *            hwloc subtype such as NVM or CXL-DRAM, a CPU-less node (HMAT
 *            figures, when known, say how much slower)
 *   special  neither: high-bandwidth (HBM, MCDRAM), specific-purpose
 *            (SPM) or device memory, by its hwloc subtype */
typedef enum {
    VN_MEMORY_TIER_DRAM,
    VN_MEMORY_TIER_SLOW,
    VN_MEMORY_TIER_SPECIAL,
    VN_MEMORY_TIER_MAX
} VnMemoryTier;

const gchar *vn_memory_tier_to_string(VnMemoryTier v);
gboolean vn_memory_tier_from_string(const gchar *s, VnMemoryTier *ret);

/* What the firmware's HMAT (through sysfs, hwloc memattrs or libvirt's
 * <interconnects>) publishes for CPUs of one node reaching memory of
 * another. */
typedef enum {
    VN_ACCESS_READ_LATENCY,    /* ns */
    VN_ACCESS_WRITE_LATENCY,   /* ns */
    VN_ACCESS_READ_BANDWIDTH,  /* MiB/s */
    VN_ACCESS_WRITE_BANDWIDTH, /* MiB/s */
    VN_ACCESS_MAX
} VnAccessKind;

const gchar *vn_access_kind_to_string(VnAccessKind v);
gboolean vn_access_kind_from_string(const gchar *s, VnAccessKind *ret);

typedef struct {
    guint initiator;            /* node index of the CPUs */
    guint target;               /* node index of the memory */
    guint value[VN_ACCESS_MAX]; /* 0: not published */
} VnNodeAccess;

typedef struct {
    guint os_id;           /* kernel node number */
    VnBitmap *cpus;        /* PUs whose local memory this node is; may be empty */
    guint64 mem_total_kib; /* 0 for a CPU-only node */
    guint64 mem_free_kib;  /* measured free memory (MemFree); G_MAXUINT64 when unknown */
    /* Memory the kernel reclaims on demand before it fails an allocation:
     * the file LRU lists (page cache; shmem is on the anon lists) and
     * reclaimable slab.  0 when unknown. */
    guint64 mem_reclaimable_kib;
    gchar *subtype; /* "DRAM", "HBM", "CXL-DRAM", ... or NULL */
    /* Node index of the node that owns this node's CPUs when several nodes
     * share one CPU set (DRAM + HBM on one package); -1 otherwise.  Such a
     * node's `cpus` is empty so no CPU is ever counted twice. */
    gint cpu_owner;
    /* The kernel memory tier this node is in (N of
     * /sys/devices/virtual/memory_tiering/memory_tierN; larger is slower),
     * -1 when unknown. */
    gint kernel_tier;
    /* The largest memory-side cache in front of this node's memory (DRAM
     * caching slower memory, as Intel's 2LM); 0 when none or unknown. */
    guint64 mem_side_cache_kib;
    GArray *hugepages; /* of VnHugepages, sorted by size */
    /* derived by vn_topology_finish(): */
    VnMemoryTier tier;
    gchar *tier_reason; /* one phrase: why this tier */
    /* derived by vn_topology_finish(): this node's cache domains are
     * domains[first_domain .. first_domain + n_domains - 1] (none for a
     * node without CPUs) */
    guint first_domain;
    guint n_domains;
} VnNode;

typedef struct {
    guint os_id;   /* PU os_index */
    gint node;     /* node index (-1: not attached to a node) */
    guint core;    /* dense core number: SMT siblings share it */
    guint package; /* dense package number */
    gint domain;   /* derived: cache domain index (-1: not attached to a node) */
} VnCpu;

/* A cache domain: the CPUs of one node that share one last-level (L3)
 * cache.  An L3 that spans several nodes (sub-NUMA clustering) gives one
 * domain per node; a node's CPUs under no L3 the source knows form one
 * domain of their own (size 0). */
typedef struct {
    guint node;       /* node index */
    VnBitmap *cpus;   /* never empty */
    guint64 size_kib; /* the cache's size; 0 when unknown or none */
} VnCacheDomain;

typedef struct {
    guint n_nodes;
    VnNode *nodes;
    guint n_cpu_ids;            /* 1 + highest CPU os id; bitmap capacity */
    GArray *cpus;               /* of VnCpu, sorted by os_id */
    guint *distance;            /* n_nodes * n_nodes, row-major, node indices */
    gboolean distances_assumed; /* source had none: 10 local / 20 remote */
    /* HMAT figures, of VnNodeAccess, one per (initiator, target) pair the
     * source publishes; sorted by initiator, then target, once finished. */
    GArray *access;
    /* derived by vn_topology_finish(), sorted by node, then first CPU: */
    guint n_domains;
    VnCacheDomain *domains;
    gboolean domains_assumed; /* no CPU under an L3 the source knew: a domain per node */
    GArray *l3;               /* building only: of VnCacheDomain (node unused) */
    guint smt_width;          /* max threads per core seen */
    gchar *source;            /* human description of where this came from */
    /* derived by vn_topology_finish(): */
    gint *cpu_index; /* os id -> index into cpus, or -1 */
    gboolean finished;
} VnTopology;

VnTopology *vn_topology_new(const gchar *source);
void vn_topology_free(VnTopology *t);

/* Building (plugin/ only).  Returns the node index. */
guint vn_topology_add_node(VnTopology *t, guint os_id, guint64 mem_total_kib);
void vn_topology_add_cpu(VnTopology *t, guint os_id, gint node_index, guint core, guint package);
void vn_topology_add_hugepages(VnTopology *t, guint node_index, guint64 size_kib, guint64 total,
                               guint64 free);
/* One last-level (L3) cache and the CPUs (os ids) that share it; `cpus`
 * is copied.  CPUs the topology does not have are ignored; a CPU in two
 * caches makes vn_topology_finish() fail.  When no CPU is under one, every
 * node is one cache domain and `domains_assumed` is set. */
void vn_topology_add_l3(VnTopology *t, const VnBitmap *cpus, guint64 size_kib);
/* Distances by node index; call after all nodes are added.  Without any
 * call, vn_topology_finish() assumes 10 local / 20 remote. */
void vn_topology_set_distance(VnTopology *t, guint from, guint to, guint value);
/* One HMAT figure by node index (call after all nodes are added); a
 * second value for the same pair and kind replaces the first. */
void vn_topology_set_access(VnTopology *t, guint initiator, guint target, VnAccessKind kind,
                            guint value);
/* CPU ids must stay below this (Linux has at most 8192 CPUs; hwloc gives
 * a PU without an OS index as (unsigned)-1). */
#define VN_TOPOLOGY_MAX_CPU_ID (1u << 20)
/* Validates and derives: CPU bitmaps per node, SMT width, shared-CPU owners,
 * cache domains.
 * Errors: VN_TOPOLOGY_ERROR_INVALID with a one-line reason. */
gboolean vn_topology_finish(VnTopology *t, GError **error);

/* Appends "; <note>" to `source` (what a reader or a setting changed, or
 * a warning about input it ignored); the note is copied. */
void vn_topology_add_source_note(VnTopology *t, const gchar *note);

gint vn_topology_node_by_os_id(const VnTopology *t, guint os_id);
/* Distance from node index a to b (inline: a plan reads it hundreds of times). */
static inline guint
vn_topology_distance(const VnTopology *t, guint a, guint b)
{
    return t->distance[a * t->n_nodes + b];
}
const VnCpu *vn_topology_cpu(const VnTopology *t, guint os_id);
/* Number of CPUs on node i (0 for memory-only and CPU-sharing nodes). */
guint vn_topology_node_ncpus(const VnTopology *t, guint i);
gboolean vn_topology_node_is_memory_only(const VnTopology *t, guint i);
/* What node i can hand out now: its free memory plus what the kernel
 * reclaims on demand (page cache, reclaimable slab), at most its total;
 * G_MAXUINT64 when its free memory is unknown. */
guint64 vn_topology_node_available_kib(const VnTopology *t, guint i);
/* The HMAT figures from node `initiator` to node `target` (node indices),
 * or NULL when the source publishes none. */
const VnNodeAccess *vn_topology_access(const VnTopology *t, guint initiator, guint target);
/* Node distances from the HMAT read latencies: for each CPU node i with a
 * local figure, d(i, j) = 10 * latency(i -> j) / latency(i -> i), rounded,
 * at least 10; a pair published one way only gets the same value both
 * ways; other pairs keep theirs.  Done when `always`, or when the
 * distances are assumed or uniform (one value off the diagonal).  Returns
 * TRUE when the matrix changed (distances_assumed is then FALSE). */
gboolean vn_topology_use_hmat_distances(VnTopology *t, gboolean always);
/* Whether the source publishes any HMAT read latency. */
gboolean vn_topology_has_hmat_latency(const VnTopology *t);
/* The cache domain CPU `os_id` is in, or NULL (no such CPU, or no node). */
const VnCacheDomain *vn_topology_cpu_domain(const VnTopology *t, guint os_id);

#define VN_TOPOLOGY_ERROR (vn_topology_error_quark())
GQuark vn_topology_error_quark(void);
typedef enum {
    VN_TOPOLOGY_ERROR_INVALID,
    VN_TOPOLOGY_ERROR_MAX
} VnTopologyError;

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnTopology, vn_topology_free)
