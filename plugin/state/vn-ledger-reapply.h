/* vn-ledger-reapply.h: which records vnumad applies live again, and when
 * it stops trying.
 *
 * The qemu hook marks a record needs_apply and leaves the live apply to a
 * detached `vnumactl apply`; when that fails (libvirt busy, the domain's
 * job lock, the helper killed) the VM keeps running where it was while
 * the ledger counts it where the record says.  vnumad
 * (daemon/vnd-reapply.c) applies such records again; this is its
 * bookkeeping, pure (no clock, no I/O: `now_ms` is given, any monotonic
 * milliseconds):
 * - a record is due when it is a running VM's (state running, no expiry,
 *   not foreign) with needs_apply, and was seen so, unchanged, at least
 *   `grace_ms` before (a sample earlier): the hook's own detached apply
 *   gets that long to take the record's apply lock (vn-apply-lock.h).
 *   The first sight counts, not the record's `time`, which a
 *   defragmentation move keeps from the record it copies;
 * - a record whose apply failed `max_failures` times in a row is not due
 *   again until it changes (any member: the hook or a move wrote it anew);
 * - a record that left the ledger or no longer needs applying is
 *   forgotten, its failures with it. */
#pragma once

#include <glib.h>
#include "vn-ledger.h"

/* The default bound on failures in a row. */
#define VN_REAPPLY_MAX_FAILURES 3

typedef struct _VnReapply VnReapply;

/* An empty book; `max_failures` >= 1. */
VnReapply *vn_reapply_new(guint max_failures);
void vn_reapply_free(VnReapply *t);

/* Notes the records of a ledger snapshot (VnLedgerRecord *) seen at
 * `now_ms` and returns the due ones (borrowed from `records`, in their
 * order; an empty array when none). */
GPtrArray *vn_reapply_due(VnReapply *t, GPtrArray *records, gint64 now_ms, guint grace_ms);

typedef enum {
    VN_REAPPLY_APPLIED, /* applied: forgotten */
    VN_REAPPLY_RETRY,   /* failed, due again at the next sample */
    VN_REAPPLY_GAVE_UP, /* failed max_failures times in a row: left alone */
    VN_REAPPLY_OUTCOME_MAX
} VnReapplyOutcome;

const gchar *vn_reapply_outcome_to_string(VnReapplyOutcome o);

/* Records how an apply of `r` (as vn_reapply_due() returned it) ended;
 * *ret_failures (may be NULL): its failures in a row now. */
VnReapplyOutcome vn_reapply_note(VnReapply *t, const VnLedgerRecord *r, gboolean ok,
                                 guint *ret_failures);

/* Records left alone now (failed max_failures times, unchanged since). */
guint vn_reapply_given_up(const VnReapply *t);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnReapply, vn_reapply_free)
