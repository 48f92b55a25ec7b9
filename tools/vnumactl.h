/* vnumactl.h: the command table's contract and the helpers commands share.
 *
 * Each command lives in tools/vnumactl-<name>.c as
 *     int vn_cmd_<name>(int argc, char **argv);
 * argv[0] is the command name; the command parses its own options with a
 * GOptionContext (so `vnumactl <name> --help` works) and returns the exit
 * status.  g_get_prgname() is "vnumactl <name>" while it runs.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <libvirt/libvirt.h>
#include "vn-engine.h"
#include "vn-source.h"

/* Exit statuses every command uses. */
enum {
    VN_EXIT_OK = 0,
    VN_EXIT_ERROR = 1,  /* bad usage, bad input, failure */
    VN_EXIT_NO_FIT = 2, /* the request cannot be placed */
};

typedef struct {
    const gchar *name;
    int (*handler)(int argc, char **argv);
    const gchar *summary;
} VnCommand;

/* ---- commands (add yours here and a row in vnumactl.c) ---- */
int vn_cmd_topology(int argc, char **argv);
/* probe: measured node distances */
int vn_cmd_probe(int argc, char **argv);
/* plan, explain: the placement core */
int vn_cmd_plan(int argc, char **argv);
int vn_cmd_explain(int argc, char **argv);
int vn_cmd_rebalance(int argc, char **argv);
/* define, place: domain XML */
int vn_cmd_define(int argc, char **argv);
int vn_cmd_place(int argc, char **argv);
/* reservations, apply: the hook and ledger */
int vn_cmd_reservations(int argc, char **argv);
/* simulate, trace-gen: what-if replays */
int vn_cmd_simulate(int argc, char **argv);
int vn_cmd_trace_gen(int argc, char **argv);
/* status, log: the operator's view */
int vn_cmd_status(int argc, char **argv);
int vn_cmd_log(int argc, char **argv);
/* topology --svg (vnumactl-status.c): draws the host into `path`. */
int vn_cli_write_topology_svg(const VnSourceOptions *source, const VnTopology *t, VnLoad *load,
                              const VnConfig *config, const gchar *state_opt, const gchar *path);
int vn_cmd_apply(int argc, char **argv);
/* irq plan|apply|reset: NIC interrupts and packet steering */
int vn_cmd_irq(int argc, char **argv);

/* ---- helpers (vnumactl-cli.c) ---- */

/* A context for the running command: `summary` shows under the usage
 * line; `entries` (may be NULL) are the command's own options; with
 * `source` non-NULL the topology source options (vn-source.h) are part of
 * the command's options and appear in its --help. */
GOptionContext *vn_cli_context_new(const gchar *summary, const GOptionEntry *entries,
                                   VnSourceOptions *source);

/* Parses argv; on a bad option or a stray argument prints one line on
 * stderr and returns FALSE (exit VN_EXIT_ERROR). */
gboolean vn_cli_parse(GOptionContext *context, int *argc, char ***argv);

/* As vn_cli_parse, but accepts up to `max_args` (0 or 1) positional
 * arguments: *ret_arg is the first one or NULL. */
gboolean vn_cli_parse_args(GOptionContext *context, int *argc, char ***argv, guint max_args,
                           const gchar **ret_arg);

/* Prints "<prgname>: <message>" on stderr; returns VN_EXIT_ERROR. */
int vn_cli_fail(const GError *error);
int vn_cli_fail_printf(const gchar *fmt, ...) G_GNUC_PRINTF(1, 2);

/* Prints "<prgname>: warning: <w>" on stderr for each of p->warnings. */
void vn_cli_print_warnings(const VnPlacement *p);

/* Prints `node` as pretty JSON and a newline on stdout. */
void vn_cli_print_json(JsonNode *node);

/* The state directory: `option` (--state-dir), else $VNUMA_STATE_DIR,
 * else `config`'s [paths] state_dir (`config` NULL: the host's). */
gchar *vn_cli_state_dir(const gchar *option, const VnConfig *config, GError **error);

/* vnuma.conf ($VNUMA_CONFIG or the default) for this host, as
 * vn_source_load() reads it without a topology source option. */
VnConfig *vn_cli_host_config(GError **error);

/* ---- live moves (vnumactl-move.c) ---- */
/* Opens libvirt at `uri` with its errors reported through GError only. */
virConnectPtr vn_cli_connect(const gchar *uri, GError **error);
/* The rebalancer's live move: `moved` (a record of the ledger in
 * config->state_dir with its cells where they go, on `t`) applied to the
 * running domain through libvirt (vn_live_apply(), its persistent
 * definition following), its data path following, then recorded in the
 * ledger.  A move libvirt refuses leaves the ledger as it was.  `steps`
 * (may be NULL) gets one line per step taken (pins, the memory nodeset or
 * migrate_pages(2) and the pages it did not move, the data path), whether
 * the move succeeds or not.  A persistent definition that could not
 * follow is one warning line on stderr and, when `ret_warning` is given,
 * that line (else NULL) there; the move stands. */
gboolean vn_cli_move_live(virConnectPtr conn, const VnConfig *config, const VnTopology *t,
                          const VnLedgerRecord *moved, GPtrArray *steps, gchar **ret_warning,
                          GError **error);
/* [placement] defragment's moves of an engine run on stdout, first: one
 * line saying what they are for (or why there are none), then one line a
 * move; as an XML comment when `xml_comment` (before a domain printed by
 * --dry-run).  Nothing when `mode` is off or nothing was looked for. */
void vn_cli_print_defrag(const VnTopology *t, VnDefragment mode, const VnEngineResult *res,
                         gboolean xml_comment);
/* Makes `moves` (VnEngineMove, vn_engine_run() with defragment = apply)
 * live at `uri`, in order, one "defragment: move ...: moved" line each.
 * On a failed move, every VM moved so far and the failed one are put back
 * as they were (live and in the ledger) and FALSE says which move failed
 * and why. */
gboolean vn_cli_defrag_apply(const gchar *uri, const VnConfig *config, const VnTopology *t,
                             GArray *moves, GError **error);
