/* vnd.h: vnumad, the planning API daemon — what its files share.
 *
 * One GLib main loop, one SoupServer, single-threaded: a handler runs to
 * completion before the next request is read, so the daemon's own state
 * needs no locks.  The ledger is shared with the qemu hook (other
 * processes) through its flock (vn-ledger.h).
 *
 * Handlers have one shape: they either answer the message themselves and
 * return TRUE, or return FALSE with a VND_ERROR whose code is the HTTP
 * status; the router then answers {"error": message} with that status.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include "vn-autonuma.h"
#include "vn-config.h"
#include "vn-irq.h"
#include "vn-ledger.h"
#include "vn-load.h"
#include "vn-source.h"
#include "vn-topology.h"

#define G_LOG_DOMAIN_VNUMAD "vnumad"

/* Bodies larger than this are refused with 413 before being read. */
#define VND_MAX_BODY (1024 * 1024)
/* Request heads, read and bounded by vnumad before libsoup parses them
 * (vnd-conn.c): a longer request line is 414, a longer head or more
 * header lines 431, all answered at once. */
#define VND_MAX_REQUEST_LINE 8192
#define VND_MAX_HEAD (16 * 1024)
#define VND_MAX_HEADER_FIELDS 100
/* A connection vnumad refuses gets its answer, then this long (seconds)
 * to read it while what it still sends is read and dropped, then is
 * closed: closing at once would reset it and could lose the answer. */
#define VND_LINGER_S 2
/* Connections over [api] max_connections answered 503 at the same time;
 * more are closed without an answer (each holds a descriptor). */
#define VND_MAX_REJECTING 32
/* Reservation TTL: default and ceiling, seconds. */
#define VND_RESERVATION_TTL_DEFAULT 300
#define VND_RESERVATION_TTL_MAX 86400
/* Reservations are ledger records keyed VND_RESERVATION_PREFIX + id. */
#define VND_RESERVATION_PREFIX "reservation:"

/* Errors carry their HTTP status as the code. */
#define VND_ERROR (vnd_error_quark())
GQuark vnd_error_quark(void);
typedef enum {
    VND_ERROR_BAD_REQUEST = 400,
    VND_ERROR_UNAUTHORIZED = 401,
    VND_ERROR_NOT_FOUND = 404,
    VND_ERROR_METHOD = 405,
    VND_ERROR_TIMEOUT = 408, /* the request did not arrive in time */
    VND_ERROR_CONFLICT = 409,
    VND_ERROR_TOO_LARGE = 413,
    VND_ERROR_URI_TOO_LONG = 414,
    VND_ERROR_UNSUPPORTED_TYPE = 415,
    VND_ERROR_HEADERS_TOO_LARGE = 431,
    VND_ERROR_INTERNAL = 500,
    VND_ERROR_NOT_IMPLEMENTED = 501,
    VND_ERROR_BAD_GATEWAY = 502, /* a helper process gave no answer */
    VND_ERROR_UNAVAILABLE = 503,
} VndError;

/* ---- host state (vnd-state.c) ----------------------------------------- */
typedef struct _VndState VndState;

/* Loads topology and config from the source options (as vnumactl does) and
 * takes the first measurement of a live or replayed (--sysroot) host. */
VndState *vnd_state_new(const VnSourceOptions *o, GError **error);
void vnd_state_free(VndState *s);
const VnTopology *vnd_state_topology(const VndState *s);
/* The config in effect: borrowed, valid until the next reload, so never
 * kept across a return to the main loop. */
const VnConfig *vnd_state_config(const VndState *s);
/* The config file for messages: the one named at start (--config, else
 * $VNUMA_CONFIG), absolute, else VNUMA_DEFAULT_CONFIG. */
const gchar *vnd_state_config_file(const VndState *s);
/* Reads that file again, validated against the topology, as at start (a
 * missing default file means defaults).  A new config, not yet in effect;
 * VN_CONFIG_ERROR naming the file when it does not load. */
VnConfig *vnd_state_config_read(const VndState *s, GError **error);
/* Puts `config` (taken) in effect for every later request, freeing the
 * old one, and drops the cached load (the policy shapes it). */
