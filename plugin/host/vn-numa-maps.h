/* vn-numa-maps.h: where a process's memory is, from /proc/<pid>/numa_maps.
 *
 * Each line of numa_maps is one mapping: "<addr> <policy> [key=value ...]",
 * with "N<node>=<pages>" for the pages present on each node and
 * "kernelpagesize_kB=<k>" for their size (4 when absent, as on kernels
 * before 2.6.36).  Summing pages x page size per node gives the resident
 * memory of the process on every node, hugepages included.
 *
 * The parser is pure (text in, numbers out) so it is tested on fixture
 * text; the reader takes a sysroot like every other /proc reader here.
 */
#pragma once

#include <glib.h>

#define VN_NUMA_MAPS_ERROR (vn_numa_maps_error_quark())
GQuark vn_numa_maps_error_quark(void);
typedef enum {
    VN_NUMA_MAPS_ERROR_READ,  /* pid file or numa_maps missing/unreadable */
    VN_NUMA_MAPS_ERROR_PARSE, /* text does not look like the kernel's */
    VN_NUMA_MAPS_ERROR_MAX
} VnNumaMapsError;

/* Resident memory per host node (kernel node numbers). */
typedef struct {
    guint n_nodes;     /* 1 + highest node seen; 0 when nothing resident */
    guint64 *node_kib; /* n_nodes entries, KiB per node */
    guint64 total_kib; /* sum over nodes */
} VnNumaUsage;

void vn_numa_usage_free(VnNumaUsage *u);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnNumaUsage, vn_numa_usage_free)

/* KiB on node `node_os_id` (0 for a node never seen). */
guint64 vn_numa_usage_node_kib(const VnNumaUsage *u, guint node_os_id);

/* Share (0..1) of the resident memory on the nodes in `nodes` (array of
 * guint kernel node numbers); < 0 when nothing is resident. */
gdouble vn_numa_usage_locality(const VnNumaUsage *u, const GArray *nodes);

/* Parses the text of a numa_maps file; `origin` names it in errors.  Node
 * numbers above 4095 and lines whose first field is not a hex address are
 * VN_NUMA_MAPS_ERROR_PARSE. */
VnNumaUsage *vn_numa_maps_parse(const gchar *text, const gchar *origin, GError **error);

/* Reads <sysroot>/proc/<pid>/numa_maps (sysroot NULL or "" = "/"). */
VnNumaUsage *vn_numa_maps_read(const gchar *sysroot, gint64 pid, GError **error);

/* The pid libvirt recorded for a running domain: <sysroot><run_dir>/<name>.pid
 * (run_dir as vn_ledger_libvirt_run_dir()).  FALSE with
 * VN_NUMA_MAPS_ERROR_READ when missing or not a positive number. */
gboolean vn_numa_maps_domain_pid(const gchar *sysroot, const gchar *run_dir, const gchar *name,
                                 gint64 *ret_pid, GError **error);
