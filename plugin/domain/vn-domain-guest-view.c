/* vn-domain-guest-view.c: whether the guest can see the cells it is given. */
#include "vn-domain-private.h"

/* An x86 guest learns its NUMA cells from the ACPI SRAT and SLIT tables
 * QEMU builds; libvirt turns ACPI off (-machine acpi=off) unless the domain
 * has <features><acpi/>, and the guest then sees one node whatever its
 * cells say (seen in the emulated host: "A valid RSDP was not found",
 * node0 only).  Other architectures (aarch64 virt) also describe NUMA in
 * the device tree.  A missing <os><type arch> is the host's architecture. */
static gboolean
arch_needs_acpi_for_numa(const gchar *arch)
{
    if (!arch) {
#if defined(__x86_64__) || defined(__i386__)
        return TRUE;
#else
        return FALSE;
#endif
    }
    return g_str_equal(arch, "x86_64") || g_str_equal(arch, "i686");
}

gboolean
vn_domain_guest_sees_cells(const VnDomain *d)
{
    xmlNode *root = xmlDocGetRootElement(d->doc);
    g_autofree gchar *arch = vn_xml_prop(vn_xml_child(vn_xml_child(root, "os"), "type"), "arch");

    return vn_xml_child(vn_xml_child(root, "features"), "acpi") || !arch_needs_acpi_for_numa(arch);
}

gchar *
vn_domain_guest_view_warning(const VnDomain *d)
{
    xmlNode *root = xmlDocGetRootElement(d->doc);
    xmlNode *numa = vn_xml_child(vn_xml_child(root, "cpu"), "numa");
    g_autoptr(GPtrArray) cells = vn_xml_children(numa, "cell");
    g_autofree gchar *arch = vn_xml_prop(vn_xml_child(vn_xml_child(root, "os"), "type"), "arch");

    if (cells->len < 2 || vn_domain_guest_sees_cells(d))
        return NULL;
    return g_strdup_printf("domain '%s' has %u guest NUMA cells but no <features><acpi/>: "
                           "an %s guest reads its cells from ACPI and will see one node",
                           d->name, cells->len, arch ? arch : "x86");
}

void
vn_domain_check_guest_view(const VnDomain *d, VnPlacement *p)
{
    g_autofree gchar *w = vn_domain_guest_view_warning(d);

    if (w)
        vn_placement_add_warning(p, "%s", w);
}
