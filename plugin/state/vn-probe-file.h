/* vn-probe-file.h: the saved probe, <state_dir>/probe.json, and
 * `[topology] distances = measured`.
 *
 *   {"version": 1, "boot_id": str, "nodes": [os_id, ...],
 *    "latency_ns": [[x|null, ...], ...], "bandwidth_mbs": [[...], ...]}
 * Rows are CPU nodes, columns memory nodes, both in "nodes" order (kernel
 * node numbers); whole ns and MB/s, null where not measured.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "vn-config.h"
#include "vn-probe.h"
#include "vn-topology.h"

#define VN_PROBE_FILE "probe.json"

#define VN_PROBE_FILE_ERROR (vn_probe_file_error_quark())
GQuark vn_probe_file_error_quark(void);
typedef enum {
    VN_PROBE_FILE_ERROR_IO,       /* cannot write or read the file */
    VN_PROBE_FILE_ERROR_CORRUPT,  /* not a probe file of this version */
    VN_PROBE_FILE_ERROR_MISMATCH, /* measured on other nodes than `t` has */
    VN_PROBE_FILE_ERROR_MAX
} VnProbeFileError;

/* The file's object for `p`, measured on `t` during boot `boot_id`. */
JsonNode *vn_probe_file_to_json(const VnProbe *p, const VnTopology *t, const gchar *boot_id);
/* Back to a probe on `t`'s node indices; `ret_boot_id` gets the boot id.
 * Errors name `what`: _CORRUPT, _MISMATCH. */
VnProbe *vn_probe_file_from_json(JsonNode *root, const gchar *what, const VnTopology *t,
                                 gchar **ret_boot_id, GError **error);

/* Writes <state_dir>/probe.json atomically, with the boot id read below
 * `sysroot`; returns the path written in `ret_path` (optional). */
gboolean vn_probe_file_save(const VnProbe *p, const VnTopology *t, const gchar *state_dir,
                            const gchar *sysroot, gchar **ret_path, GError **error);

/* With `c->distances` measured: replaces `t`'s distances by those derived
 * from the saved probe (vn_probe_distances(); a pair it did not measure
 * keeps its value) and says so in `t->source`.  A probe that is missing,
 * unreadable, from another boot (the boot id below `sysroot` differs) or
 * of other nodes is ignored: `t` keeps its distances and its source gets
 * the warning.  With slit, nothing changes.  Returns TRUE when the
 * measured distances were applied. */
gboolean vn_probe_file_apply(VnTopology *t, const VnConfig *c, const gchar *sysroot);
