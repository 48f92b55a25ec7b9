/* vn-hook.h: the libvirt qemu hook, phase by phase.
 *
 * libvirt runs `qemu.d/vnuma <vm> <op> <sub-op> <extra>` with the domain
 * XML on stdin, waits for it without a timeout, and (for prepare/start)
 * aborts the start on a non-zero exit, showing our stderr to the user.
 * Hence the rules every phase follows:
 *  - never call libvirt (deadlock) — the hook does not even link it;
 *  - never block: the ledger lock is only held for a read-plan-write;
 *  - fail open: an internal error is logged and the start goes on, unless
 *    [hook] strict = true (then prepare vetoes with one line on stderr);
 *  - reconnect never fails (a failing reconnect kills the running QEMU);
 *  - every decision is one structured log line plus one line of history
 *    (<state_dir>/history.log, JSON lines).
 */
#pragma once

#include <glib.h>
#include "vn-config.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-ledger.h"
#include "vn-topology.h"

/* Largest XML read from stdin; more is drained and refused. */
#define VN_HOOK_MAX_XML VN_DOMAIN_MAX_BYTES
/* A `reserved` record whose start never confirmed is reclaimed after this. */
#define VN_HOOK_RESERVED_GRACE_S 300

#define VN_HOOK_ERROR (vn_hook_error_quark())
GQuark vn_hook_error_quark(void);
typedef enum {
    VN_HOOK_ERROR_INPUT, /* stdin unreadable or too large */
    VN_HOOK_ERROR_SPAWN, /* the apply helper could not be started */
    VN_HOOK_ERROR_MAX
} VnHookError;

typedef enum {
    VN_HOOK_PHASE_PREPARE,   /* prepare begin */
    VN_HOOK_PHASE_START,     /* start begin */
    VN_HOOK_PHASE_STARTED,   /* started begin */
    VN_HOOK_PHASE_STOPPED,   /* stopped end */
    VN_HOOK_PHASE_RELEASE,   /* release end */
    VN_HOOK_PHASE_RECONNECT, /* reconnect begin */
    VN_HOOK_PHASE_MIGRATE,   /* migrate begin (filter) */
    VN_HOOK_PHASE_RESTORE,   /* restore begin (filter) */
    VN_HOOK_PHASE_MAX
} VnHookPhase;

/* "prepare", "started", ... */
const gchar *vn_hook_phase_to_string(VnHookPhase p);
/* From libvirt's op and sub-op; FALSE for anything else. */
gboolean vn_hook_phase_from_args(const gchar *op, const gchar *sub_op, VnHookPhase *ret_phase);

typedef struct {
    gchar *vm; /* argv[1] */
    VnHookPhase phase;
    gchar *xml; /* stdin, NUL-terminated; NULL if unreadable */
    gsize xml_len;
    gint64 now;    /* unix seconds */
    VnTopology *t; /* loaded by vn_hook_load_host() */
    VnConfig *config;
    gboolean host_tried; /* vn_hook_load_host() ran (maybe failed) */
    VnDomain *domain;    /* parsed by vn_hook_load_domain() */
    /* the decision, logged once by vn_hook_log_decision() */
    const gchar *decision; /* "reserved", "planned", "refused", ... */
    gchar *nodes;          /* "0,1", or NULL */
    gchar *reason;
    gchar *refusal;  /* set: exit 1 with this line on stderr */
    gchar *filtered; /* migrate/restore: the XML to print, or NULL */
} VnHook;

VnHook *vn_hook_new(const gchar *vm, VnHookPhase phase);
void vn_hook_free(VnHook *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnHook, vn_hook_free)

/* Records the outcome (replacing an earlier one). */
void vn_hook_decide(VnHook *h, const gchar *decision, const gchar *nodes, const gchar *fmt, ...)
    G_GNUC_PRINTF(4, 5);

/* Reads all of `fd` (up to VN_HOOK_MAX_XML; a longer
 * input is drained to EOF so libvirt never blocks on a full pipe, then
 * refused). */
