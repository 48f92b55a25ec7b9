/* test-domain-guest-view.c: what vn_engine_run() does when the guest, as
 * written, cannot see NUMA cells (x86 without <features><acpi/>; found in
 * the emulated host, where such a guest booted with one node and "A valid
 * RSDP was not found"): a guest without cells of its own that needs
 * several nodes gets its memory interleaved over them instead of cells it
 * would not see; one with cells of its own keeps them, with a warning. */
#include <glib.h>
#include <string.h>
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-topology-source.h"

/* 8 vCPUs and 16 GiB: on 2 nodes of 12 GiB it needs 2 nodes */
static const gchar *const TEMPLATE = "<domain type='qemu'>\n"
                                     "  <name>g</name>\n"
                                     "  <memory unit='GiB'>%s</memory>\n"
                                     "  <vcpu placement='static'>8</vcpu>\n"
                                     "  %s\n"
                                     "  <os><type %s machine='pc'>hvm</type></os>\n"
                                     "  %s\n"
                                     "</domain>\n";

/* The user's own two guest cells of 8 GiB. */
static const gchar *const OWN_CELLS = "<cpu><numa>"
                                      "<cell id='0' cpus='0-3' memory='8' unit='GiB'/>"
                                      "<cell id='1' cpus='4-7' memory='8' unit='GiB'/>"
                                      "</numa></cpu>";

typedef struct {
    VnPlacement *p;
    gchar *xml;
} Placed;

static void
placed_clear(Placed *r)
{
    g_clear_pointer(&r->p, vn_placement_free);
    g_clear_pointer(&r->xml, g_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Placed, placed_clear)

/* Places the domain (memory GiB, features XML, arch attribute, <cpu>
 * XML) on a 2-node host of 8 CPUs and 12 GiB per node. */
static void
place(const gchar *gib, const gchar *features, const gchar *arch, const gchar *cpu, Placed *ret)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *xml = g_strdup_printf(TEMPLATE, gib, features, arch, cpu);
    g_autoptr(VnDomain) d = vn_domain_load_buffer(xml, strlen(xml), "g.xml", &error);
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("numa:2(memory=12GB) core:4 pu:2", &error);
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnPolicy) policy = NULL;
    VnDomainWriteOptions o = { .memory_mode = VN_MEMORY_MODE_AUTO, .time = "2026-11-29T22:00:00Z" };

    g_assert_no_error(error);
    g_assert_nonnull(d);
    load = vn_load_new(t);
    policy = vn_policy_new_default(t);
    {
        const VnEngineHost host = { .t = t, .load = load, .policy = policy };
        g_auto(VnEngineResult) res = { 0 };
        g_assert_true(vn_engine_run(d, &host, VN_ENGINE_PLAN, &o, &res, &error));
        g_assert_no_error(error);
        ret->p = g_steal_pointer(&res.placement);
        ret->xml = g_steal_pointer(&res.xml);
    }
}

static gboolean
has_reason(const VnPlacement *p, const gchar *part)
{
    for (guint i = 0; i < p->reasons->len; i++)
        if (strstr(g_ptr_array_index(p->reasons, i), part))
            return TRUE;
    return FALSE;
}

static void
assert_interleaved(const Placed *r)
{
    g_assert_cmpuint(r->p->cells->len, ==, 2);
    g_assert_true(r->p->interleave);
    g_assert_cmpuint(r->p->warnings->len, ==, 0);
    g_assert_true(has_reason(r->p, "the guest cannot see NUMA cells"));
    g_assert_nonnull(strstr(r->xml, "<memory mode='interleave' nodeset='0-1'/>"));
    g_assert_null(strstr(r->xml, "<numa>"));
    g_assert_null(strstr(r->xml, "<memnode"));
    /* every vCPU floats over both nodes' CPUs */
    g_assert_nonnull(strstr(r->xml, "<vcpupin vcpu='7' cpuset='0-15'/>"));
}

static void
test_x86_without_acpi(void)
{
    g_auto(Placed) r = { 0 };

    place("16", "", "arch='x86_64'", "", &r);
    assert_interleaved(&r);
}

static void
test_x86_without_acpi_own_cells(void)
{
    g_auto(Placed) r = { 0 };

    place("16", "", "arch='x86_64'", OWN_CELLS, &r);
    g_assert_false(r.p->interleave);
    g_assert_cmpuint(r.p->warnings->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(r.p->warnings, 0), ==,
                    "domain 'g' has 2 guest NUMA cells but no <features><acpi/>: an x86_64 "
                    "guest reads its cells from ACPI and will see one node");
}

static void
test_x86_with_acpi(void)
{
    g_auto(Placed) r = { 0 };

    place("16", "<features><acpi/><apic/></features>", "arch='x86_64'", "", &r);
    g_assert_cmpuint(r.p->cells->len, ==, 2);
    g_assert_false(r.p->interleave);
    g_assert_cmpuint(r.p->warnings->len, ==, 0);
    g_assert_nonnull(strstr(r.xml, "<numa>"));
}

static void
test_one_cell_needs_nothing(void)
{
    g_auto(Placed) r = { 0 };

    place("4", "", "arch='i686'", "", &r);
    g_assert_cmpuint(r.p->cells->len, ==, 1);
    g_assert_false(r.p->interleave);
    g_assert_cmpuint(r.p->warnings->len, ==, 0);
    g_assert_nonnull(strstr(r.xml, "<memory mode='restrictive' nodeset='"));
}

static void
test_aarch64_has_a_device_tree(void)
{
    g_auto(Placed) r = { 0 };

    place("16", "", "arch='aarch64'", "", &r);
    g_assert_cmpuint(r.p->cells->len, ==, 2);
    g_assert_false(r.p->interleave);
    g_assert_cmpuint(r.p->warnings->len, ==, 0);
}

static void
test_no_arch_is_the_host(void)
{
    g_auto(Placed) r = { 0 };

    place("16", "", "", "", &r);
#if defined(__x86_64__) || defined(__i386__)
    assert_interleaved(&r);
#else
    g_assert_false(r.p->interleave);
#endif
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/domain/guest-view/x86-without-acpi", test_x86_without_acpi);
    g_test_add_func("/domain/guest-view/x86-without-acpi-own-cells",
                    test_x86_without_acpi_own_cells);
    g_test_add_func("/domain/guest-view/x86-with-acpi", test_x86_with_acpi);
    g_test_add_func("/domain/guest-view/one-cell", test_one_cell_needs_nothing);
    g_test_add_func("/domain/guest-view/aarch64", test_aarch64_has_a_device_tree);
    g_test_add_func("/domain/guest-view/no-arch", test_no_arch_is_the_host);
    return g_test_run();
}
