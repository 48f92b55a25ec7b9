/* vn-ledger.h: who holds what on this host — one record per placed domain.
 *
 * The ledger lives in the state directory (/run/vnuma by default, see
 * vn-config.h) as three files:
 *   ledger.json  the records, replaced atomically (temp file + fsync +
 *                rename + fsync of the directory), so a kill -9 at any
 *                instant leaves either the old or the new file, never a torn
 *                one;
 *   ledger.cache the same records in GVariant form, derived from the
 *                ledger.json they were read from or written as and ignored
 *                when it is not that very file (vn-ledger-cache.h): the
 *                hook reads the whole ledger at every VM start, and
 *                json-glib cost it 7 M instructions for 100 records;
 *   ledger.lock  an exclusive flock() held from vn_ledger_open() to
 *                vn_ledger_free(): read, plan, reserve and write are one
 *                critical section across processes (many hooks run at once
 *                for different VMs).  The lock dies with its process; a
 *                holder stuck for VN_LEDGER_LOCK_TIMEOUT_MS makes the
 *                others give up (VN_LEDGER_ERROR_LOCK) rather than hang a
 *                VM start forever.
 *
 * File format (version 1):
 *   {"version": 1, "generation": 7,
 *    "domains": [{"uuid": "...", "name": "vm1", "state": "running",
 *                 "needs_apply": false, "dedicated": false,
 *                 "priority": "normal", "hugepage_kib": 0,
 *                 "time": 1764451200,
 *                 "cells": [{"id": 0, "node": 1, "cpus": "8-15",
 *                            "vcpus": 4, "memory_kib": 4194304}]}]}
 * A cell may also carry "vcpu_cpus": ["0,4,8", "0,4,8", "1,5,9", "1,5,9"],
 * the host CPUs of each of its vCPUs in vCPU order (see `vcpu_cpus`
 * below); ledgers written before it load with none.
 * A record may also carry "expires" (unix seconds, see `expires` below),
 * "foreign": true (see `foreign`), "allowed_cpus": "4-7" (see
 * `allowed_cpus`) and "whole": true (see `whole`).
 * Written compact, and without needs_apply, dedicated, priority and
 * hugepage_kib when they hold the defaults shown (read as those).
 * `node` is the kernel node number; `cpus` a cpulist of host CPUs (for a
 * dedicated domain these are the CPUs it owns 1:1).  Unknown fields are
 * errors: the file is ours, anything else in it means corruption.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-rebalance.h"
#include "vn-request.h"
#include "vn-topology.h"

/* How long vn_ledger_open() waits for the lock. */
#define VN_LEDGER_LOCK_TIMEOUT_MS 10000

#define VN_LEDGER_ERROR (vn_ledger_error_quark())
GQuark vn_ledger_error_quark(void);
typedef enum {
    VN_LEDGER_ERROR_IO,      /* state dir or file unusable */
    VN_LEDGER_ERROR_LOCK,    /* flock failed or timed out */
    VN_LEDGER_ERROR_CORRUPT, /* not a ledger: bad JSON or content */
    VN_LEDGER_ERROR_MAX
} VnLedgerError;

typedef enum {
    VN_LEDGER_STATE_RESERVED, /* prepare done, QEMU not confirmed yet */
    VN_LEDGER_STATE_RUNNING,  /* started or re-registered */
    VN_LEDGER_STATE_MAX
} VnLedgerState;

const gchar *vn_ledger_state_to_string(VnLedgerState s);
gboolean vn_ledger_state_from_string(const gchar *s, VnLedgerState *ret_s);

typedef struct {
    guint id;           /* guest cell id */
    guint node_os_id;   /* host node (kernel number) */
    guint vcpus;        /* guest vCPUs in this cell */
    gchar *cpus;        /* host CPUs, cpulist such as "0-3,8" */
    guint64 memory_kib; /* guest memory of this cell */
    /* Each vCPU's own host CPUs (cpulists, `vcpus` of them, in vCPU
     * order), or NULL when they follow the cell: a shared vCPU runs on all
     * of `cpus`, the k-th dedicated vCPU on the k-th CPU of `cpus`.  Set
     * when the pins are finer or ordered otherwise (a guest die a cache
     * domain: each die's vCPUs pinned inside one L3 domain; dedicated SMT
     * siblings as guest threads), so a live apply or a rebalancing move
     * keeps them (written to the file only when set). */
    GPtrArray *vcpu_cpus;
} VnLedgerCell;

