/* vn-placement-json.h: a placement as JSON, the contract of `vnumactl plan
 * --json`, the planning API and the tests:
 *
 *   {"placement": {"cells": [{"id", "node", "vcpus": "0-3", "cpus": "4-7",
 *                             "memory_mib"}],
 *                  "vcpu_pins": ["4-7", ...], "emulator": {"cpus"},
 *                  "iothreads": [{"id", "cpus"}], "dedicated",
 *                  "threads_per_core", "dies" (when > 1), "hugepage_kib",
 *                  "isolated_cpus"},
 *    "reasons": [...],
 *    "candidates": [...]}           (only with `with_candidates`)
 *
 * "node" is the host kernel node number; cpulists are strings.
 */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-placement.h"
#include "vn-rebalance.h"
#include "vn-topology.h"

JsonNode *vn_placement_to_json(const VnTopology *t, const VnPlacement *p, gboolean with_candidates);
/* Adds member `member`: an array of the strings in `strings` (NULL: an
 * empty array). */
void vn_json_add_strings(JsonBuilder *b, const gchar *member, GPtrArray *strings);
/* {"error": message, "reasons": [...]} for a request that cannot be placed. */
JsonNode *vn_plan_error_to_json(const GError *error, GPtrArray *reasons);
/* Adds to the object being built in `b` the members of a rebalancing
 * round, the shape `vnumactl rebalance --json` prints and POST
 * /v1/rebalance answers:
 *   "moves": [{"vm", "cell", "from", "to", "vcpus", "memory_mib", "reason",
 *              "applied", "steps", "warning"}], "notes": [...]
 * "from"/"to" are host kernel node numbers.  `applied` (NULL: none) holds
 * one flag per move; `steps` (NULL: none) one GPtrArray of lines per move,
 * "steps" given for a move with lines; `warnings` (NULL: none) one string
 * or NULL per move, "warning" given when set; `notes` may be NULL. */
void vn_moves_add_json(JsonBuilder *b, const VnTopology *t, GPtrArray *moves, GPtrArray *notes,
                       const gboolean *applied, GPtrArray *steps, gchar **warnings);
/* The members every live move of a guest cell shares, in the object being
 * built in `b`: "vm", "cell", "from", "to" (host kernel node numbers of
 * the node indices given), "vcpus", "memory_mib".  The rebalancer's moves
 * and the engine's defragmentation moves both start so. */
void vn_move_add_json_members(JsonBuilder *b, const VnTopology *t, const gchar *vm, guint cell,
                              guint from_node, guint to_node, guint vcpus, guint64 memory_kib);
