/* vn-distances.h: `[topology] distances`, the node distances placement
 * uses (vn-config.h):
 *   slit      the topology source's matrix; when it has none, or a uniform
 *             one (one value off the diagonal, which tells nothing), and
 *             the source publishes HMAT read latencies, distances derived
 *             from them (vn_topology_use_hmat_distances())
 *   hmat      the HMAT-derived distances whenever the source has them
 *   measured  the saved probe (vn-probe-file.h)
 * Whatever is used beyond the source's own matrix, or a setting that
 * cannot be honoured, is said in `t->source`. */
#pragma once

#include <glib.h>
#include "vn-config.h"
#include "vn-topology.h"

/* Applies the setting of `c` (NULL: the defaults) to finished `t`.
 * `this_host`: `t` describes this host or the captured one below
 * `sysroot`, whose saved probe may then apply.  Returns TRUE when the
 * distances changed. */
gboolean vn_distances_apply(VnTopology *t, const VnConfig *c, gboolean this_host,
                            const gchar *sysroot);