void vnd_state_config_replace(VndState *s, VnConfig *config);
const gchar *vnd_state_sysroot(const VndState *s);
/* Whether /proc and /sys describe this topology (live host or --sysroot). */
gboolean vnd_state_measured(const VndState *s);
/* Whether it is this very host (not a fixture, not a --sysroot replay):
 * its ledger names domains of this libvirt. */
gboolean vnd_state_live(const VndState *s);
/* The load to plan against now: the ledger's commitments (re-read only
 * when ledger.json changed), measured CPU busy, the --load file.  Borrowed,
 * valid until the next call. */
const VnLoad *vnd_state_load(VndState *s, GError **error);
/* The ledger's generation behind the last vnd_state_load(): every write of
 * ledger.json (a reservation made or released, a VM placed, started or
 * stopped, by vnumad or the hook) raises it, so a controller's cached
 * answer for this host is stale when it differs. */
guint64 vnd_state_generation(const VndState *s);
/* A fresh load: measured busy, the VMs of `ledger` (a snapshot for a plan
 * that may defragment, or a locked ledger for reservations) and the --load
 * file, counted as vnumactl counts them (vn_source_add_committed()). */
VnLoad *vnd_state_load_with_ledger(VndState *s, const VnLedger *ledger);
/* The source options the daemon was started with, as arguments for a
 * vnumactl command that must see the same host (NULL-terminated). */
const gchar *const *vnd_state_source_args(const VndState *s);
/* One line in history.log (`vnumactl log`); never fails the caller. */
void vnd_state_history(VndState *s, const gchar *vm, const gchar *phase, const gchar *decision,
                       const gchar *nodes, const gchar *reason);
/* Drops the cached load (after the daemon wrote the ledger). */
void vnd_state_invalidate(VndState *s);
/* Measures the live host again (CPU busy since the last sample, free
 * memory); nothing for a fixture without --sysroot. */
void vnd_state_sample(VndState *s);

/* ---- the ledger (vnd-ledger.c) ---------------------------------------- */
/* vn_ledger_open() and vn_ledger_snapshot() for the daemon: a corrupt
 * ledger.json is set aside as ledger.json.corrupt-<time>, logged and
 * rebuilt from libvirt's status XML (written back at once by the
 * snapshot) instead of failing the caller; other errors as theirs. */
VnLedger *vnd_ledger_open(const gchar *state_dir, GError **error);
VnLedger *vnd_ledger_snapshot(const gchar *state_dir, GError **error);

/* ---- metrics (vnd-metrics.c) ------------------------------------------ */
typedef struct _VndMetrics VndMetrics;
VndMetrics *vnd_metrics_new(void);
void vnd_metrics_free(VndMetrics *m);
void vnd_metrics_count_request(VndMetrics *m, const gchar *route, guint status);
void vnd_metrics_observe_plan(VndMetrics *m, gdouble seconds);
void vnd_metrics_count_reservation(VndMetrics *m, const gchar *event);
void vnd_metrics_count_moves(VndMetrics *m, guint applied);
void vnd_metrics_count_reload(VndMetrics *m, gboolean ok);
/* Connections (vnd-conn.c): accepted, rejected over [api]
 * max_connections, closed by [api] idle_timeout (idle between requests,
 * or a request not read in time). */
typedef enum {
    VND_CONN_ACCEPTED,
    VND_CONN_REJECTED,
    VND_CONN_TIMEOUT_IDLE,
    VND_CONN_TIMEOUT_REQUEST,
    VND_CONN_EVENT_MAX
} VndConnEvent;
void vnd_metrics_count_connection(VndMetrics *m, VndConnEvent e);
/* A request refused by a limit of the HTTP layer, before its body. */
typedef enum {
    VND_LIMIT_REQUEST_LINE,   /* 414 */
    VND_LIMIT_HEAD,           /* 431 */
    VND_LIMIT_HEADER_FIELDS,  /* 431 */
    VND_LIMIT_CONTENT_LENGTH, /* 400: negative, not a number, with chunked */
    VND_LIMIT_BODY,           /* 413 */
    VND_LIMIT_MAX
} VndLimit;
void vnd_metrics_count_refused(VndMetrics *m, VndLimit limit);
/* Drift repair: threads/processes re-steered, steps failed (vnd-repair.c). */
void vnd_metrics_count_resteered(VndMetrics *m, guint resteered, guint failed);
/* Placements re-applied (vnd-reapply.c): one apply that succeeded
 * (`ok`) or failed. */
