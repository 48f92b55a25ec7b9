/* vnd-rebalance.c: POST /v1/rebalance?dry_run=true|false.
 *
 * dry_run=true (the default) runs one round of the rebalancer
 * (scheduler/vn-rebalance.h) on the ledger's running VMs and the current
 * load, and answers the moves in the shape of `vnumactl rebalance --json`:
 *   {"dry_run": true, "moves": [{"vm", "cell", "from", "to", "vcpus",
 *    "memory_mib", "reason", "applied": false}], "notes": [...]}
 * dry_run=false applies: live libvirt calls that may wait tens of seconds
 * for a domain's job, which the daemon's single-threaded loop must not
 * make.  So it runs `vnumactl rebalance --json` (the one implementation of
 * applying, recording in the ledger, and refusing what libvirt refuses)
 * as a child with the daemon's own source options, pauses the message,
 * and answers the child's JSON when it exits: 200 with "applied" per
 * move, plus "errors" (its stderr lines) when some move failed; 502 when
 * it produced no answer; 409 while another round runs.  The vnumactl run
 * is $VNUMA_VNUMACTL, else the installed one. */
#include "vnd.h"

#include "vn-json-parse.h"
#include "vn-placement-json.h"
#include "vn-rebalance.h"
#include "vn-json-build.h"

#ifndef VNUMAD_VNUMACTL
#define VNUMAD_VNUMACTL "/usr/local/sbin/vnumactl"
#endif

const gchar *
vnd_vnumactl(void)
{
    const gchar *env = g_getenv("VNUMA_VNUMACTL");

    return env && *env ? env : VNUMAD_VNUMACTL;
}

static JsonNode *
moves_json(const VnTopology *t, GPtrArray *moves, GPtrArray *notes)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    vn_json_add_bool(b, "dry_run", TRUE);
    vn_moves_add_json(b, t, moves, notes, NULL, NULL, NULL);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

typedef struct {
    VndDaemon *d;
    SoupServerMessage *msg; /* NULL for the daemon's own round */
} ApplyJob;

/* vnumactl's answer plus "dry_run": false and "errors" (its stderr); the
 * applied moves go to history.log and are counted in *ret_applied. */
static JsonNode *
parse_applied(VndDaemon *d, const gchar *out, const gchar *err, guint *ret_applied, GError **error)
{
    g_auto(GStrv) lines = g_strsplit(err ? err : "", "\n", -1);
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = out ? vn_json_parse(out, strlen(out), &local) : NULL;
    JsonArray *errors, *moves;
    JsonObject *o;

    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, VND_ERROR, VND_ERROR_BAD_GATEWAY,
                    "vnumactl rebalance gave no answer: %s",
                    lines[0] && *lines[0] ? lines[0]
                    : local               ? local->message
                                          : "(nothing on stderr)");
        return NULL;
    }
    o = json_node_get_object(root);
    json_object_set_boolean_member(o, "dry_run", FALSE);
    errors = json_array_new();
    for (guint i = 0; lines[i]; i++)
        if (*lines[i])
            json_array_add_string_element(errors, lines[i]);
    json_object_set_array_member(o, "errors", errors);
    moves = json_object_has_member(o, "moves") &&
                    JSON_NODE_HOLDS_ARRAY(json_object_get_member(o, "moves"))
                ? json_object_get_array_member(o, "moves")
                : NULL;
    for (guint i = 0; moves && i < json_array_get_length(moves); i++) {
        JsonNode *m = json_array_get_element(moves, i);
        JsonObject *mo = JSON_NODE_HOLDS_OBJECT(m) ? json_node_get_object(m) : NULL;
        g_autofree gchar *to = NULL;
        if (!mo || !json_object_get_boolean_member_with_default(mo, "applied", FALSE))
            continue;
        (*ret_applied)++;
        to = g_strdup_printf("%" G_GINT64_FORMAT,
                             json_object_get_int_member_with_default(mo, "to", 0));
        vnd_state_history(d->state, json_object_get_string_member_with_default(mo, "vm", "?"),
                          "rebalance", "moved", to,
                          json_object_get_string_member_with_default(mo, "reason", ""));
    }
    return g_steal_pointer(&root);
}