typedef struct {
    gchar *uuid; /* key */
    gchar *name;
    VnLedgerState state;
    gboolean needs_apply; /* the hook asked for a live apply after start */
    gboolean dedicated;   /* cells' cpus are owned 1:1 */
    VnPriority priority;
    guint64 hugepage_kib; /* 0: normal pages */
    gint64 time;          /* unix seconds of the last change */
    /* A hold with a deadline (vnumad's reservations, keyed
     * "reservation:<id>"): unix seconds after which the record lapses and
     * is reclaimed; 0 = none (written to the file only when set). */
    gint64 expires;
    /* Pinned by another manager (Nova, an operator's own <cputune> or
     * <numatune>): counted as taken, never re-planned, moved, repaired or
     * applied by vnuma (written to the file only when set). */
    gboolean foreign;
    /* The host CPUs another manager allows the VM (its <vcpu cpuset>,
     * OpenStack Nova's cpu_shared_set), a cpulist such as "4-7", or NULL
     * for any: vnuma placed it inside them, and the rebalancer moves its
     * cells only to nodes with CPUs in them, pinned to those CPUs (written
     * to the file only when set). */
    gchar *allowed_cpus;
    /* The cells are one unit (memory interleaved over their nodes, or
     * spilled from a CPU node to a slow one: no guest cells): the
     * rebalancer never moves one of them alone (written to the file only
     * when set). */
    gboolean whole;
    GArray *cells; /* of VnLedgerCell, owns the strings */
} VnLedgerRecord;

VnLedgerRecord *vn_ledger_record_new(const gchar *uuid, const gchar *name);
VnLedgerRecord *vn_ledger_record_copy(const VnLedgerRecord *r);
/* Every member and cell the same. */
gboolean vn_ledger_record_equal(const VnLedgerRecord *a, const VnLedgerRecord *b);
void vn_ledger_record_free(VnLedgerRecord *r);
/* Appends a cell; `cpus` is copied. */
void vn_ledger_record_add_cell(VnLedgerRecord *r, guint id, guint node_os_id, guint vcpus,
                               const gchar *cpus, guint64 memory_kib);
/* Sets the pins of cell `index` of `r` from `pins` (VnBitmap*, one per
 * vCPU of the cell, in vCPU order): the cell's `cpus` become their union
 * and its `vcpu_cpus` the pins, or NULL when they follow the cell (see
 * VnLedgerCell).  `pins` must hold the cell's `vcpus`. */
void vn_ledger_record_set_cell_pins(VnLedgerRecord *r, guint index, GPtrArray *pins);
/* Appends a vCPU pin (`cpus`, a cpulist, copied) to the last cell of `r`
 * (the readers of the ledger's files). */
void vn_ledger_record_add_vcpu_pin(VnLedgerRecord *r, const gchar *cpus);
/* The recorded pin (a cpulist) of the `k`-th vCPU of cell `c`, or NULL
 * when the cell records none (its vCPUs follow the cell). */
const gchar *vn_ledger_cell_vcpu_pin(const VnLedgerCell *c, guint k);
guint vn_ledger_record_vcpus(const VnLedgerRecord *r);
guint64 vn_ledger_record_memory_kib(const VnLedgerRecord *r);
/* Sorts records by name, the order the ledger is read in. */
void vn_ledger_records_sort(GPtrArray *records);
/* "1,3": the record's host nodes, ascending, each once. */
gchar *vn_ledger_record_nodes_string(const VnLedgerRecord *r);

typedef struct _VnLedger VnLedger;

/* An exclusive flock() on `fd` (the lock file `lock_path`), polled with
 * LOCK_NB, pausing `first_pause_us` and doubling up to `max_pause_us`,
 * until `timeout_ms` passed: then VN_LEDGER_ERROR_LOCK "LOCK_PATH: HELD
 * after N ms" (`held` says who holds it).  The ledger's lock and the
 * per-record apply lock (vn-apply-lock.h). */
gboolean vn_ledger_flock(int fd, const gchar *lock_path, guint timeout_ms, gulong first_pause_us,
                         gulong max_pause_us, const gchar *held, GError **error);