void vnd_metrics_count_reapply(VndMetrics *m, gboolean ok);
/* NIC interrupts: values put back after drifting, NICs whose apply
 * failed (vnd-irq.c). */
void vnd_metrics_count_irq(VndMetrics *m, guint repaired, guint failed);

/* ---- the daemon ------------------------------------------------------- */
typedef struct _VndConns VndConns;
typedef struct _VndIrq VndIrq;
typedef struct _VndAutonuma VndAutonuma;
typedef struct _VndReapply VndReapply;
typedef struct {
    VndState *state;
    VndMetrics *metrics;
    SoupServer *server;
    GSocketService *service; /* vnd-server.c: the listeners */
    GMainLoop *loop;
    VndConns *conns;             /* vnd-conn.c: the client connections */
    guint sample_source;         /* the sampling timer ([rebalance] interval) */
    gboolean rebalancing;        /* a `vnumactl rebalance` child runs */
    guint hot_streak;            /* samples in a row with moves proposed */
    GHashTable *repair_failures; /* vnd-repair.c: VM -> its last failures, logged */
    VndIrq *irq;                 /* vnd-irq.c: the NIC interrupt plan last applied */
    VndAutonuma *autonuma;       /* vnd-autonuma.c: counters last sampled, value to restore */
    VndReapply *reapply;         /* vnd-reapply.c: needs_apply records applied again */
} VndDaemon;

typedef gboolean (*VndHandler)(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                               GError **error);

/* ---- HTTP helpers (vnd-http.c) ---------------------------------------- */
/* Answers `status` with `node` as the JSON body (node borrowed). */
void vnd_reply_json(SoupServerMessage *msg, guint status, JsonNode *node);
/* Answers {"error": message} with the error's status (500 for foreign
 * error domains). */
void vnd_reply_error(SoupServerMessage *msg, const GError *error);
/* For a body without a declared length (chunked): keeps at most
 * VND_MAX_BODY + 1 bytes of it (libsoup would buffer all of it), so an
 * endless body costs at most that; vnd_body_object() then says 413. */
void vnd_body_bound(SoupServerMessage *msg);
/* The request body as a JSON object whose members are all in `allowed`
 * (NULL-terminated).  400 naming the problem: not JSON, not an object,
 * unknown member, or what vn_json_parse() refuses (nesting deeper than
 * VN_JSON_MAX_DEPTH, a second value, a member given twice, bad UTF-8);
 * 415 when the Content-Type is not JSON. */
JsonNode *vnd_body_object(SoupServerMessage *msg, const gchar *const *allowed, GError **error);
/* The same for a body already read: `len` bytes of `data` (no NUL
 * needed), 413 over VND_MAX_BODY, 400 as above. */
JsonNode *vnd_body_parse(const gchar *data, gsize len, const gchar *const *allowed, GError **error);
/* A query parameter boolean "true"/"false"; `def` when absent. */
gboolean vnd_query_bool(SoupServerMessage *msg, const gchar *name, gboolean def,
                        gboolean *ret_value, GError **error);

/* ---- routes (vnd-routes.c) -------------------------------------------- */
/* Finds the route of `method` `path`: returns its handler and a stable
 * route name for metrics ("/v1/reservations/{id}"), *ret_arg the {id}
 * part (borrowed from path) or NULL, *ret_timed whether the handler plans.
 * NULL handler with 404 or 405 (and the allowed methods) in error. */
VndHandler vnd_route_find(const gchar *method, const gchar *path, const gchar **ret_name,
                          const gchar **ret_arg, gboolean *ret_timed, gchar **ret_allow,
                          GError **error);

