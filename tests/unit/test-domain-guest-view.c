/* test-domain-guest-view.c: the warning vn_engine_run() gives when the
 * guest, as written, cannot see the NUMA cells it was given (x86 without
 * <features><acpi/>; found in the emulated host, where such a guest booted
 * with one node and "A valid RSDP was not found"). */
#include <glib.h>
#include <string.h>
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-topology-source.h"

/* 8 vCPUs and 16 GiB: on 2 nodes of 8 GiB it needs 2 cells */
static const gchar *const TEMPLATE = "<domain type='qemu'>\n"
                                     "  <name>g</name>\n"
                                     "  <memory unit='GiB'>%s</memory>\n"
                                     "  <vcpu placement='static'>8</vcpu>\n"
                                     "  %s\n"
                                     "  <os><type %s machine='pc'>hvm</type></os>\n"
                                     "</domain>\n";

/* Places the domain (memory GiB, features XML, arch attribute) on a
 * 2-node host of 8 CPUs and 12 GiB per node; returns the warnings. */
static GPtrArray *
place(const gchar *gib, const gchar *features, const gchar *arch, guint *ret_cells)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *xml = g_strdup_printf(TEMPLATE, gib, features, arch);
    g_autoptr(VnDomain) d = vn_domain_load_buffer(xml, strlen(xml), "g.xml", &error);
    g_autoptr(VnTopology) t = vn_topology_load_synthetic("numa:2(memory=12GB) core:4 pu:2", &error);
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnPolicy) policy = NULL;
    g_autoptr(VnPlacement) p = NULL;
    VnDomainWriteOptions o = { .memory_mode = VN_MEMORY_MODE_AUTO, .time = "2026-11-29T22:00:00Z" };

    g_assert_no_error(error);
    g_assert_nonnull(d);
    load = vn_load_new(t);
    policy = vn_policy_new_default(t);
    {
        const VnEngineHost host = { .t = t, .load = load, .policy = policy };
        g_auto(VnEngineResult) res = { 0 };
        g_assert_true(vn_engine_run(d, &host, VN_ENGINE_PLAN, &o, &res, &error));
        p = g_steal_pointer(&res.placement);
    }
    g_assert_no_error(error);
    *ret_cells = p->cells->len;
    return g_ptr_array_ref(p->warnings);
}

static void
test_x86_without_acpi(void)
{
    guint cells;
    g_autoptr(GPtrArray) w = place("16", "", "arch='x86_64'", &cells);

    g_assert_cmpuint(cells, ==, 2);
    g_assert_cmpuint(w->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(w, 0), ==,
                    "domain 'g' has 2 guest NUMA cells but no <features><acpi/>: an x86_64 "
                    "guest reads its cells from ACPI and will see one node");
}

static void
test_x86_with_acpi(void)
{
    guint cells;
    g_autoptr(GPtrArray) w =
        place("16", "<features><acpi/><apic/></features>", "arch='x86_64'", &cells);

    g_assert_cmpuint(cells, ==, 2);
    g_assert_cmpuint(w->len, ==, 0);
}

static void
test_one_cell_needs_nothing(void)
{
    guint cells;
    g_autoptr(GPtrArray) w = place("4", "", "arch='i686'", &cells);

    g_assert_cmpuint(cells, ==, 1);
    g_assert_cmpuint(w->len, ==, 0);
}

static void
test_aarch64_has_a_device_tree(void)
{
    guint cells;
    g_autoptr(GPtrArray) w = place("16", "", "arch='aarch64'", &cells);

    g_assert_cmpuint(cells, ==, 2);
    g_assert_cmpuint(w->len, ==, 0);
}

static void
test_no_arch_is_the_host(void)
{
    guint cells;
    g_autoptr(GPtrArray) w = place("16", "", "", &cells);

    g_assert_cmpuint(cells, ==, 2);
#if defined(__x86_64__) || defined(__i386__)
    g_assert_cmpuint(w->len, ==, 1);
    g_assert_nonnull(strstr(g_ptr_array_index(w, 0), "an x86 guest"));
#else
    g_assert_cmpuint(w->len, ==, 0);
#endif
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/domain/guest-view/x86-without-acpi", test_x86_without_acpi);
    g_test_add_func("/domain/guest-view/x86-with-acpi", test_x86_with_acpi);
    g_test_add_func("/domain/guest-view/one-cell", test_one_cell_needs_nothing);
    g_test_add_func("/domain/guest-view/aarch64", test_aarch64_has_a_device_tree);
    g_test_add_func("/domain/guest-view/no-arch", test_no_arch_is_the_host);
    return g_test_run();
}
