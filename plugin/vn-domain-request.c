/* vn-domain-request.c: what a domain asks of the placement core.
 *
 * Host facts come from files under a sysroot (never hard-coded paths), so
 * a test can hand in a fake /sys: a device's node from
 * sys/bus/pci/devices/<addr>/numa_node, sys/class/net/<if>/device/numa_node,
 * sys/class/block/<dev>/device[/device]/numa_node; the default hugepage size
 * from proc/meminfo.  A device whose node is unknown (-1, no file) is left
 * out of the request: it cannot pull the placement anywhere.
 */
#include "vn-domain-private.h"

#include <unistd.h>

#define DEFAULT_HUGEPAGE_KIB 2048

/* Reads the node number in <sysroot>/<first>/... (NULL-ended parts). */
static gboolean
read_node(const gchar *sysroot, guint *ret_node, const gchar *first, ...)
{
    g_autofree gchar *rel = NULL;
    g_autofree gchar *path = NULL;
    g_autofree gchar *text = NULL;
    va_list ap;
    guint64 v;

    va_start(ap, first);
    rel = g_build_filename_valist(first, &ap);
    va_end(ap);
    path = g_build_filename(sysroot, rel, NULL);
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return FALSE;
    g_strstrip(text);
    if (!g_ascii_string_to_unsigned(text, 10, 0, 65535, &v, NULL))
        return FALSE;   /* "-1": the platform gives no locality */
    *ret_node = (guint)v;
    return TRUE;
}

static gboolean
safe_name(const gchar *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

static gboolean
device_node(const VnDomainDevice *dev, const gchar *sysroot, guint *ret_node)
{
    g_autofree gchar *base = dev->blockdev ? g_path_get_basename(dev->blockdev) : NULL;

    if (dev->pci_address)
        return read_node(sysroot, ret_node, "sys/bus/pci/devices", dev->pci_address,
                         "numa_node", NULL);
    if (dev->netdev && safe_name(dev->netdev))
        return read_node(sysroot, ret_node, "sys/class/net", dev->netdev, "device",
                         "numa_node", NULL);
    if (base && safe_name(base))
        return read_node(sysroot, ret_node, "sys/class/block", base, "device",
                         "numa_node", NULL) ||
               read_node(sysroot, ret_node, "sys/class/block", base, "device", "device",
                         "numa_node", NULL);
    return FALSE;
}

static guint64
default_hugepage_kib(const gchar *sysroot)
{
    g_autofree gchar *path = g_build_filename(sysroot, "proc", "meminfo", NULL);
    g_autofree gchar *text = NULL;
    const gchar *p;
    guint64 kib;

    if (!g_file_get_contents(path, &text, NULL, NULL) ||
        !(p = strstr(text, "Hugepagesize:")))
        return DEFAULT_HUGEPAGE_KIB;
    kib = g_ascii_strtoull(p + strlen("Hugepagesize:"), NULL, 10);
    return kib ? kib : DEFAULT_HUGEPAGE_KIB;
}

/* Devices name IOThreads by id; the request numbers them 1..N. */
static gint
iothread_ordinal(const VnDomain *d, guint id)
{
    for (guint i = 0; id && i < d->iothread_ids->len; i++)
        if (g_array_index(d->iothread_ids, guint, i) == id)
            return (gint)i + 1;
    return 0;
}

static void
apply_hints(VnRequest *r, const VnDomainMetadata *m)
{
    if (!m)
        return;
    r->dedicated = m->hint_dedicated_set ? m->hint_dedicated
                                         : (m->has_placement && m->dedicated);
    if (m->hint_smt_set)
        r->smt = m->hint_smt;
    if (m->hint_priority_set)
        r->priority = m->hint_priority;
}

/* Whether every vCPU is in exactly one cell. */
static gboolean
cells_partition_vcpus(const VnDomain *d)
{
    g_autoptr(VnBitmap) seen = vn_bitmap_new(MAX(d->vcpus_max, 1));

    for (guint i = 0; i < d->cells->len; i++) {
        const VnBitmap *v = g_array_index(d->cells, VnDomainCell, i).vcpus;
        if (vn_bitmap_intersects(v, seen))
            return FALSE;
        vn_bitmap_or(seen, v);
    }
    return vn_bitmap_count(seen) == d->vcpus_max;
}

/* Cells of different sizes go to the planner one by one, so each lands on
 * a node that holds it (and, dedicated, gets its own vCPU count of CPUs).
 * Identical cells are the even split, planned as they always were.  Cells
 * that leave a vCPU out or hold one twice are left to the writer, which
 * refuses them. */
static void
add_cell_sizes(VnRequest *r, const VnDomain *d)
{
    gboolean uneven = FALSE;

    for (guint i = 1; i < d->cells->len; i++) {
        const VnDomainCell *a = &g_array_index(d->cells, VnDomainCell, 0);
        const VnDomainCell *b = &g_array_index(d->cells, VnDomainCell, i);
        uneven |= a->memory_kib != b->memory_kib ||
                  vn_bitmap_count(a->vcpus) != vn_bitmap_count(b->vcpus);
    }
    if (!uneven || !cells_partition_vcpus(d))
        return;
    for (guint i = 0; i < d->cells->len; i++) {
        const VnDomainCell *c = &g_array_index(d->cells, VnDomainCell, i);
        vn_request_add_cell_size(r, vn_bitmap_count(c->vcpus), c->memory_kib);
    }
}

VnRequest *
vn_domain_to_request(const VnDomain *d, const gchar *sysroot, GError **error)
{
    g_autoptr(VnRequest) r = vn_request_new();

    g_return_val_if_fail(d != NULL, NULL);
    if (!sysroot || !*sysroot)
        sysroot = "/";
    if (d->hugepage_sizes_mixed) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: domain '%s' asks for hugepages of several sizes; vnuma places "
                    "one page size per VM", d->source, d->name);
        return NULL;
    }
    r->vcpus = d->vcpus_max;
    r->memory_kib = d->memory_kib;
    r->hugepage_kib = d->hugepages ? (d->hugepage_kib ? d->hugepage_kib
                                                      : default_hugepage_kib(sysroot)) : 0;
    /* <page size='4' unit='KiB'/> is the normal page size: no hugepages */
    if (r->hugepage_kib == (guint64)sysconf(_SC_PAGESIZE) / 1024)
        r->hugepage_kib = 0;
    r->iothreads = d->iothread_ids->len;
    /* Existing guest cells are guest ABI, whoever wrote them: their count
     * stays, and so do their sizes.  Removing <cpu><numa> lets vnuma
     * choose again. */
    r->cells = d->cells->len;
    add_cell_sizes(r, d);
    apply_hints(r, d->meta);
    for (guint i = 0; i < d->devices->len; i++) {
        const VnDomainDevice *dev = d->devices->pdata[i];
        guint node;
        if (device_node(dev, sysroot, &node))
            vn_request_add_device(r, node, iothread_ordinal(d, dev->iothread), dev->name);
    }
    return g_steal_pointer(&r);
}
