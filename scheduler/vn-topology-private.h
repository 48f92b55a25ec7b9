/* vn-topology-private.h: the steps of vn_topology_finish() that live in
 * other files of scheduler/; not for other callers. */
#pragma once

#include "vn-topology.h"

/* Sorts the HMAT figures by initiator, then target (after the nodes are in
 * kernel order). */
void vn_topology_finish_access(VnTopology *t);
/* Derives every node's tier and tier_reason (after CPUs, shared CPU sets
 * and the HMAT figures). */
void vn_topology_finish_tiers(VnTopology *t);
