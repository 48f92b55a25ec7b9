/* vn-topology-cache.h: a finished topology kept on disk between hook runs.
 *
 * The qemu hook runs once per VM phase and must answer in milliseconds;
 * discovering a large host with hwloc (or parsing a big hwloc XML) costs
 * more than everything else it does.  The host's shape does not change
 * between two VM starts, so the hook keeps it in
 * <state_dir>/topology.cache (GVariant), tagged with a key that changes whenever
 * the shape may have (see vn_topology_cache_key()).  Free memory and
 * hugepages are NOT trusted from the cache: the caller re-reads them.
 *
 * The file holds what the loaders feed vn_topology_new()/add_*() before
 * vn_topology_finish(), so a cached topology is rebuilt through the same
 * validation as a fresh one and comes out equal to it.
 */
#pragma once

#include <glib.h>
#include "vn-topology.h"

#define VN_TOPOLOGY_CACHE_FILE "topology.cache"

#define VN_TOPOLOGY_CACHE_ERROR (vn_topology_cache_error_quark())
GQuark vn_topology_cache_error_quark(void);
typedef enum {
    VN_TOPOLOGY_CACHE_ERROR_IO,      /* cannot write the file */
    VN_TOPOLOGY_CACHE_ERROR_CORRUPT, /* not a cache file we wrote */
    VN_TOPOLOGY_CACHE_ERROR_MAX
} VnTopologyCacheError;

/* The key for a source: `topology_file` (an hwloc XML, by path, size and
 * mtime) or, when NULL, the live host (boot id, online CPUs and nodes,
 * this process's allowed CPUs and memory nodes).  NULL when the live
 * host's identity cannot be read: then do not cache. */
gchar *vn_topology_cache_key(const gchar *topology_file);

/* The cached topology if `path` exists and carries `key`; NULL with no
 * error when missing or stale; NULL with an error when unreadable. */
VnTopology *vn_topology_cache_load(const gchar *path, const gchar *key, GError **error);

/* The cache's serialized form of `t` under `key`, as
 * vn_topology_cache_save() writes it; also the form in which
 * vn_topology_load_isolated()'s child hands its topology back.  Returns
 * new bytes. */
GBytes *vn_topology_cache_to_bytes(const VnTopology *t, const gchar *key);

/* Rebuilds (and finishes) a topology from such bytes (any bytes: the
 * file is input like any other): NULL without an error when its key is
 * not `key`; NULL with _CORRUPT, the message naming `what`, when it is
 * not a cache of this version or malformed. */
VnTopology *vn_topology_cache_from_bytes(GBytes *data, const gchar *what, const gchar *key,
                                         GError **error);

/* Writes `t` under `key`, atomically (temp + rename). */
gboolean vn_topology_cache_save(const VnTopology *t, const gchar *path, const gchar *key,
                                GError **error);
