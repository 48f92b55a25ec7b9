/* vn-engine.h: the one path from a domain to its placement: the domain's
 * XML (domain/) and the host's facts (host/) make a request, the placement
 * core (scheduler/) answers it, and the answer is written into the domain.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "vn-config.h"
#include "vn-domain.h"
#include "vn-ledger.h"
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-request.h"
#include "vn-topology.h"

/* ---- domain -> request (vn-engine-request.c) ---------------------------
 * vCPUs = the maximum (every vCPU that can come online is pinned); memory =
 * <memory>; cells = the number of existing <cpu><numa> cells, 0 = vnuma
 * chooses (vn_engine_run() then sets it by the cell rule below);
 * cell_sizes = each cell's vCPU count and memory when the cells differ in
 * size and hold every vCPU once (NULL for identical cells: the even
 * split); allowed_cpus = <vcpu cpuset> (d->allowed_cpus); devices with
 * their host node read under `sysroot` (NULL or "" = "/"), devices
 * without NUMA information skipped.  Device IOThreads are given as
 * ordinals 1..N of the domain's IOThread ids (equal to the ids in the
 * usual case of ids 1..N); tiers = the metadata's tiers wish (else the
 * policy's); interleave = the metadata's memory='interleave', or, for a
 * domain without guest cells whose guest cannot see them (x86 without
 * ACPI), NO_CELLS.  Errors (VN_DOMAIN_ERROR_INVALID): hugepages
 * of several sizes. */
VnRequest *vn_domain_to_request(const VnDomain *d, const gchar *sysroot, GError **error);

/* ---- the whole path (vn-engine-run.c) ----------------------------------
 * One entry point for every caller that turns a domain into a placement:
 * `vnumactl plan DOMAIN.xml`, `define`, `place`, POST /v1/plan with
 * domain_xml, the hook's prepare (no placement recorded, or a recorded one
 * that no longer fits) and the hook's migrate/restore filter. */
typedef enum {
    VN_ENGINE_PLAN,   /* `vnumactl plan DOMAIN.xml`, POST /v1/plan: rewrite */
    VN_ENGINE_DEFINE, /* `vnumactl define DOMAIN.xml`: rewrite (then define) */
    VN_ENGINE_PLACE,  /* `vnumactl place NAME`: rewrite the persistent XML */
    VN_ENGINE_START,  /* hook prepare: plan only, the XML is not rewritten
                        * (libvirt discards the hook's output) */
    VN_ENGINE_FILTER, /* hook migrate/restore: rewrite pins and numatune of
                        * a running guest, only when its guest cells stay */
    VN_ENGINE_MAX
} VnEngineIntent;

/* "plan", "define", "place", "start", "filter". */
const gchar *vn_engine_intent_to_string(VnEngineIntent intent);

/* The host the domain is placed on; borrowed. */
typedef struct {
    const VnTopology *t;
    const VnLoad *load; /* everyone else's */
    const VnPolicy *policy;
    const gchar *sysroot; /* device nodes; NULL or "" = "/" */
    /* [placement] defragment (vn-config.h) and the host's ledger, whose
     * movable VMs it may move: this host's, or the one `plan --state-dir`
     * names (vn_source_load_with_ledger(); NULL: none, as for a topology that is
     * another host's without one); PLAN, DEFINE, PLACE and START (the
     * hook, which records the moves for a live apply) look. */
    VnDefragment defragment;
    const VnLedger *ledger;
} VnEngineHost;

/* ---- the cell-count rule (vn-engine-cells.c) ----------------------------
 * How many guest cells a domain gets, and whether the core may choose
 * them again.  g = the domain's own <cpu><numa> cells, m = the cells of
 * the placement vnuma recorded in its metadata (0 = none):
 *   g > 0, cells of their own sizes    -> g, with those sizes (guest ABI;
 *                                          never re-chosen, dedicated too)
 *   g > 0, identical cells, m == g     -> vnuma's own cells: the core gets
 *                                          a free hand first and its answer
 *                                          is kept when it has g cells
 *                                          (placing a placed domain again
 *                                          gives its first answer); else g
 *   g > 0, identical cells, m != g     -> g (the user's cells, or cells
 *                                          edited after vnuma placed them)
 *   g == 0, FILTER                     -> 1: a running guest without NUMA
 *                                          sees one node and must keep it
 *   g == 0, every other intent         -> 0: the core chooses (a recorded
 *                                          count without guest cells is no
 *                                          guest ABI)
 * Dedicated and SMT hints do not change the count. */