gboolean vn_hook_read_input(VnHook *h, int fd, GError **error);
/* Topology (VNUMA_TOPOLOGY or live, through the topology cache in the
 * state dir, live free memory re-read) and config (VNUMA_CONFIG). */
gboolean vn_hook_load_host(VnHook *h, GError **error);
/* Parses h->xml into h->domain. */
gboolean vn_hook_load_domain(VnHook *h, GError **error);
/* The state directory: the config's when loaded, else $VNUMA_STATE_DIR,
 * else the built-in default. */
const gchar *vn_hook_state_dir(const VnHook *h);
/* The ledger key of the domain: its uuid, else its name. */
const gchar *vn_hook_key(const VnHook *h);

/* vn-hook.c: the ledger opened for a change: corrupt (for any reason:
 * vn_ledger_open_setting_aside()) -> renamed to ledger.json.corrupt-<now>,
 * one log line naming it and why; missing or set aside -> rebuilt from
 * libvirt's status XML; records of domains that no longer run reclaimed
 * (their names in `ret_reclaimed` when not NULL).  The VM start goes on
 * either way. */
VnLedger *vn_hook_open_ledger(VnHook *h, GPtrArray **ret_reclaimed, GError **error);

/* Phases (vn-hook-prepare.c, vn-hook-phases.c).  FALSE + error on an
 * internal failure; a refusal is a success with h->refusal set. */
gboolean vn_hook_prepare(VnHook *h, GError **error);
gboolean vn_hook_started(VnHook *h, GError **error);
gboolean vn_hook_release(VnHook *h, GError **error);
gboolean vn_hook_reconnect(VnHook *h, GError **error);
/* vn-hook-consolidate.c: [placement] consolidate in the transaction of
 * `l` that removed a stopped VM's record (before its commit): the
 * consolidations found (of VnEngineConsolidation; NULL when off or the
 * host is not loaded), with APPLY their records already put in `l`.
 * After the commit, vn_hook_consolidated() starts APPLY's live applies
 * (a failure logged, one line each) and returns the text the decision's
 * reason gets ("; consolidated big from nodes 0,1 onto node 0, 256 MiB
 * (...)", "" for none). */
GArray *vn_hook_consolidate(VnHook *h, VnLedger *l);
gchar *vn_hook_consolidated(VnHook *h, const GArray *found);
/* migrate/restore filters (vn-hook-filter.c): sets h->filtered when the XML
 * must change for this host. */
gboolean vn_hook_filter(VnHook *h, GError **error);

/* vn-hook-spawn.c: runs argv fully detached from the hook: double fork,
 * setsid, stdin /dev/null, stdout/stderr appended to `log_path` (or
 * /dev/null), every other fd closed.  Returns once the intermediate child
 * is reaped, i.e. at once; the grandchild's fate is not waited for. */
gboolean vn_hook_spawn_detached(const gchar *const *argv, const gchar *log_path, GError **error);
/* The vnumactl to run for a live apply: $VNUMA_VNUMACTL, else the
 * installed one, else one on PATH; NULL when none exists. */
gchar *vn_hook_find_vnumactl(void);
/* `vnumactl apply [--dataplane-only] VM` detached, its output appended to
 * <state_dir>/apply.log.  *ret_vnumactl: the vnumactl run, or NULL (and
 * TRUE) when none was found. */
gboolean vn_hook_spawn_apply(const VnHook *h, const gchar *vm, gboolean dataplane_only,
                             gchar **ret_vnumactl, GError **error);

/* vn-hook-log.c: one structured log line (journal, else syslog) and one
 * JSON line appended to <state_dir>/history.log. */
void vn_hook_log_decision(const VnHook *h);
/* GLib log writer for the hook: journal when present, else syslog; never
 * stdout/stderr (libvirt reads those). */
GLogWriterOutput vn_hook_log_writer(GLogLevelFlags level, const GLogField *fields, gsize n_fields,
                                    gpointer user_data);
