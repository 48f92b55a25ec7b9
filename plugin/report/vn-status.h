/* vn-status.h: the host at a glance — where every VM lives, whether its
 * memory is local, and how each node is doing.
 *
 * vn_status_collect() joins the ledger's records (what vnuma placed),
 * each QEMU process's /proc/<pid>/numa_maps (where its memory really is;
 * the pid from libvirt's <run_dir>/<name>.pid) and the nodes' committed
 * load, measured CPU busy, free memory and numastat counters.  A VM's
 * memory is also summed by tier (the topology's class of each node: dram,
 * slow, special) to show how much of it sits on slower memory.  Every file
 * is read below `sysroot` so a captured host replays in tests.  Nothing
 * that cannot be measured is an error: it is marked unknown with a note.
 */
#pragma once

#include <glib.h>
#include "vn-ledger.h"
#include "vn-load.h"
#include "vn-topology.h"

/* numa_miss share warning levels (numastat: memory a node handed out
 * because the preferred node was full): above 5 % worth a look, above
 * 10 % a problem. */
#define VN_STATUS_MISS_LOOK 0.05
#define VN_STATUS_MISS_PROBLEM 0.10

typedef enum {
    VN_STATUS_LEVEL_OK,
    VN_STATUS_LEVEL_LOOK,
    VN_STATUS_LEVEL_PROBLEM,
    VN_STATUS_LEVEL_UNKNOWN,
    VN_STATUS_LEVEL_MAX
} VnStatusLevel;

const gchar *vn_status_level_to_string(VnStatusLevel l); /* "ok", "look", "problem", "unknown" */
VnStatusLevel vn_status_miss_level(gdouble miss_share);  /* < 0: unknown */

typedef struct {
    guint node_os_id;
    guint64 kib;
} VnStatusNodeMemory;

typedef struct {
    const VnLedgerRecord *record; /* borrowed from the ledger */
    gboolean measured;            /* numa_maps was read */
    gchar *not_measured;          /* why not, when !measured */
    GArray *memory;               /* of VnStatusNodeMemory, by node; measured only */
    guint64 resident_kib;
    gdouble locality; /* share on the VM's own nodes; < 0 unknown */
    /* measured only: memory by the topology's tier of the node it is on
     * (dram, slow, special); a node the topology lacks counts in
     * tier_unknown_kib */
    guint64 tier_kib[VN_MEMORY_TIER_MAX];
    guint64 tier_unknown_kib;
} VnStatusVm;

typedef struct {
    guint os_id;
    guint n_cpus;
    guint committed_vcpus;
    gdouble vcpu_capacity; /* usable CPUs x overcommit */
    guint64 committed_memory_kib;
    guint64 mem_usable_kib; /* total - reserved - headroom */
    guint64 mem_total_kib;
    guint64 mem_free_kib; /* G_MAXUINT64 unknown */
    gdouble cpu_busy;     /* < 0 unknown */
    gdouble miss_share;   /* numa_miss / (numa_hit + numa_miss); < 0 unknown */
    VnStatusLevel miss_level;
} VnStatusNode;

typedef struct {
    GPtrArray *vms; /* of VnStatusVm*, ledger order (by name) */
    GArray *nodes;  /* of VnStatusNode, topology order */
    /* the tiers the topology's nodes are in (one TRUE for a host of DRAM
     * alone); a VM's tier_kib counts only these (and unknown) */
    gboolean has_tier[VN_MEMORY_TIER_MAX];
    /* the kernel memory tier (memory_tierN) of the nodes of each tier when
     * they all share one, else -1 */
    gint kernel_tier[VN_MEMORY_TIER_MAX];
} VnStatus;

void vn_status_free(VnStatus *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnStatus, vn_status_free)

/* `records` (borrowed; must outlive the result) are the ledger's; `load`
 * carries the committed figures and measured busy for `t`'s nodes.
 * `sysroot` NULL or "" = "/"; `run_dir` as vn_ledger_libvirt_run_dir().
 * Never fails: what cannot be read is unknown. */
VnStatus *vn_status_collect(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                            GPtrArray *records, const gchar *sysroot, const gchar *run_dir);
