/* vn-history.h: the history of placement decisions and moves.
 *
 * <state_dir>/history.log holds one JSON object per line:
 *   {"time": "2026-11-29T21:00:00Z", "vm": "web", "phase": "prepare",
 *    "decision": "reserved", "nodes": "0,1", "reason": "fits on one node"}
 * "time" is ISO 8601 UTC; "nodes" a node list ("" for none); "phase" is
 * the hook phase or, for vnumad, "rebalance".  Each line is one O_APPEND
 * write (concurrent writers never interleave); at 1 MiB the file is
 * renamed to history.log.1 (one generation kept).  The qemu hook writes
 * it (hooks/vn-hook-log.c); vnumad appends its moves with
 * vn_history_append(); `vnumactl log` reads it with vn_history_read().
 */
#pragma once

#include <glib.h>

#define VN_HISTORY_FILE "history.log"
#define VN_HISTORY_MAX_BYTES (1024 * 1024)

#define VN_HISTORY_ERROR (vn_history_error_quark())
GQuark vn_history_error_quark(void);
typedef enum {
    VN_HISTORY_ERROR_IO,    /* unreadable file, state dir not writable */
    VN_HISTORY_ERROR_PARSE, /* a line that is not a history object */
    VN_HISTORY_ERROR_MAX
} VnHistoryError;

typedef struct {
    gchar *time; /* ISO 8601 */
    gchar *vm;
    gchar *phase;
    gchar *decision;
    gchar *nodes;  /* "" when none */
    gchar *reason; /* "" when none */
} VnHistoryEntry;

VnHistoryEntry *vn_history_entry_new(const gchar *time, const gchar *vm, const gchar *phase,
                                     const gchar *decision, const gchar *nodes,
                                     const gchar *reason);
void vn_history_entry_free(VnHistoryEntry *e);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnHistoryEntry, vn_history_entry_free)

/* Parses one line; `origin` ("history.log:12") names it in errors.  Keys
 * other than the six above are ignored (newer writers may add some);
 * "time", "vm" and "decision" are required strings. */
VnHistoryEntry *vn_history_parse_line(const gchar *line, const gchar *origin, GError **error);

/* The last `max_entries` entries (0 = all) of history.log.1 then
 * history.log in `state_dir`, oldest first.  Missing files are an empty
 * history.  Returns a GPtrArray of VnHistoryEntry*. */
GPtrArray *vn_history_read(const gchar *state_dir, guint max_entries, GError **error);

/* Appends `e` as one line (rotating at VN_HISTORY_MAX_BYTES); creates
 * `state_dir` (0755) when needed. */
gboolean vn_history_append(const gchar *state_dir, const VnHistoryEntry *e, GError **error);
