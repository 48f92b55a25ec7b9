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

/* Re-raises a VN_XML_FILE_ERROR in this module's domain (IO stays IO,
 * everything else is PARSE), keeping its message. */
void vn_topology_source_propagate_xml(GError **error, const GError *xml_error);
