/* vnumactl rebalance: one round of the rebalancer on this host.
 *
 * The VMs come from the ledger; the host's load from the usual sources
 * (this host's ledger included).  --dry-run prints the moves and stops.
 * Otherwise each move is applied live through libvirt — the cell's vCPUs
 * pinned to the target node's CPUs (each guest die's to its cache domain
 * there, vn_ledger_record_apply_move()) and the memory nodeset moved
 * (restrictive mode; the kernel migrates the pages; in strict mode
 * migrate_pages(2) moves them; a move between cache domains of one node
 * leaves it) — and then recorded in the ledger; a move libvirt refuses is
 * reported and leaves the ledger as it was.  Each move's line is followed
 * by its steps, indented (with the pages migrate_pages(2) did not move).
 * With --json a move's steps are its "steps".  The moved VM's persistent
 * definition follows (vn_live_apply()); when it cannot, a warning on
 * stderr and, with --json, the move's "warning".
 */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include "vnumactl.h"
#include "vn-cpulist.h"
#include "vn-dataplane.h"
#include "vn-ledger.h"
#include "vn-live-apply.h"
#include "vn-placement-json.h"
#include "vn-rebalance.h"
#include "vn-size.h"

#include <stdio.h>

typedef struct {
    gboolean dry_run;
    gboolean json;
    gdouble threshold;
    gint max_moves;
    gchar *max_memory;
    gint cooldown;
    gchar *uri;
    VnSourceOptions source;
} RebalanceOptions;

static void
options_clear(RebalanceOptions *o)
{
    g_free(o->max_memory);
    g_free(o->uri);
    vn_source_options_clear(&o->source);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(RebalanceOptions, options_clear)

/* The moved cell's record (its vCPUs on the target's usable CPUs, each
 * guest die in its cache domain), then the live move (vn_cli_move_live();
 * its steps into `steps`). */
static gboolean
apply_move(virConnectPtr conn, const VnConfig *config, const VnTopology *t, const VnLoad *load,
           const VnMove *m, GPtrArray *steps, gchar **ret_warning, GError **error)
{
    g_autoptr(VnLedger) snap = vn_ledger_snapshot(config->state_dir, error);
    g_autoptr(VnLedgerRecord) moved = NULL;
    VnLedgerRecord *r;

    if (!snap)
        return FALSE;
    if (!(r = vn_ledger_lookup_name(snap, m->vm))) {
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT, "%s left the ledger meanwhile",
                    m->vm);
        return FALSE;
    }
    moved = vn_ledger_record_copy(r);
    if (!vn_ledger_record_apply_move(moved, t, load, config->policy, m)) {
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT,
                    "%s: cell %u has no usable CPUs on node %u for this move", m->vm, m->cell,
                    t->nodes[m->to_node].os_id);
        return FALSE;
    }
    return vn_cli_move_live(conn, config, t, moved, steps, ret_warning, error);
}

/* The round as vn_moves_add_json() shapes it, each move made live with
 * its "steps" (the lines the text output indents under it) and each move
 * whose VM's persistent definition did not follow with its "warning". */
static JsonNode *
moves_to_json(const VnTopology *t, GPtrArray *moves, GPtrArray *notes, const gboolean *applied,
              GPtrArray *steps, gchar **warnings)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    vn_moves_add_json(b, t, moves, notes, applied, steps, warnings);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static gboolean
limits_from_options(const RebalanceOptions *o, VnRebalanceLimits *lim, GError **error)
{
    vn_rebalance_limits_init(lim, g_get_real_time() / G_USEC_PER_SEC);
    if (o->threshold < 0 || o->threshold > 10) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--threshold: %g is not within 0..10 (a share of utilisation)", o->threshold);
        return FALSE;
    }
    if (o->threshold > 0)
        lim->threshold = o->threshold;
    if (o->max_moves < 0 || o->max_moves > 1000 || o->cooldown < 0 || o->cooldown > 86400) {
        g_set_error_literal(
            error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
            "--max-moves must be within 0..1000 and --cooldown within 0..86400 seconds");
        return FALSE;
    }
    if (o->max_moves > 0)
        lim->max_moves = (guint)o->max_moves;
    if (o->cooldown >= 0)
        lim->cooldown_s = o->cooldown;
    if (o->max_memory && !vn_size_parse_kib(o->max_memory, &lim->max_memory_kib, error)) {
        g_prefix_error(error, "--max-memory: ");
        return FALSE;
    }
    return TRUE;
}

