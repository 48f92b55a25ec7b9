/* vn-host-load.h: measured load of the host's nodes.
 *
 * CPU busy per node comes from the per-CPU lines of <sysroot>/proc/stat
 * summed over the node's CPUs between two snapshots; the numastat counters
 * come from <sysroot>/sys/devices/system/node/nodeN/numastat.  Every reader
 * takes a sysroot ("/" or NULL for the live host) so tests replay fixtures.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-topology.h"

#define VN_HOST_LOAD_ERROR (vn_host_load_error_quark())
GQuark vn_host_load_error_quark(void);
typedef enum {
    VN_HOST_LOAD_ERROR_READ,  /* file missing or unreadable */
    VN_HOST_LOAD_ERROR_PARSE, /* file does not look like the kernel's */
    VN_HOST_LOAD_ERROR_MAX
} VnHostLoadError;

/* Jiffies of one CPU, from its "cpuN" line.  busy = user + nice + system +
 * irq + softirq + steal; idle = idle + iowait (guest time is already part
 * of user/nice, so it is not added again). */
typedef struct {
    guint64 busy;
    guint64 idle;
    gboolean present; /* the CPU had a line (offline CPUs have none) */
} VnCpuTimes;

/* One reading of /proc/stat, indexed by CPU os id. */
typedef struct {
    guint n_cpus; /* 1 + highest CPU id seen */
    VnCpuTimes *cpus;
} VnCpuSnapshot;

void vn_cpu_snapshot_free(VnCpuSnapshot *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnCpuSnapshot, vn_cpu_snapshot_free)

/* Parses the text of a /proc/stat; `origin` names it in errors. */
VnCpuSnapshot *vn_cpu_snapshot_parse(const gchar *text, const gchar *origin, GError **error);
/* Reads <sysroot>/proc/stat (sysroot NULL = "/"). */
VnCpuSnapshot *vn_cpu_snapshot_read(const gchar *sysroot, GError **error);

/* Pure: sets load->nodes[i].cpu_busy (0..1) for every node with CPUs from
 * the jiffies spent between `before` and `after` (before NULL: since boot).
 * Nodes without CPUs, or whose CPUs did not tick, keep cpu_busy < 0
 * (unknown).  CPUs missing from either snapshot are left out. */
void vn_host_cpu_busy_compute(const VnTopology *t, const VnCpuSnapshot *before,
                              const VnCpuSnapshot *after, VnLoad *load);

/* Reads, sleeps `interval_ms`, reads again, and fills cpu_busy as above.
 * interval_ms 0 uses the counters since boot (one read, no sleep), which
 * is what a replayed fixture sysroot wants. */
gboolean vn_host_measure_cpu_busy(const gchar *sysroot, const VnTopology *t, VnLoad *load,
                                  guint interval_ms, GError **error);

/* Counters of one node's numastat file (pages). */
typedef struct {
    guint64 numa_hit;
    guint64 numa_miss;
    guint64 numa_foreign;
    guint64 interleave_hit;
    guint64 local_node;
    guint64 other_node;
} VnNumastat;

/* Reads <sysroot>/sys/devices/system/node/node<os_id>/numastat.  Keys the
 * kernel may add later are ignored; a missing known key is an error. */
gboolean vn_host_read_numastat(const gchar *sysroot, guint node_os_id, VnNumastat *ret_stat,
                               GError **error);