typedef struct {
    guint cells;       /* the request's `cells`: 0 = the core chooses */
    gboolean rechoose; /* plan with cells = 0 first, keep a `cells`-cell answer */
} VnEngineCells;

VnEngineCells vn_engine_cell_rule(const VnDomain *d, VnEngineIntent intent, const VnRequest *req);

/* ---- defragmentation at admission (vn-engine-defrag.c) --------------------
 * The rebalancer's round is the budget: at most this many VMs moved, this
 * much memory in all. */
#define VN_ENGINE_DEFRAG_MAX_MOVES 2
#define VN_ENGINE_DEFRAG_MAX_MEMORY_KIB ((guint64)16 * 1024 * 1024)

/* One VM moved whole from one node to another before the new VM is
 * placed.  `before` is its ledger record as read; `after` the same with
 * its cell on `to_node`, pinned as the rebalancer pins a moved cell
 * (vn_ledger_record_apply_move()): what the live apply applies and the
 * ledger then records. */
typedef struct {
    gchar *vm;
    guint cell;      /* its guest cell id */
    guint from_node; /* node indices (VnTopology order) */
    guint to_node;
    guint vcpus;
    guint64 memory_kib;
    VnLedgerRecord *before;
    VnLedgerRecord *after;
} VnEngineMove;

void vn_engine_move_clear(VnEngineMove *m);

/* ---- running it (vn-engine-run.c) ---------------------------------------- */
typedef struct {
    VnRequest *request;     /* what was planned */
    VnPlacement *placement; /* NULL when no placement fits or on error */
    GPtrArray *reasons;     /* on no fit: what is short (strings) */
    gchar *xml;             /* PLAN/DEFINE/PLACE: the rewritten domain;
                              * FILTER: the XML to print, or NULL to keep
                              * the incoming XML (then `kept` says why);
                              * START: NULL */
    const gchar *kept;      /* FILTER: why the XML stays, static */
    /* Defragmentation (host->defragment PROPOSE or APPLY, a placement
     * split over nodes): `moves` (of VnEngineMove, in the order to make
     * them) let the VM fit node `defrag_node` (kernel number).  PROPOSE:
     * `placement` and `xml` stay the split ones.  APPLY: `placement` and
     * `xml` are the one-node ones, valid once the moves are made; `split`
     * and `split_xml` the placement without them (the fallback when a
     * move fails).  `defrag_note`: why no moves were found (NULL when
     * none were looked for or they were). */
    GArray *moves;
    guint defrag_node;
    VnPlacement *split;
    gchar *split_xml;
    gchar *defrag_note;
} VnEngineResult;

void vn_engine_result_clear(VnEngineResult *r);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VnEngineResult, vn_engine_result_clear)

/* domain -> request (cell rule applied) -> vn_plan -> written into `d`
 * (PLAN/DEFINE/PLACE, and FILTER when the guest cells stay; START leaves
 * `d` alone).  `o` is the writer's options (NULL: defaults; FILTER always
 * forces, the incoming pins being the old host's).  FALSE on failure:
 * VN_PLAN_ERROR_NO_FIT (ret->reasons says what is short, ret->request is
 * set), VN_PLAN_ERROR_INVALID_REQUEST, or a VN_DOMAIN_ERROR (hand-written
 * pins, hugepages of several sizes), each prefixed with the domain's name.
 * `ret` is cleared first and filled as far as the run got. */
gboolean vn_engine_run(VnDomain *d, const VnEngineHost *host, VnEngineIntent intent,
                       const VnDomainWriteOptions *o, VnEngineResult *ret, GError **error);

/* The defragmentation step of vn_engine_run() (PLAN, DEFINE, PLACE, START),
 * for a placement in ret->placement of ret->request (which must leave
 * the core its cells: cells and cell_sizes unset) by a domain named
 * `name` (left out of the VMs that may move): fills ret->moves,
 * defrag_node and, for APPLY, swaps in the one-node placement and keeps
 * the split one in ret->split; or sets ret->defrag_note.  Nothing when
 * host->defragment is OFF, there is no ledger or the placement is on one
 * node.  Also for `vnumactl plan`/`explain` from flags. */
