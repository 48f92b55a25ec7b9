/* vn-ledger-record-json.h: a ledger record as vnumactl and vnumad show it,
 * the one writer behind `vnumactl reservations --json`, GET /v1/domains
 * and GET /v1/reservations (ledger.json itself, KiB only, is written by
 * vn_ledger_format()).  The members, in this order:
 *
 *   "name", "uuid", "state" ("reserved" | "running"), "needs_apply",
 *   "dedicated", "priority" ("low" | "normal" | "high"), "hugepage_kib",
 *   "nodes" ("0,1": host kernel node numbers), "vcpus", "memory_mib",
 *   "memory_kib", "last_change" (unix seconds), "expires" (unix seconds,
 *   only when set), "cells": [{"id", "node", "cpus", "vcpus",
 *   "memory_mib", "memory_kib"}]
 *
 * Every "memory_mib" is vn_size_kib_to_mib() of the "memory_kib" beside
 * it (nearest MiB, halves up); "vcpus" and "memory_*" of the record are
 * the sums over its cells. */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-ledger.h"

/* Adds the members above to the object being built in `b` (callers add
 * their own before or after: the API's "id", the measured locality). */
void vn_ledger_record_add_json(JsonBuilder *b, const VnLedgerRecord *r);
/* The members above as one object (transfer full). */
JsonNode *vn_ledger_record_to_json(const VnLedgerRecord *r);
