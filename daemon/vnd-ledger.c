/* vnd-ledger.c: the ledger as vnumad opens and reads it.
 *
 * A ledger.json that does not load (not JSON, nested too deep, a second
 * value, a member twice, bad content) is treated as the hook treats it at
 * a VM start: renamed to ledger.json.corrupt-<time> under the lock
 * (vn_ledger_open_setting_aside()), one log line naming it and why, and
 * rebuilt from libvirt's status XML of the running domains.  So one bad
 * file neither fails every request that counts the load nor loses
 * anything: holds vnumad made (they are in no status XML) are not in the
 * rebuilt ledger, the set-aside file still has them. */
#include "vnd.h"
#include "vn-ledger-domain.h"

static VnLedger *
open_recovering(const gchar *state_dir, gboolean *ret_rebuilt, GError **error)
{
    gint64 now = g_get_real_time() / G_USEC_PER_SEC;
    g_autofree gchar *set_aside = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open_setting_aside(state_dir, now, &set_aside, error);

    if (!l)
        return NULL;
    if (set_aside) {
        guint n = vn_ledger_rebuild(l, vn_ledger_libvirt_run_dir(), now, NULL);
        g_message("ledger unreadable, rebuilt it with %u running domains: %s", n, set_aside);
    }
    *ret_rebuilt = set_aside != NULL;
    return g_steal_pointer(&l);
}

VnLedger *
vnd_ledger_open(const gchar *state_dir, GError **error)
{
    gboolean rebuilt;

    return open_recovering(state_dir, &rebuilt, error);
}

VnLedger *
vnd_ledger_snapshot(const gchar *state_dir, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(VnLedger) l = NULL;
    VnLedger *snap = vn_ledger_snapshot(state_dir, &local);
    gboolean rebuilt = FALSE;

    if (snap)
        return snap;
    if (!g_error_matches(local, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT)) {
        g_propagate_error(error, g_steal_pointer(&local));
        return NULL;
    }
    /* under the lock: set aside (unless another process did meanwhile),
     * rebuild, write; then read what is there now */
    if (!(l = open_recovering(state_dir, &rebuilt, error)) ||
        (rebuilt && !vn_ledger_commit(l, error)))
        return NULL;
    g_clear_pointer(&l, vn_ledger_free);
    return vn_ledger_snapshot(state_dir, error);
}