/* ---- handlers, one file per resource group ---------------------------- */
gboolean vnd_handle_host(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error);
gboolean vnd_handle_plan(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error);
gboolean vnd_handle_fit(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error);
gboolean vnd_handle_reservations_list(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                                      GError **error);
gboolean vnd_handle_reservation_create(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                                       GError **error);
gboolean vnd_handle_reservation_delete(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                                       GError **error);
gboolean vnd_handle_domains(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error);
gboolean vnd_handle_rebalance(VndDaemon *d, SoupServerMessage *msg, const gchar *arg,
                              GError **error);
gboolean vnd_handle_metrics(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error);

/* ---- shared by handlers ----------------------------------------------- */
/* The adaptive loop, once per sample (vnd-rebalance.c): with [rebalance]
 * auto, applies a round once moves were proposed hot_intervals times in a
 * row. */
void vnd_rebalance_tick(VndDaemon *d);
/* Drift repair, once per sample (vnd-repair.c): with [rebalance]
 * dataplane_repair, puts the data path of every running placed VM back
 * on its CPUs where it drifted; logs and counts, never fails. */
void vnd_repair_tick(VndDaemon *d);
/* Placements the hook left unapplied (vnd-reapply.c), once per sample:
 * every running VM's record with needs_apply, seen so a sample earlier
 * and not being applied by anyone now, is applied by a `vnumactl apply`
 * child, one VM at a time; a record that fails VN_REAPPLY_MAX_FAILURES
 * times in a row is left alone until it changes.  Live host only; logs
 * and counts, never fails. */
VndReapply *vnd_reapply_new(void);
void vnd_reapply_free(VndReapply *s);
void vnd_reapply_tick(VndDaemon *d);
/* Records left alone after failing (a gauge of /metrics). */
guint vnd_reapply_given_up(const VndReapply *s);
/* Whether a `vnumactl apply` child of vnumad runs now. */
gboolean vnd_reapply_running(const VndReapply *s);
/* The vnumactl vnumad runs: $VNUMA_VNUMACTL, else the installed one. */
const gchar *vnd_vnumactl(void);
/* NIC interrupts (vnd-irq.c), at start and once per sample: with
 * [rebalance] irq_steering on, applies the plan of the running VMs when
 * it changed and puts back what drifted off it (only while irqbalance
 * leaves vnuma's interrupts alone); logs and counts, never fails. */
VndIrq *vnd_irq_new(void);
void vnd_irq_free(VndIrq *s);
void vnd_irq_tick(VndDaemon *d);
/* The NICs of the running VMs, their plan and irqbalance's mode, as
 * `vnumactl irq plan` sees them on the daemon's host (--sysroot), with
 * each NIC's VnIrqNicStatus in *ret_status (may be NULL).  The view the
 * last sample built (after its writes; with irq_steering off, the first
 * request after the sample builds it), built anew too when the ledger's
 * generation moved since: at most one sample old.  Both borrowed, valid until the next sample or call.  An error
 * for a fixture topology (not this host) or an unreadable ledger. */
const VnIrqView *vnd_irq_current(VndDaemon *d, const GArray **ret_status, GError **error);
/* AutoNUMA (vnd-autonuma.c), at start and once per sample: samples the
 * host's NUMA balancing counters and settles kernel.numa_balancing as
 * [host] numa_balancing says (vn_autonuma_decide()); logs, never fails.
 * vnd_autonuma_stop() puts back the value vnumad changed. */
VndAutonuma *vnd_autonuma_new(void);
void vnd_autonuma_free(VndAutonuma *a);
void vnd_autonuma_tick(VndDaemon *d);
void vnd_autonuma_stop(VndDaemon *d);
/* Per second between the last two samples, or NULL (fewer than two, a
 * counter went back, /proc not this topology's). */
const VnAutonumaRates *vnd_autonuma_rates(VndDaemon *d);
/* GET /v1/host's "autonuma" object (a new reference), NULL when /proc is
 * not this topology's: built at the first request after a sample and kept
 * until the next one (the placed VMs' status XML and every QEMU thread's
 * sched file are read once a sample, not once a request). */
JsonNode *vnd_autonuma_host_json(VndDaemon *d);
/* Reclaims lapsed reservations from the ledger (taking its lock only when
 * a snapshot shows one); logs, never fails the caller. */