void vn_engine_defragment(const VnEngineHost *host, const gchar *name, VnEngineResult *ret);

/* ---- consolidation at a VM's stop (vn-engine-consolidate.c) ------------
 * One VM vnuma split over host nodes put back on fewer of them, its guest
 * cells kept (vn_rebalance_consolidate(), budget VN_CONSOLIDATE_MAX_VMS
 * and VN_CONSOLIDATE_MAX_MEMORY_KIB).  `before` is its ledger record as
 * read, `after` the same VM with its cells on their new nodes (cell ids,
 * state, priority and time kept), needs_apply set: what the live apply
 * applies. */
typedef struct {
    gchar *vm;
    guint nodes_before; /* host nodes holding its memory, before */
    guint nodes_after;  /* and after (fewer) */
    guint64 moved_kib;  /* memory that moves */
    VnLedgerRecord *before;
    VnLedgerRecord *after;
} VnEngineConsolidation;

void vn_engine_consolidation_clear(VnEngineConsolidation *c);

/* The consolidations (of VnEngineConsolidation, with a clear function;
 * possibly none) among host->ledger's running VMs, host->load being what
 * that whole ledger commits (vn_ledger_to_load() without a skip): the
 * caller removed the stopped VM's record first.  Only records vnuma may
 * move are looked at: running, not a hold, not another manager's, with
 * guest cells (not `whole`), every cell on a node of host->t; the core
 * leaves out dedicated, hugepage-backed and CPU-restricted VMs.  Nothing
 * (an empty array) without a ledger. */
GArray *vn_engine_consolidate(const VnEngineHost *host);

/* "VM from nodes 0,1 onto node 1, 512 MiB" (nodes by kernel number). */
gchar *vn_engine_consolidation_describe(const VnEngineConsolidation *c);

/* vn-engine-defrag-json.c: a member "defragment" of `o` when `mode` looked
 * for moves: {"mode", "moves": [{"vm", "cell", "from_node", "to_node"
 * (kernel numbers), "vcpus", "memory_mib"}], "node" (where the VM fits
 * after them), "placed_after_moves" (APPLY: the placement given assumes
 * them), "note" (why there are none)}; nothing when OFF or nothing was
 * looked for. */
void vn_engine_defrag_add_json(JsonObject *o, const VnTopology *t, VnDefragment mode,
                               const VnEngineResult *res);

/* ---- the persistent definition following a live move (vn-engine-follow.c)
 * After ledger record `r` was applied live (a start's re-plan, a
 * consolidation, a defragmentation or rebalancing move, a re-apply), the
 * domain's persistent definition `d` is rewritten to record `r`'s
 * placement on `t`: the same guest cells, vCPUs and memory, on the
 * record's nodes and CPUs (each vCPU pinned as the live apply pins it,
 * the emulator on all the cells' CPUs, each IOThread with the guest cell
 * it was with); nothing is planned again.  It is written by `place`'s
 * writer (vn_domain_apply_placement(), never forced; `memory_mode` as
 * `place` passes [placement] memory_mode).  *ret_outcome:
 *   REWRITTEN  `d` now records `r` (the caller defines it)
 *   UNCHANGED  `d` records `r`'s nodes and CPUs already; `d` untouched
 *   UNPLACED   `d` records no vnuma placement; `d` untouched: the hook
 *              plans such a domain afresh at each start
 * FALSE with `d` untouched: VN_DOMAIN_ERROR_HANDWRITTEN (pins or
 * numatune of another manager: kept, as `place` keeps them without
 * --force) or VN_DOMAIN_ERROR_MISMATCH (the guest's cells or vCPUs are not
 * the record's, or a node or CPU is not on `t`), naming the domain. */
typedef enum {
    VN_ENGINE_FOLLOW_REWRITTEN,
    VN_ENGINE_FOLLOW_UNCHANGED,
    VN_ENGINE_FOLLOW_UNPLACED,
    VN_ENGINE_FOLLOW_MAX
} VnEngineFollow;

/* "rewritten", "unchanged", "unplaced". */
const gchar *vn_engine_follow_to_string(VnEngineFollow f);

gboolean vn_engine_follow_record(VnDomain *d, const VnTopology *t, const VnLedgerRecord *r,
                                 VnMemoryMode memory_mode, VnEngineFollow *ret_outcome,
                                 GError **error);