static void
on_applied(GObject *source, GAsyncResult *result, gpointer user_data)
{
    ApplyJob *job = user_data;
    VndDaemon *d = job->d;
    g_autofree gchar *out = NULL, *err = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) node = NULL;
    guint applied = 0;

    if (g_subprocess_communicate_utf8_finish(G_SUBPROCESS(source), result, &out, &err, &error))
        node = parse_applied(d, out, err, &applied, &error);
    vnd_metrics_count_moves(d->metrics, applied);
    vnd_state_invalidate(d->state);
    d->rebalancing = FALSE;
    if (!job->msg) {
        if (error)
            g_message("rebalancing round failed: %s", error->message);
        else
            g_message("rebalancing round: %u move(s) applied", applied);
        g_free(job);
        return;
    }
    if (node)
        vnd_reply_json(job->msg, SOUP_STATUS_OK, node);
    else
        vnd_reply_error(job->msg, error);
    vnd_metrics_count_request(d->metrics, "/v1/rebalance",
                              soup_server_message_get_status(job->msg));
    soup_server_message_unpause(job->msg);
    g_object_unref(job->msg);
    g_free(job);
}

/* Starts `vnumactl rebalance --json` for `msg` (paused until it exits) or,
 * with msg NULL, for the daemon's own loop. */
static gboolean
apply(VndDaemon *d, SoupServerMessage *msg, GError **error)
{
    g_autoptr(GStrvBuilder) b = g_strv_builder_new();
    g_auto(GStrv) argv = NULL;
    g_autoptr(GSubprocess) proc = NULL;
    ApplyJob *job;

    if (d->rebalancing) {
        g_set_error_literal(error, VND_ERROR, VND_ERROR_CONFLICT,
                            "a rebalancing round is running; try again");
        return FALSE;
    }
    g_strv_builder_add_many(b, vnd_vnumactl(), "rebalance", "--json", NULL);
    g_strv_builder_addv(b, (const gchar **)vnd_state_source_args(d->state));
    argv = g_strv_builder_end(b);
    proc =
        g_subprocess_newv((const gchar *const *)argv,
                          G_SUBPROCESS_FLAGS_STDOUT_PIPE | G_SUBPROCESS_FLAGS_STDERR_PIPE, error);
    if (!proc) {
        g_prefix_error(error, "rebalance: ");
        return FALSE;
    }
    job = g_new0(ApplyJob, 1);
    job->d = d;
    job->msg = msg ? g_object_ref(msg) : NULL;
    d->rebalancing = TRUE;
    if (msg)
        soup_server_message_pause(msg);
    g_subprocess_communicate_utf8_async(proc, NULL, NULL, on_applied, job);
    return TRUE;
}

/* One round proposed on the current load (no side effect).  The moves
 * point into the residents' names: *ret_residents must outlive them. */
static GPtrArray *
propose(VndDaemon *d, GPtrArray **ret_residents, GPtrArray **ret_notes, GError **error)
{
    const VnTopology *t = vnd_state_topology(d->state);
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(VnLedger) snap = NULL;
    VnRebalanceLimits lim;
    const VnLoad *load;

    if (!(load = vnd_state_load(d->state, error)) ||
        !(snap = vnd_ledger_snapshot(c->state_dir, error)))
        return NULL;
    *ret_residents = vn_ledger_residents(snap, t, c->policy);
    vn_rebalance_limits_init(&lim, g_get_real_time() / G_USEC_PER_SEC);
    return vn_rebalance_propose(t, load, c->policy, *ret_residents, &lim, ret_notes);
}

void
vnd_rebalance_tick(VndDaemon *d)
{
    const VnConfig *c = vnd_state_config(d->state);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) vms = NULL, moves = NULL, notes = NULL;

    /* a re-apply child may be moving a VM the round would count */
    if (!c->rebalance_auto || d->rebalancing || vnd_reapply_running(d->reapply))
        return;
    if (!(moves = propose(d, &vms, &notes, &error))) {
        g_message("rebalance: %s", error->message);
        return;
    }
    /* hysteresis: a node must stay hot for hot_intervals samples */
    d->hot_streak = moves->len ? d->hot_streak + 1 : 0;
    if (d->hot_streak < c->rebalance_hot_intervals)
        return;
    d->hot_streak = 0;
    g_message("rebalance: moves proposed for %u samples in a row; applying a round",
              c->rebalance_hot_intervals);
    if (!apply(d, NULL, &error))
        g_message("rebalance: %s", error->message);
}

gboolean
vnd_handle_rebalance(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    g_autoptr(GPtrArray) vms = NULL, moves = NULL, notes = NULL;
    g_autoptr(JsonNode) node = NULL;
    gboolean dry_run;

    if (!vnd_query_bool(msg, "dry_run", TRUE, &dry_run, error))
        return FALSE;
    if (!dry_run)
        return apply(d, msg, error);
    if (!(moves = propose(d, &vms, &notes, error)))
        return FALSE;
    node = moves_json(vnd_state_topology(d->state), moves, notes);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
