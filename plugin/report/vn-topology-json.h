/* vn-topology-json.h: the host as JSON (`vnumactl topology --json`).
 *
 * Shape (other tools and tests rely on it; extend, never rename):
 *   {"source": str, "distances_assumed": bool, "cache_domains_assumed": bool,
 *    "nodes": [{"id": os_id, "cpus": "0-3", "cpu_count": n,
 *               "memory_total_mib": n, "memory_free_mib": n|null,
 *               "memory_only": bool, "cpu_owner": os_id|null,
 *               "subtype": str|null,
 *               "tier": "dram"|"slow"|"special", "tier_reason": str,
 *               "kernel_tier": n|null,          memory_tierN of the kernel
 *               "memory_side_cache_mib": n|null, cache in front of the memory
 *               "access": [{"from_node": os_id,  HMAT figures from that node's CPUs
 *                           "read_latency_ns": n|null, "write_latency_ns": n|null,
 *                           "read_bandwidth_mibs": n|null,
 *                           "write_bandwidth_mibs": n|null}],
 *               "hugepages": [{"size_kib": n, "total": n, "free": n}],
 *               "cache_domains": [{"id": n, "cpus": "0-5", "cpu_count": n,
 *                                  "l3_kib": n|null}],
 *               "load": {"committed_vcpus": n, "committed_memory_mib": n,
 *                        "cpu_busy": x|null}}],
 *    "distances": [[...], ...],        rows and columns in "nodes" order
 *    "notes": [str, ...]}              what the source did not say (see below)
 * A cache domain's id is its index in the topology's domains.
 * Memory in MiB rounded down; cpu_busy a fraction 0..1 (4 decimals).
 */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-load.h"
#include "vn-topology.h"

/* Returns a new JSON object; `load` may be NULL (no committed load,
 * CPU busy unknown). */
JsonNode *vn_topology_to_json(const VnTopology *t, const VnLoad *load);

/* One line each for what the topology assumed because its source did not
 * say: distances, cache domains.  Returns a new array of strings. */
GPtrArray *vn_topology_notes(const VnTopology *t);
