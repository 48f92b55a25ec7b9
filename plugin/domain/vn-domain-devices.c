/* vn-domain-devices.c: IOThreads and devices that sit on a host NUMA node.
 *
 * Devices read: PCI hostdevs, <interface type='hostdev'> (a VF), macvtap
 * <interface type='direct'> (its host NIC), the bridge of a
 * type='bridge' or (live XML) type='network' interface with its vhost
 * queue count (the NIC interrupt plan's inputs), NVMe and block disks, each
 * with the IOThread serving it.  Their host node is looked up later, under
 * a sysroot, by vn_domain_to_request().  vhost-user and virtiofs back-ends
 * need guest memory shared with another process (memAccess='shared').
 */
#include "vn-domain-private.h"

#define MAX_IOTHREADS 65535

static gint
uint_cmp(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;

    return (x > y) - (x < y);
}

static gboolean
parse_iothreads(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *n = vn_xml_child(root, "iothreads");
    g_autoptr(GPtrArray) ids = vn_xml_children(vn_xml_child(root, "iothreadids"), "iothread");
    guint64 count = 0;

    if (n) {
        g_autofree gchar *t = vn_xml_text(n);
        if (!vn_domain_parse_uint(t, MAX_IOTHREADS, "<iothreads>", &count, error)) {
            g_prefix_error(error, "%s: ", d->source);
            return FALSE;
        }
    }
    for (guint i = 0; i < ids->len; i++) {
        g_autofree gchar *t = vn_xml_prop(ids->pdata[i], "id");
        guint64 id;
        if (!vn_domain_parse_uint(t, MAX_IOTHREADS, "<iothread id>", &id, error)) {
            g_prefix_error(error, "%s: ", d->source);
            return FALSE;
        }
        guint v = (guint)id;
        g_array_append_val(d->iothread_ids, v);
    }
    /* As libvirt: <iothreads>N with fewer ids gets the lowest free ids.
     * One pass over the ids taken: N is up to 65535, and a search of the
     * list for every id took 100 s under ASan (the domain-xml fuzzer). */
    g_autoptr(VnBitmap) taken = vn_bitmap_new(MAX_IOTHREADS + 1);
    for (guint i = 0; i < d->iothread_ids->len; i++)
        vn_bitmap_set(taken, g_array_index(d->iothread_ids, guint, i));
    for (guint id = 1; d->iothread_ids->len < count; id++)
        if (!vn_bitmap_test(taken, id))
            g_array_append_val(d->iothread_ids, id);
    g_array_sort(d->iothread_ids, uint_cmp);
    return TRUE;
}

static gboolean
parse_hex(const gchar *s, guint64 max, guint64 *ret)
{
    gchar *end = NULL;
    guint64 v;

    if (!s || !*s)
        return FALSE;
    v = g_ascii_strtoull(s, &end, 0);
    if (*end || v > max)
        return FALSE;
    *ret = v;
    return TRUE;
}

/* <address domain= bus= slot= function=/> -> "0000:3b:00.0", or NULL. */
static gchar *
pci_address(xmlNode *addr)
{
    static const gchar *const names[] = { "domain", "bus", "slot", "function" };
    static const guint64 max[] = { 0xffff, 0xff, 0x1f, 0x7 };
    guint64 v[4] = { 0 };

    if (!addr)
        return NULL;
    for (guint i = 0; i < 4; i++) {
        g_autofree gchar *s = vn_xml_prop(addr, names[i]);
        if ((s || i != 0) && !parse_hex(s, max[i], &v[i]))
            return NULL;
    }
    return g_strdup_printf("%04" G_GINT64_MODIFIER "x:%02" G_GINT64_MODIFIER
                           "x:%02" G_GINT64_MODIFIER "x.%" G_GINT64_MODIFIER "x",
                           v[0], v[1], v[2], v[3]);
}

static guint
driver_iothread(xmlNode *dev)
{
    g_autofree gchar *s = vn_xml_prop(vn_xml_child(dev, "driver"), "iothread");
    guint64 v = 0;

    return s && parse_hex(s, MAX_IOTHREADS, &v) ? (guint)v : 0;
}

static void
add_device(VnDomain *d, const gchar *kind, gchar *pci, gchar *netdev, gchar *blockdev,
           guint iothread)
{
    VnDomainDevice *dev = g_new0(VnDomainDevice, 1);

    dev->pci_address = pci;
    dev->netdev = netdev;
    dev->blockdev = blockdev;
    dev->iothread = iothread;
    dev->name = g_strdup_printf("%s %s", kind, pci ? pci : netdev ? netdev : blockdev);
    g_ptr_array_add(d->devices, dev);
}