/* Takes the exclusive lock (waiting up to VN_LEDGER_LOCK_TIMEOUT_MS),
 * creating `state_dir` (0755) and the
 * lock file when needed, then reads ledger.json.  A missing file gives an
 * empty ledger with vn_ledger_was_missing() TRUE.  A corrupt file is
 * VN_LEDGER_ERROR_CORRUPT (the lock is released); the caller may then
 * vn_ledger_open_fresh() to start over from libvirt's state. */
VnLedger *vn_ledger_open(const gchar *state_dir, GError **error);
/* Same with another lock wait (tests). */
VnLedger *vn_ledger_open_with_timeout(const gchar *state_dir, guint timeout_ms, GError **error);
/* Like vn_ledger_open() but ignores (and on commit replaces) whatever
 * ledger.json holds; vn_ledger_was_missing() is TRUE. */
VnLedger *vn_ledger_open_fresh(const gchar *state_dir, GError **error);
/* Like vn_ledger_open(), for the callers that must go on when ledger.json
 * is corrupt (VN_LEDGER_ERROR_CORRUPT: not JSON, nested too deep, trailing
 * data, a member twice, bad content): still under the lock, the file is
 * renamed to ledger.json.corrupt-<now> (unix seconds; ".1", ".2", ...
 * after it when that name is taken: nothing is overwritten or lost) and
 * the ledger opens empty with vn_ledger_was_missing() TRUE, for the caller
 * to rebuild from libvirt's state (vn_ledger_rebuild()).  `ret_set_aside`
 * then gets one line for the log naming the file, what is wrong with it
 * and its new name; NULL when the file was fine or missing.  Other errors
 * (lock, I/O, a failed rename) as vn_ledger_open(). */
VnLedger *vn_ledger_open_setting_aside(const gchar *state_dir, gint64 now, gchar **ret_set_aside,
                                       GError **error);
/* A read-only copy without taking the lock (safe: writes are atomic).
 * Missing file = empty ledger.  vn_ledger_commit() on it is refused. */
VnLedger *vn_ledger_snapshot(const gchar *state_dir, GError **error);
/* Writes the records atomically; the lock stays held until free. */
gboolean vn_ledger_commit(VnLedger *l, GError **error);
/* Releases the lock (if held) and frees. */
void vn_ledger_free(VnLedger *l);

gboolean vn_ledger_was_missing(const VnLedger *l);
const gchar *vn_ledger_path(const VnLedger *l);
guint64 vn_ledger_generation(const VnLedger *l);
/* Records, sorted by name when read; borrowed. */
GPtrArray *vn_ledger_records(const VnLedger *l);
VnLedgerRecord *vn_ledger_lookup(const VnLedger *l, const gchar *uuid);
VnLedgerRecord *vn_ledger_lookup_name(const VnLedger *l, const gchar *name);
/* Adds `r` (transfer full), replacing a record with the same uuid. */
void vn_ledger_put(VnLedger *l, VnLedgerRecord *r);
/* Removes the record with this uuid; FALSE when there was none. */
gboolean vn_ledger_remove(VnLedger *l, const gchar *uuid);

/* Text form (vn-ledger-json.c).  `origin` names the input in errors. */
gchar *vn_ledger_format(GPtrArray *records, guint64 generation);
gboolean vn_ledger_parse(const gchar *text, gsize len, const gchar *origin, GPtrArray **ret_records,
                         guint64 *ret_generation, GError **error);
/* The pair a ledger opened for a change uses: the parse also returns, in
 * `ret_as_read` (a new table), each record's object as read with a copy
 * of the record, keyed by the record; the format writes a record that
 * still equals that copy from its object instead of building it again.
 * The hook rewrites the whole ledger at every VM start, and building 100
 * unchanged records anew cost it ~3 M instructions.  `as_read` may be
 * NULL (then as vn_ledger_format()). */
gboolean vn_ledger_parse_keeping(const gchar *text, gsize len, const gchar *origin,
                                 GPtrArray **ret_records, guint64 *ret_generation,
                                 GHashTable **ret_as_read, GError **error);
gchar *vn_ledger_format_reusing(GPtrArray *records, guint64 generation, GHashTable *as_read);
/* The two halves of vn_ledger_format_reusing(): each record's compact
 * JSON text (a new array of strings), then the document around them.
 * An as_read table can also be filled from texts kept elsewhere (the
 * ledger cache: vn-ledger-cache.h). */
