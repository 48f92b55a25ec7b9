/* vn-engine-residents.h: the ledger's VMs as the placement core's
 * requests and placements, for the engine's steps that move placed VMs
 * (defragmentation at admission, consolidation at a VM's stop).  Private
 * to plugin/engine. */
#pragma once

#include <glib.h>
#include "vn-ledger.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

/* Record `r` as the request and placement vn_load_commit() would have
 * committed: per cell the same memory, overhead and vCPUs as
 * vn_ledger_to_load() counts, each vCPU pinned as recorded (its own pin,
 * else its cell's CPUs, a dedicated cell's k-th vCPU on its k-th CPU);
 * the request carries the record's vCPUs, memory, priority, dedication,
 * hugepage size and allowed CPUs, a `whole` record (no guest cells) an
 * interleaved placement.  NULL when a cell's node is not on `t` or its
 * CPUs do not parse.  *ret_req is set only on success. */
VnPlacement *vn_engine_record_placement(const VnLedgerRecord *r, const VnTopology *t,
                                        VnRequest **ret_req);

/* The ledger's records `keep` accepts, each with its request and
 * placement (index i of the three arrays the same VM); records that do
 * not convert are left out. */
typedef struct {
    GPtrArray *records; /* VnLedgerRecord*, borrowed from the ledger */
    GPtrArray *requests, *placements;
} VnEngineResidents;

typedef gboolean (*VnEngineResidentFilter)(const VnLedgerRecord *r, const VnTopology *t,
                                           gconstpointer data);

void vn_engine_residents_init(VnEngineResidents *res, const VnLedger *l, const VnTopology *t,
                              VnEngineResidentFilter keep, gconstpointer data);
void vn_engine_residents_clear(VnEngineResidents *res);

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VnEngineResidents, vn_engine_residents_clear)