void vnd_reservations_reclaim(VndDaemon *d);
/* The running domains' view (vnd-domains.c), also used by /metrics:
 * a JSON array of domain objects. */
JsonNode *vnd_domains_to_json(VndDaemon *d, GError **error);

/* ---- the sampling timer (vnumad.c) ------------------------------------ */
/* (Re)arms it at the config's [rebalance] interval: every tick measures
 * the host, reclaims lapsed reservations, runs vnd_rebalance_tick(),
 * vnd_repair_tick(), vnd_reapply_tick(), vnd_irq_tick() and
 * vnd_autonuma_tick().  Armed from start to stop whatever [rebalance] auto
 * says: measuring, reclaiming and drift repair need it too. */
void vnd_sample_arm(VndDaemon *d);

/* ---- config reload on SIGHUP (vnd-reload.c) --------------------------- */
/* Re-reads the config file the daemon started with.  When it loads and
 * validates, it replaces the running config at once for every later
 * request, except the settings bound at start ([api] socket and
 * tcp_listen, [paths] state_dir; bearer_token too when tcp_listen
 * changed), which keep their running values until a restart; the
 * sampling timer follows a new interval.  When it does not, the running
 * config stays, whole.  Either way one log line says what happened
 * (what changed, or "unchanged"; or the file and its problem), and the
 * reload is counted in /metrics.  Never stops the daemon. */
void vnd_reload(VndDaemon *d);

/* ---- client connections (vnd-conn.c) ----------------------------------- */
/* vnumad owns each client connection and hands libsoup one request at a
 * time, bounded (see vnd-conn.c).  vnd_conns_init() after d->server is
 * made; vnd_conns_clear() closes them all. */
void vnd_conns_init(VndDaemon *d);
void vnd_conns_clear(VndDaemon *d);
/* A connection the listeners accepted. */
void vnd_conn_accept(VndDaemon *d, GSocketConnection *connection);
/* Connections open now (not counting those being refused). */
guint vnd_conns_open(VndDaemon *d);

/* What the streams handed to libsoup (vnd-stream.c) read from and write
 * to: a request's share of its connection. */
typedef struct _VndConn VndConn;
/* Up to `count` bytes of the request: what vnumad read ahead, then the
 * socket; 0 at the end of what this request may read. */
gssize vnd_conn_input(VndConn *c, void *buffer, gsize count, gboolean blocking,
                      GCancellable *cancellable, GError **error);
/* Whether vnd_conn_input() would return at once without the socket. */
gboolean vnd_conn_input_ready(VndConn *c);
GSocket *vnd_conn_socket(VndConn *c);
/* libsoup is done with the request (it closed its streams). */
void vnd_conn_released(VndConn *c);

/* ---- the request's streams (vnd-stream.c) ------------------------------- */
/* A GIOStream for libsoup over `c`: reads through vnd_conn_input(),
 * writes to the socket, and closing it calls vnd_conn_released() and
 * leaves the socket open. */
GIOStream *vnd_stream_new(VndConn *c);
/* Cuts the stream off its connection: every later read or write fails,
 * and a wait on it ends now (so libsoup lets go of a request vnumad
 * answered itself, or timed out). */
void vnd_stream_orphan(GIOStream *stream);

/* ---- answers vnumad writes itself (vnd-answer.c) ------------------------ */
/* HTTP/1.1 answers for a connection taken back from libsoup or never
 * handed to it, always with Connection: close. */
/* {"error": message} with `status`. */
GBytes *vnd_answer_error(guint status, const gchar *message);
/* The answer libsoup would have written for `msg` (status and headers
 * set, body as set). */
GBytes *vnd_answer_message(SoupServerMessage *msg);

/* ---- the server (vnd-server.c) ---------------------------------------- */
/* Binds the unix socket at `socket_path` (mode 0660, group libvirt when it
 * exists; a stale socket is replaced, a live one is an error) and, when the
 * config says so, TCP; installs the request handler. */
gboolean vnd_server_start(VndDaemon *d, const gchar *socket_path, GError **error);
void vnd_server_stop(VndDaemon *d, const gchar *socket_path);
