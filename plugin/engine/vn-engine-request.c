/* vn-engine-request.c: what a domain asks of the placement core: its XML
 * (domain/) and the host's facts about its devices (host/).  A device
 * whose node is unknown (-1, no file) is left out of the request: it
 * cannot pull the placement anywhere.
 */
#include "vn-engine.h"
#include "vn-host-devices.h"

#include <unistd.h>

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
    r->dedicated = m->hint_dedicated_set ? m->hint_dedicated : (m->has_placement && m->dedicated);
    if (m->hint_smt_set)
        r->smt = m->hint_smt;
    if (m->hint_priority_set)
        r->priority = m->hint_priority;
    r->tiers_set = m->hint_tiers_set;
    r->tiers = m->hint_tiers;
    if (m->hint_interleave)
        r->interleave = VN_INTERLEAVE_WISH;
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
                    "one page size per VM",
                    d->source, d->name);
        return NULL;
    }
    r->vcpus = d->vcpus_max;
    r->memory_kib = d->memory_kib;
    r->hugepage_kib =
        d->hugepages ? (d->hugepage_kib ? d->hugepage_kib : vn_host_default_hugepage_kib(sysroot))
                     : 0;
    /* <page size='4' unit='KiB'/> is the normal page size: no hugepages */
    if (r->hugepage_kib == (guint64)sysconf(_SC_PAGESIZE) / 1024)
        r->hugepage_kib = 0;
    r->iothreads = d->iothread_ids->len;
    /* <vcpu cpuset>: the set another manager allows the VM */
    r->allowed_cpus = d->allowed_cpus ? vn_bitmap_copy(d->allowed_cpus) : NULL;
    /* Existing guest cells are guest ABI, whoever wrote them: their count
     * stays, and so do their sizes.  Removing <cpu><numa> lets vnuma
     * choose again. */
    r->cells = d->cells->len;
    add_cell_sizes(r, d);
    apply_hints(r, d->meta);
    /* a guest without cells of its own that could not see them anyway:
     * its memory interleaved when it needs several nodes */
    if (!r->interleave && d->cells->len == 0 && !vn_domain_guest_sees_cells(d))
        r->interleave = VN_INTERLEAVE_NO_CELLS;
    for (guint i = 0; i < d->devices->len; i++) {
        const VnDomainDevice *dev = d->devices->pdata[i];
        guint node;
        if (vn_host_device_node(sysroot, dev->pci_address, dev->netdev, dev->blockdev, &node))
            vn_request_add_device(r, node, iothread_ordinal(d, dev->iothread), dev->name);
    }
    return g_steal_pointer(&r);
}
