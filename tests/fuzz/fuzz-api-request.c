/* fuzz-api-request.c: the body of vnumad's POST /v1/plan, /v1/fit and
 * /v1/reservations, taken as the daemon takes it: vnd_body_parse() with
 * the members each endpoint allows, vnd_spec_parse() for that endpoint,
 * and for /v1/plan vnd_plan_run() on a daemon state of the fixture host
 * (its config and empty ledger in the temporary directory), the request
 * or the domain_xml planned and rewritten with no side effect. */
#include "vn-fuzz.h"
#include "vnd.h"
#include "vnd-spec.h"

#include <string.h>

static VndState *state;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    g_autofree gchar *topology = NULL;
    g_autofree gchar *conf = NULL;
    g_autoptr(GError) error = NULL;
    VnSourceOptions o = { .topology_file = NULL };

    vn_fuzz_init();
    topology = vn_fuzz_source_path("tests/data/hwloc/64amd64-4p2n4ca2co.xml");
    conf = g_strdup_printf("[paths]\nstate_dir = %s\n", vn_fuzz_dir());
    o.topology_file = topology;
    o.config_file = (gchar *)vn_fuzz_write("vnuma.conf", (const uint8_t *)conf, strlen(conf));
    state = vnd_state_new(&o, &error);
    if (!state)
        vn_fuzz_fail("cannot start the daemon's state", error);
    return 0;
}

/* The daemon answers every failure with the error's message and, for
 * VND_ERROR, its code as the HTTP status. */
static void
check_http_error(gboolean ok, const GError *error)
{
    vn_fuzz_check(ok, error, NULL);
    if (!ok && error->domain == VND_ERROR && (error->code < 400 || error->code > 599))
        vn_fuzz_fail("a VND_ERROR without an HTTP status", error);
}

static void
plan(VndSpec *spec)
{
    g_autoptr(GError) error = NULL;
    g_auto(VndPlanOutcome) out = { .request = NULL };
    const VnLoad *load = vnd_state_load(state, &error);
    gboolean ok;

    if (!load)
        vn_fuzz_fail("no load for the daemon's state", error);
    ok = vnd_plan_run(state, spec, load, NULL, &out, &error);
    if (!ok && vnd_plan_error_is_no_fit(error))
        return;
    check_http_error(ok, error);
    if (ok && spec->domain_xml && !out.xml)
        vn_fuzz_fail("a domain planned without its rewritten XML", NULL);
}

static void
one_endpoint(const uint8_t *data, size_t size, VndSpecKind kind)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) body =
        vnd_body_parse((const gchar *)data, size, vnd_spec_members(kind), &error);
    g_autoptr(VndSpec) spec = NULL;

    check_http_error(body != NULL, error);
    if (!body)
        return;
    spec = vnd_spec_parse(json_node_get_object(body), kind, &error);
    check_http_error(spec != NULL, error);
    if (spec && kind == VND_SPEC_PLAN)
        plan(spec);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    for (VndSpecKind kind = 0; kind < VND_SPEC_MAX; kind++)
        one_endpoint(data, size, kind);
    return 0;
}