static void
parse_disk(VnDomain *d, xmlNode *disk)
{
    g_autofree gchar *type = vn_xml_prop(disk, "type");
    xmlNode *src = vn_xml_child(disk, "source");
    guint io = driver_iothread(disk);
    gchar *pci;

    if (g_strcmp0(type, "vhostuser") == 0)
        d->shared_memory = TRUE;
    if (g_strcmp0(type, "nvme") == 0 && (pci = pci_address(vn_xml_child(src, "address"))))
        add_device(d, "disk nvme", pci, NULL, NULL, io);
    else if (g_strcmp0(type, "block") == 0 && src && xmlHasProp(src, BAD_CAST "dev"))
        add_device(d, "disk", NULL, NULL, vn_xml_prop(src, "dev"), io);
}

/* <driver name='vhost' queues='N'/>: N (decimal, as libvirt reads it),
 * else 0. */
static guint
vhost_queues(xmlNode *ifc)
{
    xmlNode *drv = vn_xml_child(ifc, "driver");
    g_autofree gchar *name = vn_xml_prop(drv, "name");
    g_autofree gchar *q = vn_xml_prop(drv, "queues");
    guint64 v = 0;

    return (!name || g_str_equal(name, "vhost")) && q &&
                   g_ascii_string_to_unsigned(q, 10, 1, 256, &v, NULL)
               ? (guint)v
               : 0;
}

static void
parse_interface(VnDomain *d, xmlNode *ifc)
{
    g_autofree gchar *type = vn_xml_prop(ifc, "type");
    xmlNode *src = vn_xml_child(ifc, "source");
    guint before = d->devices->len;
    gchar *pci;

    if (g_strcmp0(type, "vhostuser") == 0)
        d->shared_memory = TRUE;
    else if (g_strcmp0(type, "hostdev") == 0 && (pci = pci_address(vn_xml_child(src, "address"))))
        add_device(d, "interface hostdev", pci, NULL, NULL, 0);
    else if (g_strcmp0(type, "direct") == 0 && src && xmlHasProp(src, BAD_CAST "dev"))
        add_device(d, "interface", NULL, vn_xml_prop(src, "dev"), NULL, 0);
    else if ((g_strcmp0(type, "bridge") == 0 || g_strcmp0(type, "network") == 0) && src &&
             xmlHasProp(src, BAD_CAST "bridge")) {
        VnDomainDevice *dev = g_new0(VnDomainDevice, 1);
        dev->bridge = vn_xml_prop(src, "bridge");
        dev->name = g_strdup_printf("interface bridge %s", dev->bridge);
        g_ptr_array_add(d->devices, dev);
    } else if (g_strcmp0(type, "ethernet") == 0 && vhost_queues(ifc)) {
        /* a tap of the VM's own, on no host device: only its vhost
         * queues matter (they are the VM's workers to spread) */
        VnDomainDevice *dev = g_new0(VnDomainDevice, 1);
        dev->name = g_strdup("interface ethernet");
        g_ptr_array_add(d->devices, dev);
    }
    if (d->devices->len > before)
        ((VnDomainDevice *)g_ptr_array_index(d->devices, d->devices->len - 1))->vhost_queues =
            vhost_queues(ifc);
}

static void
parse_hostdev(VnDomain *d, xmlNode *hd)
{
    g_autofree gchar *mode = vn_xml_prop(hd, "mode");
    g_autofree gchar *type = vn_xml_prop(hd, "type");
    gchar *pci;

    if (g_strcmp0(type, "pci") == 0 && g_strcmp0(mode, "capabilities") != 0 &&
        (pci = pci_address(vn_xml_child(vn_xml_child(hd, "source"), "address"))))
        add_device(d, "hostdev", pci, NULL, NULL, 0);
}

static gboolean
memory_is_shared(xmlNode *root)
{
    g_autofree gchar *mode =
        vn_xml_prop(vn_xml_child(vn_xml_child(root, "memoryBacking"), "access"), "mode");
    return g_strcmp0(mode, "shared") == 0;
}

gboolean
vn_domain_parse_devices(VnDomain *d, xmlNode *root, GError **error)
{
    xmlNode *devices = vn_xml_child(root, "devices");

    if (!parse_iothreads(d, root, error))
        return FALSE;
    for (xmlNode *n = devices ? devices->children : NULL; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE || n->ns)
            continue;
        if (xmlStrEqual(n->name, BAD_CAST "disk"))
            parse_disk(d, n);
        else if (xmlStrEqual(n->name, BAD_CAST "interface"))
            parse_interface(d, n);
        else if (xmlStrEqual(n->name, BAD_CAST "hostdev"))
            parse_hostdev(d, n);
        else if (xmlStrEqual(n->name, BAD_CAST "filesystem")) {
            g_autofree gchar *t = vn_xml_prop(vn_xml_child(n, "driver"), "type");
            d->shared_memory |= g_strcmp0(t, "virtiofs") == 0;
        }
    }
    /* memoryBacking access mode='shared' already shares every cell. */
    if (memory_is_shared(root))
        d->shared_memory = FALSE;
    return TRUE;
}
