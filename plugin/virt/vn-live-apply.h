/* vn-live-apply.h: a ledger record applied to a running domain through
 * libvirt's live APIs.  Links libvirt, so it lives with the CLI,
 * never in the hook (calling libvirt from a hook deadlocks).
 *
 * What moves live: vCPU pins (virDomainPinVcpuFlags), the emulator pin
 * (virDomainPinEmulator), IOThread pins (virDomainPinIOThread), and the
 * memory nodeset (virDomainSetNumaParameters) — the latter only when the
 * domain runs in numatune mode `restrictive` or without <numatune>; for
 * `strict` libvirt refuses, and the pages already allocated are moved once
 * with migrate_pages(2) (libnuma) instead; both are reported, not fatal.
 *
 * vCPUs are assigned to cells in order (cell 0 holds vCPUs 0..n0-1, ...),
 * as vn_plan() numbers them.  A vCPU whose cell records its own pin
 * (VnLedgerCell.vcpu_cpus: a guest die a cache domain) is pinned to it;
 * otherwise shared domains pin each vCPU to its cell's CPUs and dedicated
 * ones pin vCPU k of a cell to the k-th CPU of the cell.
 * Emulator and IOThreads go to the CPUs of the first cell.
 *
 * The persistent definition follows (vn_live_apply_persistent()): a VM
 * whose definition records a vnuma placement starts on the applied nodes
 * next time, not on the ones it was moved off.
 */
#pragma once

#include <glib.h>
#include <libvirt/libvirt.h>
#include "vn-ledger.h"
#include "vn-placement.h"
#include "vn-topology.h"

#define VN_LIVE_APPLY_ERROR (vn_live_apply_error_quark())
GQuark vn_live_apply_error_quark(void);
typedef enum {
    VN_LIVE_APPLY_ERROR_LIBVIRT, /* a libvirt call failed */
    VN_LIVE_APPLY_ERROR_TIMEOUT, /* the domain never became running */
    VN_LIVE_APPLY_ERROR_RECORD,  /* the record does not describe this domain */
    VN_LIVE_APPLY_ERROR_MAX
} VnLiveApplyError;

/* The host the record's nodes are on, for the persistent definition;
 * borrowed. */
typedef struct {
    const VnTopology *t; /* NULL: unknown, `why` (may be NULL) says why */
    const gchar *why;
    VnMemoryMode memory_mode; /* [placement] memory_mode, as `place` writes it */
} VnLiveApplyHost;

/* Waits (up to `timeout_s`) until `dom` is running, then applies `r`,
 * then lets its persistent definition follow (vn_live_apply_persistent()
 * with `host`).  Each step's outcome is appended to `ret_log` (one line
 * per step, including non-fatal refusals such as the memory nodeset of a
 * strict domain).  Fails on the first vCPU/emulator pin that libvirt
 * refuses after retrying while the domain's job is busy.  A persistent
 * definition that could not follow neither fails nor undoes the apply:
 * *ret_warning gets one line naming the domain and why (NULL when it
 * followed or had nothing to follow; `ret_warning` NULL: the line goes to
 * the log). */
gboolean vn_live_apply(virDomainPtr dom, const VnLedgerRecord *r, guint timeout_s,
                       const VnLiveApplyHost *host, GPtrArray *ret_log, gchar **ret_warning,
                       GError **error);

/* vn-live-persistent.c: the persistent definition of `dom` after `r` was
 * applied live.  A definition that records a vnuma placement is rewritten
 * to `r`'s (vn_engine_follow_record(): the same guest cells on the
 * record's nodes and CPUs, never re-planned) and defined again
 * (virDomainDefineXMLFlags, validated); one that records none is left
 * alone (the hook plans it afresh at each start), and so is a transient
 * domain.  TRUE with *ret_line saying which; FALSE when it could not
 * follow: another manager's pins (VN_DOMAIN_ERROR_HANDWRITTEN, kept as
 * `place` keeps them without --force), guest cells that are not the
 * record's, an unknown topology, or libvirt refusing. */
gboolean vn_live_apply_persistent(virDomainPtr dom, const VnLedgerRecord *r,
                                  const VnLiveApplyHost *host, gchar **ret_line, GError **error);

/* vn-live-metadata.c: writes `r` as the running domain's vnuma placement
 * metadata (live only; the request hints already there are kept), so the
 * status XML libvirt keeps tells where the VM really runs.  `n_cpus`: the
 * host's CPU count (bitmap capacity). */
gboolean vn_live_apply_metadata(virDomainPtr dom, const VnLedgerRecord *r, guint n_cpus,
                                GError **error);
