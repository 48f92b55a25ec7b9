/* vn-probe-json.h: `vnumactl probe --json`.
 *
 *   {"probe": {the saved probe's object, vn-probe-file.h},
 *    "milliseconds": n,                  wall time of the measurement
 *    "distances": [[n|null, ...], ...],  derived: 10 x latency / local
 *    "firmware_distances": [[n, ...], ...],
 *    "findings": [{"kind": "flat"|"inversion"|"asymmetry", "text": str}],
 *    "notes": [str, ...]}                pairs not measured, and why
 * Rows and columns in the probe's "nodes" order.
 */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-probe.h"
#include "vn-topology.h"

/* `findings` of VnProbeFinding (vn_probe_compare()), `notes` of strings;
 * either may be NULL.  Returns a new node. */
JsonNode *vn_probe_report_to_json(const VnProbe *p, const VnTopology *t, const gchar *boot_id,
                                  gdouble seconds, GPtrArray *findings, GPtrArray *notes);
