/* vnumactl reservations: what the ledger holds.
 *
 * --json prints {"domains": [RECORD...]}, sorted by name, each RECORD
 * as GET /v1/domains and GET /v1/reservations show it
 * (vn-ledger-record-json.h: MiB rounded to the nearest, KiB beside).
 * The ledger is read without its lock (writes are atomic renames).  The
 * state directory is --state-dir, else $VNUMA_STATE_DIR, else vnuma.conf's
 * [paths] state_dir ($VNUMA_CONFIG honoured). */
#include "vnumactl.h"

#include "vn-ledger.h"
#include "vn-ledger-record-json.h"
#include "vn-size.h"

static gchar *
state_dir_from_config(GError **error)
{
    g_autoptr(VnConfig) config = vn_cli_host_config(error);

    return config ? g_strdup(config->state_dir) : NULL;
}

static void
print_json(GPtrArray *recs)
{
    g_autoptr(JsonNode) root = json_node_new(JSON_NODE_OBJECT);
    g_autoptr(JsonObject) o = json_object_new();
    JsonArray *a = json_array_new();

    for (guint i = 0; i < recs->len; i++)
        json_array_add_element(a, vn_ledger_record_to_json(g_ptr_array_index(recs, i)));
    json_object_set_array_member(o, "domains", a);
    json_node_set_object(root, o);
    vn_cli_print_json(root);
}

static void
print_text(GPtrArray *recs)
{
    g_print("%-24s %-9s %-6s %-8s %-16s %s\n", "NAME", "STATE", "APPLY", "NODES", "CPUS",
            "MEMORY_MIB");
    for (guint i = 0; i < recs->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(recs, i);
        g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
        g_autoptr(GString) cpus = g_string_new(NULL);

        for (guint c = 0; c < r->cells->len; c++)
            g_string_append_printf(cpus, "%s%s", c ? ";" : "",
                                   g_array_index(r->cells, VnLedgerCell, c).cpus);
        g_print("%-24s %-9s %-6s %-8s %-16s %" G_GUINT64_FORMAT "\n", r->name,
                r->foreign ? "foreign" : vn_ledger_state_to_string(r->state),
                r->needs_apply ? "yes" : "no", nodes, cpus->str,
                vn_size_kib_to_mib(vn_ledger_record_memory_kib(r)));
    }
}

int
vn_cmd_reservations(int argc, char **argv)
{
    gboolean json = FALSE;
    g_autofree gchar *state_dir = NULL;
    const GOptionEntry entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
          "Ledger directory (default: $VNUMA_STATE_DIR, else vnuma.conf)", "DIR" },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        vn_cli_context_new("Show the placements the ledger holds", entries, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) ledger = NULL;

    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (!state_dir && g_getenv("VNUMA_STATE_DIR"))
        state_dir = g_strdup(g_getenv("VNUMA_STATE_DIR"));
    if (!state_dir && !(state_dir = state_dir_from_config(&error)))
        return vn_cli_fail(error);
    ledger = vn_ledger_snapshot(state_dir, &error);
    if (!ledger)
        return vn_cli_fail(error);
    if (json)
        print_json(vn_ledger_records(ledger));
    else
        print_text(vn_ledger_records(ledger));
    return VN_EXIT_OK;
}
