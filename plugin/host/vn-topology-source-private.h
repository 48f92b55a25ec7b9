/* vn-topology-source-private.h: shared between the vn-topology-*.c loaders
 * of plugin/; not for other callers. */
#pragma once

#include <hwloc.h>
#include "vn-topology-source.h"

typedef struct hwloc_topology VnHwlocTopology;
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnHwlocTopology, hwloc_topology_destroy)

/* An initialised hwloc topology with the filters every loader uses. */
hwloc_topology_t vn_hwloc_topology_new(void);

/* Converts a loaded hwloc topology and finishes it; `source` is copied.
 * Errors: VN_TOPOLOGY_SOURCE_ERROR_INVALID. */
VnTopology *vn_topology_from_hwloc(hwloc_topology_t topo, const gchar *source, GError **error);
/* The same without vn_topology_finish(), for loaders that add to it. */
VnTopology *vn_topology_build_from_hwloc(hwloc_topology_t topo, const gchar *source);

/* Adds to unfinished `t` the nodes <sysroot>/sys/devices/system/node lists
 * that it lacks (hwloc shows no node for a CPU-only node) with their CPUs,
 * and then takes the whole distance matrix from sysfs
 * (vn-topology-sysfs-nodes.c).  Errors: _IO, _PARSE. */
gboolean vn_topology_add_sysfs_nodes(VnTopology *t, const gchar *sysroot, GError **error);

/* Reads into unfinished `t` the kernel memory tier of each node
 * (<sysroot>/sys/devices/virtual/memory_tiering) and the HMAT figures of
 * nodeN/access{1,0}/initiators and the memory-side caches of
 * nodeN/memory_side_cache (vn-topology-sysfs-hmat.c).  Both are
 * optional: bad files leave that part out and add a warning to
 * `t->source`; never an error. */
void vn_topology_add_sysfs_tiers(VnTopology *t, const gchar *sysroot);

/* Re-raises a VN_XML_FILE_ERROR in this module's domain (IO stays IO,
 * everything else is PARSE), keeping its message. */
void vn_topology_source_propagate_xml(GError **error, const GError *xml_error);

/* vn_topology_load_isolated() with another timeout, in milliseconds (the
 * public one waits VN_TOPOLOGY_ISOLATED_TIMEOUT_S); for tests. */
VnTopology *vn_topology_load_isolated_timeout(VnTopologyLoadFunc load, const gchar *arg,
                                              const gchar *what, guint timeout_ms, GError **error);