GPtrArray *vn_ledger_record_texts(GPtrArray *records, GHashTable *as_read);
gchar *vn_ledger_format_texts(GPtrArray *texts, guint64 generation);
GHashTable *vn_ledger_as_read_new(void);
/* `text` is copied; `r` (the key) is borrowed, as in parse_keeping. */
void vn_ledger_as_read_add_text(GHashTable *as_read, VnLedgerRecord *r, const gchar *text);

/* Adds every record's commitment to `load` (vn-ledger-load.c): per cell,
 * its vCPUs (shared domains) or its CPUs as dedicated, its vCPUs to the
 * high-priority count for high-priority domains, its memory plus its share
 * of the QEMU overhead (policy), and hugepages when hugepage-backed.
 * Cells on nodes `t` does not have are skipped: they cannot compete for
 * its nodes.  `skip_uuid` (may be NULL) leaves one domain out, for a
 * domain being re-validated against everyone else. */
void vn_ledger_to_load(const VnLedger *l, const VnTopology *t, const VnPolicy *policy,
                       const gchar *skip_uuid, VnLoad *load);

/* The running domains of `l` as the rebalancer's residents on `t`
 * (vn-ledger-load.c): reserved starts and holds with `expires` are not
 * movable and left out, as are cells on nodes `t` does not have.  Each
 * cell's charge (VnResidentCell.charge_kib) is what vn_ledger_to_load()
 * counts for it with `policy`: a moved cell takes its share of the QEMU
 * overhead along.  Returns a GPtrArray of VnResident* (transfer full). */
GPtrArray *vn_ledger_residents(const VnLedger *l, const VnTopology *t, const VnPolicy *policy);

/* Applies the rebalancer's move `m` (vn_rebalance_propose() on `t`,
 * `load`, `policy`) to the copy `r` of the moved VM's record
 * (vn-ledger-move.c): the cell goes to m->to_node; with m->domains its
 * vCPUs split evenly over them in vCPU order, each die's vCPUs pinned to
 * its domain's usable CPUs (VnLedgerCell.vcpu_cpus); else they float
 * over the target node's usable CPUs.  Within the VM's allowed CPUs when
 * it has them.  FALSE when `r` has no such cell or the target CPUs are
 * none. */
gboolean vn_ledger_record_apply_move(VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
                                     const VnPolicy *policy, const VnMove *m);

/* Does record `r` fit on `t` given `load` (everyone else) and `policy`?
 * Checks per cell: the node exists and its CPUs are the node's, usable
 * memory (total - reserved - headroom) covers committed + this cell +
 * overhead, measured free memory (when known) covers this cell, shared
 * vCPUs within the overcommit ratio, dedicated CPUs free and not
 * host-reserved, hugepages available.  FALSE with a one-line reason in
 * `ret_reason` ("node 1: 512 MiB usable memory left, cell 0 needs 2048
 * MiB"). */
gboolean vn_ledger_record_fits(const VnLedgerRecord *r, const VnTopology *t, const VnLoad *load,
                               const VnPolicy *policy, gchar **ret_reason);

/* Removes records whose domain no longer runs: no status file
 * <run_dir>/<name>.xml (libvirt keeps one per running domain, by default
 * /run/libvirt/qemu).  Records still `reserved` are kept for
 * `reserved_grace_s` seconds after their time (a start in progress has no
 * status file yet).  Returns how many were removed; names in
 * `ret_removed` (may be NULL). */
guint vn_ledger_reclaim(VnLedger *l, const gchar *run_dir, gint64 now, guint reserved_grace_s,
                        GPtrArray **ret_removed);

/* Removes only records whose `expires` has passed (now >= expires),
 * whether or not a domain of that name runs.  Returns how many; their
 * names in `ret_removed` (may be NULL). */
guint vn_ledger_reclaim_expired(VnLedger *l, gint64 now, GPtrArray **ret_removed);

/* For the hook at a VM's start: removes and returns (transfer full) the
 * hold vnumad reserved for the VM named `name` — a record with `expires`
 * set and that name — so the VM's own placement may use its room; NULL
 * when there is none.  A lapsed hold (now >= expires) is removed too but
 * not returned. */
VnLedgerRecord *vn_ledger_take_reservation(VnLedger *l, const gchar *name, gint64 now);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnLedgerRecord, vn_ledger_record_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnLedger, vn_ledger_free)
