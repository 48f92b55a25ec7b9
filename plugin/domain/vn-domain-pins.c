/* vn-domain-pins.c: the pins and memory nodes of a domain that another
 * manager placed (OpenStack Nova, libvirt's own numad placement, an
 * operator's hand-written <cputune> or <numatune>), read so that vnuma
 * can count what they hold without ever changing them.
 *
 * "Foreign" is what vn_domain_cputune_handwritten() and
 * vn_domain_numatune_handwritten() call hand-written: anything vnuma's
 * metadata does not record.  <vcpu cpuset> alone is not a placement but
 * the set the other manager allows the VM (Nova's cpu_shared_set): when
 * vnuma can read it, it is an allowed set to place within.  A pin libvirt
 * accepted but vnuma cannot read (a cpuset with '^' exclusions beyond
 * PIN_BITS, say) only makes that vCPU count as unpinned. */
#include "vn-domain-private.h"
#include "vn-cpulist.h"

#define PIN_BITS VN_DOMAIN_CPUSET_BITS

static VnBitmap *
cpuset_of(const xmlNode *n, const gchar *attr)
{
    g_autofree gchar *s = vn_xml_prop(n, attr);

    return s ? vn_cpulist_parse(s, PIN_BITS, NULL) : NULL;
}

static void
read_vcpupins(VnDomainPins *p, const xmlNode *cputune, guint vcpus)
{
    g_autoptr(GPtrArray) pins = vn_xml_children(cputune, "vcpupin");

    for (guint i = 0; i < pins->len; i++) {
        g_autofree gchar *v = vn_xml_prop(pins->pdata[i], "vcpu");
        guint64 vcpu;
        if (!vn_domain_parse_uint(v, PIN_BITS - 1, "vcpu", &vcpu, NULL) || vcpu >= vcpus)
            continue;
        VnBitmap *cpus = cpuset_of(pins->pdata[i], "cpuset");
        if (cpus && vn_bitmap_is_empty(cpus))
            g_clear_pointer(&cpus, vn_bitmap_free);
        if (cpus) {
            vn_bitmap_free(g_ptr_array_index(p->vcpu_cpus, vcpu));
            g_ptr_array_index(p->vcpu_cpus, vcpu) = cpus;
        }
    }
}

static void
read_numatune(VnDomainPins *p, const xmlNode *numatune)
{
    for (const xmlNode *n = numatune ? numatune->children : NULL; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || n->ns)
            continue;
        if (xmlStrEqual(n->name, BAD_CAST "memory")) {
            g_clear_pointer(&p->memory_nodes, vn_bitmap_free);
            p->memory_nodes = cpuset_of(n, "nodeset");
        } else if (xmlStrEqual(n->name, BAD_CAST "memnode")) {
            g_autofree gchar *id = vn_xml_prop(n, "cellid");
            guint64 cell;
            VnDomainPinsMemnode m = { 0 };
            if (!vn_domain_parse_uint(id, G_MAXUINT16, "cellid", &cell, NULL) ||
                !(m.nodes = cpuset_of(n, "nodeset")))
                continue;
            m.cell_id = (guint)cell;
            g_array_append_val(p->memnodes, m);
        }
    }
}

static void
memnode_clear(gpointer data)
{
    VnDomainPinsMemnode *m = data;
    vn_bitmap_free(m->nodes);
}

void
vn_domain_pins_free(VnDomainPins *p)
{
    if (!p)
        return;
    g_free(p->what);
    g_ptr_array_unref(p->vcpu_cpus);
    vn_bitmap_free(p->vcpu_set);
    vn_bitmap_free(p->memory_nodes);
    g_array_unref(p->memnodes);
    g_free(p);
}

VnDomainPins *
vn_domain_foreign_pins(const VnDomain *d)
{
    xmlNode *root = xmlDocGetRootElement(d->doc);
    g_autofree gchar *what = vn_domain_cputune_handwritten(root, d->meta);
    gboolean allowed_set = FALSE;

    if (!what)
        what = vn_domain_numatune_handwritten(root, d->meta);
    if (!what && xmlHasProp(vn_xml_child(root, "vcpu"), BAD_CAST "cpuset")) {
        what = g_strdup("<vcpu cpuset>");
        allowed_set = d->allowed_cpus != NULL;
    }
    if (!what)
        return NULL;
    VnDomainPins *p = g_new0(VnDomainPins, 1);
    p->what = g_steal_pointer(&what);
    p->allowed_set = allowed_set;
    p->vcpu_cpus = g_ptr_array_new_full(d->vcpus_max, (GDestroyNotify)vn_bitmap_free);
    g_ptr_array_set_size(p->vcpu_cpus, (gint)d->vcpus_max);
    p->memnodes = g_array_new(FALSE, TRUE, sizeof(VnDomainPinsMemnode));
    g_array_set_clear_func(p->memnodes, memnode_clear);
    p->vcpu_set = cpuset_of(vn_xml_child(root, "vcpu"), "cpuset");
    read_vcpupins(p, vn_xml_child(root, "cputune"), d->vcpus_max);
    read_numatune(p, vn_xml_child(root, "numatune"));
    return p;
}
