/* vnd-spec.h: a VM as the API receives it, validated into a request.
 *
 * Body members (all optional unless said):
 * (limits: the core's request schema, vn-request.h)
 *   vcpus (1..4096, required), memory_mib (1..2^30, required; both
 *   optional with cell_sizes),
 *   dedicated (bool), smt ("prefer"|"isolate"|"require", dedicated only),
 *   hugepages ("2M"|"1G" or 2048|1048576 KiB), iothreads (0..256),
 *   priority ("low"|"normal"|"high"), cells (0..256, 0 = vnuma chooses),
 *   cell_sizes ([{"vcpus": 0..4096, "memory_mib": 1..2^30}], 1..64 guest
 *   cells of their own sizes, at least one with vCPUs; vcpus, memory_mib
 *   and cells are then optional, and when given must equal the sums and
 *   the count; cells all of one size are planned as the even split),
 *   devices ([{"node": 0..4095, "iothread": 0..256, "name": str}], <= 256)
 * or instead of those:
 *   domain_xml (a libvirt domain, <= 1 MiB), force (bool: replace
 *   hand-written pins)
 * and per endpoint: explain (plan: add the candidates), ttl_s and name
 * (reservations).
 * Every error names the member: "vcpus: must be an integer from 1 to 4096".
 */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-engine.h"
#include "vn-request.h"
#include "vn-placement.h"
#include "vnd.h"

typedef enum {
    VND_SPEC_PLAN,
    VND_SPEC_FIT,
    VND_SPEC_RESERVE,
    VND_SPEC_MAX
} VndSpecKind;

typedef struct {
    VnRequest *request; /* NULL when domain_xml was given */
    gchar *domain_xml;
    gboolean force;
    gboolean explain;
    guint ttl_s;
    gchar *name; /* reservations: the VM's name, or NULL */
} VndSpec;

void vnd_spec_free(VndSpec *s);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VndSpec, vnd_spec_free)

/* The members `kind` accepts (NULL-terminated, static). */
const gchar *const *vnd_spec_members(VndSpecKind kind);
/* Validates `body` (an object holding only vnd_spec_members(kind));
 * VND_ERROR_BAD_REQUEST naming the member. */
VndSpec *vnd_spec_parse(JsonObject *body, VndSpecKind kind, GError **error);

/* ---- planning a spec (vnd-plan.c) --------------------------------------- */
typedef struct {
    VnRequest *request; /* what was planned (from the XML, or a copy) */
    VnPlacement *placement;
    GPtrArray *reasons; /* on no fit: what is short */
    gchar *xml;         /* the rewritten domain, when XML was given */
    gchar *domain_name; /* its <name>, when XML was given */
    /* With a ledger and [placement] defragment (vn_engine_defragment()):
     * the engine's moves, defrag_node and defrag_note, nothing else of
     * it; with apply, placement and xml are the ones after the moves,
     * which vnumad never makes. */
    VnEngineResult defrag;
} VndPlanOutcome;

void vnd_plan_outcome_clear(VndPlanOutcome *o);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VndPlanOutcome, vnd_plan_outcome_clear)

/* Plans `spec` against `load` with no side effect; the spec's request
 * moves into `out`.  `ledger` (NULL: none) is the one `load` was built
 * from, whose VMs [placement] defragment may move (POST /v1/plan only).
 * FALSE with: VN_PLAN_ERROR_NO_FIT (out->reasons says what is short), or
 * a VND_ERROR (400 bad XML or request, 409 a hand-written pin without
 * "force"). */
gboolean vnd_plan_run(VndState *state, VndSpec *spec, const VnLoad *load, const VnLedger *ledger,
                      VndPlanOutcome *out, GError **error);
/* Whether `error` is "no placement fits". */
gboolean vnd_plan_error_is_no_fit(const GError *error);
