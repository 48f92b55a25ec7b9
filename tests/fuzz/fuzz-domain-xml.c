/* fuzz-domain-xml.c: a libvirt domain XML, read as `vnumactl plan
 * DOMAIN.xml`, vnumad's "domain_xml" and the qemu hook read it.
 *
 * vn_domain_load_buffer(), then what the rest of the one placement path
 * takes from a loaded domain: its request (devices' nodes read below a
 * fixture sysroot), its recorded placement, vn_domain_place() on the
 * fixture host (plan and rewrite), and the rewritten domain, which vnuma
 * must be able to read back. */
#include "vn-fuzz.h"

#include <string.h>

#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-plan.h"

#define ORIGIN "fuzz-domain.xml"

static gchar *sysroot;

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    sysroot = vn_fuzz_source_path("tests/data/domain/sysroot");
    return 0;
}

static void
check_recorded(const VnDomain *d)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = vn_domain_recorded_placement(d, vn_fuzz_topology(), &error);

    /* NULL without an error is "nothing recorded" */
    if (p || error)
        vn_fuzz_check(p != NULL, error, NULL);
}

static void
place(VnDomain *d)
{
    const VnDomainWriteOptions o = { .force = TRUE, .time = "2026-01-01T00:00:00Z" };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLoad) load = vn_fuzz_load_new();
    const VnEngineHost host = {
        .t = vn_fuzz_topology(), .load = load, .policy = vn_fuzz_policy(), .sysroot = sysroot
    };
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(VnDomain) again = NULL;
    gboolean ok;

    ok = vn_engine_run(d, &host, VN_ENGINE_PLAN, &o, &res, &error);
    vn_fuzz_check(ok, error, NULL);
    if (!ok)
        return;
    again = vn_domain_load_buffer(res.xml, strlen(res.xml), "rewritten", &error);
    if (!again)
        vn_fuzz_fail("the rewritten domain does not load", error);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;
    g_autoptr(VnRequest) r = NULL;

    d = vn_domain_load_buffer((const gchar *)data, size, ORIGIN, &error);
    vn_fuzz_check(d != NULL, error, ORIGIN);
    if (!d)
        return 0;
    g_free(vn_domain_to_string(d));
    r = vn_domain_to_request(d, sysroot, &error);
    vn_fuzz_check(r != NULL, error, NULL);
    g_clear_error(&error);
    check_recorded(d);
    place(d);
    return 0;
}