int
vn_cmd_rebalance(int argc, char **argv)
{
    g_auto(RebalanceOptions) o = { .cooldown = 300 };
    const GOptionEntry entries[] = {
        { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &o.dry_run, "Print the moves, change nothing",
          NULL },
        { "threshold", 0, 0, G_OPTION_ARG_DOUBLE, &o.threshold,
          "Hot: utilisation above the mean by this much (default 0.15)", "X" },
        { "max-moves", 0, 0, G_OPTION_ARG_INT, &o.max_moves, "Moves per round (default 2)", "N" },
        { "max-memory", 0, 0, G_OPTION_ARG_STRING, &o.max_memory,
          "Memory moved per round (default 16G)", "SIZE" },
        { "cooldown", 0, 0, G_OPTION_ARG_INT, &o.cooldown,
          "Seconds a moved or started VM stays put (default 300)", "S" },
        { "connect", 'c', 0, G_OPTION_ARG_STRING, &o.uri, "libvirt URI (default qemu:///system)",
          "URI" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print JSON", NULL },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "Run one rebalancing round: move whole guest cells off a hot node", entries, &o.source);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(GPtrArray) residents = NULL, moves = NULL, notes = NULL;
    g_autofree gboolean *applied = NULL;
    g_autoptr(GPtrArray) warnings = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) steps = NULL; /* per move: GPtrArray of lines */
    VnRebalanceLimits lim;
    virConnectPtr conn = NULL;
    int rc = VN_EXIT_OK;

    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (!limits_from_options(&o, &lim, &error) ||
        !vn_source_load(&o.source, &t, &load, &config, &error) ||
        !(ledger = vn_ledger_snapshot(config->state_dir, &error)))
        return vn_cli_fail(error);
    residents = vn_ledger_residents(ledger, t, config->policy);
    moves = vn_rebalance_propose(t, load, config->policy, residents, &lim, &notes);
    applied = g_new0(gboolean, MAX(moves->len, 1));
    g_ptr_array_set_size(warnings, (gint)moves->len); /* a NULL a move: none */
    steps = g_ptr_array_new_with_free_func((GDestroyNotify)g_ptr_array_unref);
    for (guint i = 0; i < moves->len; i++)
        g_ptr_array_add(steps, g_ptr_array_new_with_free_func(g_free));

    if (!o.dry_run && moves->len) {
        if (!(conn = vn_cli_connect(o.uri ? o.uri : "qemu:///system", &error)))
            return vn_cli_fail(error);
        for (guint i = 0; i < moves->len; i++) {
            g_autoptr(GError) move_error = NULL;
            applied[i] =
                apply_move(conn, config, t, load, g_ptr_array_index(moves, i),
                           g_ptr_array_index(steps, i), (gchar **)&warnings->pdata[i], &move_error);
            if (!applied[i]) {
                g_printerr("%s: %s: %s\n", g_get_prgname(),
                           ((VnMove *)g_ptr_array_index(moves, i))->vm, move_error->message);
                rc = VN_EXIT_ERROR;
            }
        }
        virConnectClose(conn);
    }
    if (o.json) {
        g_autoptr(JsonNode) node =
            moves_to_json(t, moves, notes, applied, steps, (gchar **)warnings->pdata);
        vn_cli_print_json(node);
        return rc;
    }
    for (guint i = 0; i < moves->len; i++) {
        const VnMove *m = g_ptr_array_index(moves, i);
        const GPtrArray *done = g_ptr_array_index(steps, i);
        printf("%s %s%s\n",
               o.dry_run    ? "would move"
               : applied[i] ? "moved"
                            : "failed to move",
               m->reason, warnings->pdata[i] ? " (its persistent definition not updated)" : "");
        for (guint k = 0; k < done->len; k++)
            printf("  %s: %s\n", m->vm, (const gchar *)g_ptr_array_index(done, k));
    }
    for (guint i = 0; i < notes->len; i++)
        printf("note: %s\n", (const gchar *)g_ptr_array_index(notes, i));
    return rc;
}
