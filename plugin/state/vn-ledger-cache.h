/* vn-ledger-cache.h: ledger.cache, the records of ledger.json in GVariant
 * form beside it, so that the hook (which reads the whole ledger at every
 * VM start) does not parse JSON.
 *
 * ledger.json stays the record of truth; the cache is derived from it and
 * names the exact file it was derived from by a stamp (device, inode,
 * size, modification and change times in nanoseconds, taken after the
 * rename that put the file in place).  A cache whose stamp is not the one
 * of today's ledger.json (the ledger was edited, restored or replaced by
 * hand, a writer died between the two renames, an older vnuma wrote the
 * ledger), or whose content is not valid, is ignored: the ledger is then
 * read from ledger.json as before and, under the lock, the cache written
 * again.  Each record carries its compact JSON text too, so rewriting
 * the ledger reuses it instead of building unchanged records anew.
 *
 * Only writers that hold the ledger lock write the cache (temp file and
 * rename, like the ledger; no fsync: a cache lost in a crash costs one
 * JSON parse). */
#pragma once
#include <glib.h>
#include "vn-ledger.h"

typedef struct {
    guint64 dev, ino, size, mtime_ns, ctime_ns;
} VnLedgerStamp;

/* The stamp of the file at `path`; FALSE (errno set) when it cannot be
 * stat()ed. */
gboolean vn_ledger_stamp_of(const gchar *path, VnLedgerStamp *ret_stamp);

/* The serialized cache (a new GBytes). */
GBytes *vn_ledger_cache_build(const VnLedgerStamp *stamp, guint64 generation, GPtrArray *records,
                              GPtrArray *texts);

/* Reads `data` (any bytes: a cache is untrusted input like any file).
 * TRUE when it is a cache of this version whose stamp equals `stamp`
 * (any stamp when `stamp` is NULL) and whose every record is valid; then
 * the records (a new array, sorted by name as vn_ledger_parse() sorts
 * them), the generation and, when `ret_as_read` is not NULL, each
 * record's text (a new table keyed by the returned records,
 * vn_ledger_as_read_add_text()'s kind: a read-only reader skips it).  FALSE, with
 * nothing returned, otherwise: never an error, the caller reads
 * ledger.json. */
gboolean vn_ledger_cache_parse(GBytes *data, const VnLedgerStamp *stamp, GPtrArray **ret_records,
                               guint64 *ret_generation, GHashTable **ret_as_read);

/* vn_ledger_cache_parse() of the file at `path`. */
gboolean vn_ledger_cache_read(const gchar *path, const VnLedgerStamp *stamp,
                              GPtrArray **ret_records, guint64 *ret_generation,
                              GHashTable **ret_as_read);

/* Writes the cache at `path` (temp file + rename).  On failure the stale
 * cache is removed so that it cannot be mistaken for the new ledger (its
 * stamp would not match anyway) and FALSE is returned; callers go on, a
 * missing cache only costs the next reader a JSON parse. */
gboolean vn_ledger_cache_write(const gchar *path, GBytes *cache);
