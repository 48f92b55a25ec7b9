/* vn-topology-json.h: the host as JSON (`vnumactl topology --json`).
 *
 * Shape (other tools and tests rely on it; extend, never rename):
 *   {"source": str, "distances_assumed": bool,
 *    "nodes": [{"id": os_id, "cpus": "0-3", "cpu_count": n,
 *               "memory_total_mib": n, "memory_free_mib": n|null,
 *               "memory_only": bool, "cpu_owner": os_id|null,
 *               "subtype": str|null,
 *               "hugepages": [{"size_kib": n, "total": n, "free": n}],
 *               "load": {"committed_vcpus": n, "committed_memory_mib": n,
 *                        "cpu_busy": x|null}}],
 *    "distances": [[...], ...]}        rows and columns in "nodes" order
 * Memory in MiB rounded down; cpu_busy a fraction 0..1 (4 decimals).
 */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-load.h"
#include "vn-topology.h"

/* Returns a new JSON object; `load` may be NULL (no committed load,
 * CPU busy unknown). */
JsonNode *vn_topology_to_json(const VnTopology *t, const VnLoad *load);
