/* vn-apply-lock.h: one live apply of a record at a time.
 *
 * `vnumactl apply` holds an exclusive flock() on
 * <state_dir>/apply-<uuid>.lock from before it reads the record until it
 * wrote it back, whoever started it (the hook's detached helper, vnumad's
 * re-apply, an operator).  vnumad looks at the lock before it starts one
 * (vn_apply_lock_held()), so it never applies a record a second time while
 * the hook's helper still works on it.  The lock dies with its process;
 * the file stays (a few bytes per VM in the run directory). */
#pragma once

#include <glib.h>

typedef struct _VnApplyLock VnApplyLock;

/* Takes the lock of `uuid` in `state_dir`, waiting up to `timeout_ms`
 * for another holder: NULL with VN_LEDGER_ERROR_LOCK when it is still
 * held then, VN_LEDGER_ERROR_IO when the file cannot be opened, or
 * VN_LEDGER_ERROR_CORRUPT for a uuid that is no file name. */
VnApplyLock *vn_apply_lock_take(const gchar *state_dir, const gchar *uuid, guint timeout_ms,
                                GError **error);
/* Releases it. */
void vn_apply_lock_release(VnApplyLock *l);

/* Whether another process holds the lock of `uuid` now; FALSE when no
 * one ever took it or it cannot be told. */
gboolean vn_apply_lock_held(const gchar *state_dir, const gchar *uuid);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnApplyLock, vn_apply_lock_release)
