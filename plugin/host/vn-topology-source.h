/* vn-topology-source.h: build a VnTopology from any source.
 *
 * Every loader returns a finished topology (vn_topology_finish() done) or
 * NULL with `error` set; its `source` says where it came from.  Messages
 * name the input (file path or synthetic string) and what is wrong.
 *
 * Which CPUs count: only PUs that hwloc reports as allowed (hwloc drops
 * disallowed PUs and NUMA nodes unless asked not to).  For the live host that
 * is this process's cpuset; for an XML file it is the allowed set recorded by
 * whoever ran lstopo.  A node whose CPUs are all disallowed therefore comes
 * out without CPUs, like a memory-only node.
 *
 * Which node a CPU belongs to: the NUMA node with the smallest cpuset that
 * contains it (ties: DRAM or untyped memory before HBM/CXL, then hwloc's
 * order).  A CPU in no node's cpuset has node -1 (CPUs without local memory).
 * A node whose cpuset equals an earlier node's (DRAM + HBM behind one
 * package) gets no CPUs and `cpu_owner` set to that node; a node whose cpuset
 * covers several smaller nodes (CXL memory attached to the whole machine)
 * gets no CPUs and stays memory-only.
 */
#pragma once

#include <glib.h>
#include "vn-topology.h"

/* This host: hwloc's native discovery, then free memory and hugepages from
 * /sys through vn_topology_read_sysfs_memory(t, "/"). */
VnTopology *vn_topology_load_live(GError **error);

/* An hwloc XML export (lstopo foo.xml).  hwloc 3.0 files (version="3.0"),
 * which hwloc 2.x refuses, are read as 2.0 after dropping their top-level
 * <info> elements; `source` then says "hwloc 3.0 XML read as 2.0". */
VnTopology *vn_topology_load_hwloc_xml(const gchar *path, GError **error);

/* An hwloc synthetic description such as "pack:2 numa:2 core:8 pu:2".
 * Synthetic topologies have no distances (10 local / 20 remote assumed). */
VnTopology *vn_topology_load_synthetic(const gchar *description, GError **error);

/* The host part of `virsh capabilities`: <host><topology><cells> with
 * memory, page counts, <distances> and <cpus>.  Cores are keyed by
 * (socket_id, die_id, cluster_id, core_id); a CPU without core_id is its own
 * core, one without socket_id is on its cell's package.  The smallest page
 * size of a cell is its base page and is not a hugepage; hugepage counts go
 * in as total == free (capabilities do not say what is free). */
VnTopology *vn_topology_load_capabilities(const gchar *path, GError **error);

/* A captured host: the Linux file-system root DIR (a copy of /sys, or what
 * hwloc-gather-topology saves; hwloc reads it as `lstopo --input DIR`
 * does, HWLOC_FSROOT), then its sysfs nodes as for the live host, and its
 * free memory and hugepages through vn_topology_read_sysfs_memory(t, DIR).
 * hwloc runs in a child (vn_topology_load_isolated()).  A tree without the
 * files hwloc needs for CPUs (sys/devices/system/cpu/cpuN/topology/...) or
 * nodes (nodeN/cpumap, node/online) is refused with the first missing file
 * named: hwloc would otherwise fall back to a one-CPU machine, or to this
 * host's own CPUs.  Errors: _IO (missing file), _PARSE, _INVALID, _HWLOC. */
VnTopology *vn_topology_load_sysroot(const gchar *sysroot, GError **error);

/* Any loader of the above with one string argument. */
typedef VnTopology *(*VnTopologyLoadFunc)(const gchar *arg, GError **error);

/* Crash isolation for loaders that hand untrusted input to hwloc (XML and
 * synthetic strings from elsewhere, captured sysfs trees): `load(arg)`
 * runs in a short-lived child process, which writes the topology back;
 * this process never runs hwloc on the input.  Errors are the loader's
 * own, or, naming `what` (the file, string or directory):
 *   "<what>: hwloc crashed reading it (signal N)"        child killed
 *   "<what>: hwloc did not finish reading it within 30 s" child killed
 *   "<what>: hwloc failed reading it (import process exited with status N)"
 * (all VN_TOPOLOGY_SOURCE_ERROR_HWLOC).  The result equals `load(arg)`
 * in-process except for free memory, which the child does not hand back
 * (unknown; the caller measures it).  Costs a fork(), a pipe and a JSON
 * round trip: about 1.5 ms more CPU for a small host, 5-10 ms for 256-384
 * CPUs (tests/bench/bench-topology-import).  Call from a single-threaded
 * process, or before starting threads: the child only runs this library's
 * code, but a lock another thread held at fork() would stall it until the
 * timeout. */
VnTopology *vn_topology_load_isolated(VnTopologyLoadFunc load, const gchar *arg, const gchar *what,
                                      GError **error);
#define VN_TOPOLOGY_ISOLATED_TIMEOUT_S 30
/* Upper bound of the child's answer (the JSON of a 4096-CPU host is ~100 KB). */
#define VN_TOPOLOGY_ISOLATED_MAX_BYTES (16 * 1024 * 1024)

/* Reads <sysroot>/sys/devices/system/node/node<os_id>/meminfo (MemFree) and
 * .../hugepages/hugepages-<size>kB/{nr,free}_hugepages into every node of
 * `t` (mem_free_kib, hugepages: an existing entry of the same size is
 * updated, others are added).  sysroot "/" for the live host.  A node
 * without meminfo is an error; a node without a hugepages directory has no
 * hugepages.  May be called on a finished topology. */
gboolean vn_topology_read_sysfs_memory(VnTopology *t, const gchar *sysroot, GError **error);

#define VN_TOPOLOGY_SOURCE_ERROR (vn_topology_source_error_quark())
GQuark vn_topology_source_error_quark(void);
typedef enum {
    VN_TOPOLOGY_SOURCE_ERROR_IO,      /* missing or unreadable file */
    VN_TOPOLOGY_SOURCE_ERROR_PARSE,   /* malformed XML, bad synthetic string, bad sysfs line */
    VN_TOPOLOGY_SOURCE_ERROR_INVALID, /* well-formed but not a usable topology */
    VN_TOPOLOGY_SOURCE_ERROR_HWLOC,   /* hwloc refused the input or failed */
    VN_TOPOLOGY_SOURCE_ERROR_MAX
} VnTopologySourceError;
