/* vnd-rebalance.c: POST /v1/rebalance?dry_run=true|false.
 *
 * The rebalancer (issue 7's adaptive half: a pure proposal in scheduler/
 * and live moves through libvirt) is not built yet; the endpoint exists so
 * that clients get a clear 501 rather than a 404, after their query has
 * been validated like any other. */
#include "vnd.h"

gboolean
vnd_handle_rebalance(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    gboolean dry_run;

    if (!vnd_query_bool(msg, "dry_run", TRUE, &dry_run, error))
        return FALSE;
    g_set_error(error, VND_ERROR, VND_ERROR_NOT_IMPLEMENTED,
                "rebalance (%s): not implemented in this version of vnumad",
                dry_run ? "dry run" : "apply");
    return FALSE;
}
