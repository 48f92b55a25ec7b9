/* vn-irq.c: which host NICs serve which placed VMs, from the status XML
 * of the running domains, read into the plan's inputs. */
#include "vn-irq.h"

#include "vn-cpulist.h"
#include "vn-ledger-domain.h"

G_DEFINE_QUARK(vn-irq-error-quark, vn_irq_error);

/* A device to read, and who uses it. */
typedef struct {
    gchar *key; /* interface name or PCI address */
    VnIrqNicKind kind;
    GPtrArray *users; /* of const VnLedgerRecord* (borrowed) */
    gboolean named;   /* given by the caller: a failure is an error */
} Wanted;

static void
wanted_free(gpointer p)
{
    Wanted *w = p;

    g_free(w->key);
    g_ptr_array_unref(w->users);
    g_free(w);
}

void
vn_irq_host_free(VnIrqHost *h)
{
    if (!h)
        return;
    g_ptr_array_unref(h->nics);
    g_ptr_array_unref(h->inputs);
    g_array_unref(h->dedicated);
    g_ptr_array_unref(h->owned);
    g_ptr_array_unref(h->names);
    g_ptr_array_unref(h->problems);
    g_free(h);
}

static Wanted *
want(GPtrArray *wanted, const gchar *key, VnIrqNicKind kind)
{
    Wanted *w;

    for (guint i = 0; i < wanted->len; i++)
        if (g_str_equal(((Wanted *)wanted->pdata[i])->key, key))
            return wanted->pdata[i];
    w = g_new0(Wanted, 1);
    w->key = g_strdup(key);
    w->kind = kind;
    w->users = g_ptr_array_new();
    g_ptr_array_add(wanted, w);
    return w;
}

static void
want_used(GPtrArray *wanted, const gchar *key, VnIrqNicKind kind, const VnLedgerRecord *r)
{
    Wanted *w = want(wanted, key, kind);

    if (!g_ptr_array_find(w->users, r, NULL))
        g_ptr_array_add(w->users, (gpointer)r);
}

/* The PCI-backed ports of an interface or bridge, as wanted. */
static void
want_ports(VnIrqHost *h, GPtrArray *wanted, const gchar *sysroot, const gchar *dev,
           const VnLedgerRecord *r)
{
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) ports = vn_nic_lower_ports(sysroot, dev, &error);

    if (!ports) {
        g_ptr_array_add(h->problems, g_strdup_printf("%s: %s", r->name, error->message));
        return;
    }
    for (guint i = 0; ports[i]; i++)
        want_used(wanted, ports[i], VN_IRQ_NIC_HOST, r);
}

static void
want_domain(VnIrqHost *h, GPtrArray *wanted, const gchar *sysroot, const gchar *run_dir,
            const VnLedgerRecord *r)
{
    g_autofree gchar *file = g_strdup_printf("%s.xml", r->name);
    g_autofree gchar *path = g_build_filename(sysroot ? sysroot : "/", run_dir, file, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;

    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return; /* not started yet, or gone meanwhile */
    d = vn_ledger_load_status_xml(path, &error);
    if (!d) {
        g_ptr_array_add(h->problems, g_strdup(error->message));
        return;
    }
    for (guint i = 0; i < d->devices->len; i++) {
        const VnDomainDevice *dev = d->devices->pdata[i];
        if (dev->pci_address && !dev->blockdev)
            want_used(wanted, dev->pci_address, VN_IRQ_NIC_PASSTHROUGH, r);
        else if (dev->netdev || dev->bridge)
            want_ports(h, wanted, sysroot, dev->netdev ? dev->netdev : dev->bridge, r);
    }
}

static void
add_dedicated(VnIrqHost *h, const VnLedgerRecord *r, guint n_cpus)
{
    VnBitmap *cpus = vn_bitmap_new(n_cpus);
    VnIrqDedicated d;

    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        g_autoptr(VnBitmap) b = vn_cpulist_parse(c->cpus, n_cpus, NULL);
        if (b)
            vn_bitmap_or(cpus, b);
    }
    g_ptr_array_add(h->owned, cpus);
    g_ptr_array_add(h->names, g_strdup(r->name));
    d.cpus = cpus;
    d.vm = h->names->pdata[h->names->len - 1];
    g_array_append_val(h->dedicated, d);
}

static gboolean
read_wanted(VnIrqHost *h, const gchar *sysroot, const Wanted *w, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(VnNic) n = vn_nic_is_pci_address(w->key)
                             ? vn_nic_read_pci(sysroot, w->key, &local)
                             : vn_nic_read_netdev(sysroot, w->key, &local);
    VnIrqNic *in;

    if (!n) {
        if (w->named) {
            g_set_error_literal(error, VN_IRQ_ERROR, VN_IRQ_ERROR_DEVICE, local->message);
            return FALSE;
        }
        for (guint i = 0; i < w->users->len; i++)
            g_ptr_array_add(h->problems,
                            g_strdup_printf("%s: %s",
                                            ((const VnLedgerRecord *)w->users->pdata[i])->name,
                                            local->message));
        return TRUE;
    }
    in = vn_nic_plan_input(n, w->kind);
    for (guint i = 0; i < w->users->len; i++) {
        const VnLedgerRecord *r = w->users->pdata[i];
        for (guint c = 0; c < r->cells->len; c++)
            vn_irq_nic_add_user(in, r->name, g_array_index(r->cells, VnLedgerCell, c).node_os_id);
    }
    g_ptr_array_add(h->nics, g_steal_pointer(&n));
    g_ptr_array_add(h->inputs, in);
    return TRUE;
}

VnIrqHost *
vn_irq_host_gather(const gchar *sysroot, const gchar *run_dir, const GPtrArray *records,
                   const VnTopology *t, const gchar *const *devices, GError **error)
{
    g_autoptr(VnIrqHost) h = g_new0(VnIrqHost, 1);
    g_autoptr(GPtrArray) wanted = g_ptr_array_new_with_free_func(wanted_free);

    h->nics = g_ptr_array_new_with_free_func((GDestroyNotify)vn_nic_free);
    h->inputs = g_ptr_array_new_with_free_func((GDestroyNotify)vn_irq_nic_free);
    h->dedicated = g_array_new(FALSE, FALSE, sizeof(VnIrqDedicated));
    h->owned = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    h->names = g_ptr_array_new_with_free_func(g_free);
    h->problems = g_ptr_array_new_with_free_func(g_free);
    /* named devices first, in the caller's order */
    for (guint i = 0; devices && devices[i]; i++)
        want(wanted, devices[i],
             vn_nic_is_pci_address(devices[i]) ? VN_IRQ_NIC_PASSTHROUGH : VN_IRQ_NIC_HOST)
            ->named = TRUE;
    for (guint i = 0; records && i < records->len; i++) {
        const VnLedgerRecord *r = records->pdata[i];
        if (r->state != VN_LEDGER_STATE_RUNNING || r->foreign)
            continue;
        if (r->dedicated)
            add_dedicated(h, r, t->n_cpu_ids);
        want_domain(h, wanted, sysroot, run_dir, r);
    }
    for (guint i = 0; i < wanted->len; i++) {
        const Wanted *w = wanted->pdata[i];
        if ((!devices || w->named) && !read_wanted(h, sysroot, w, error))
            return NULL;
    }
    return g_steal_pointer(&h);
}

void
vn_irq_view_free(VnIrqView *v)
{
    if (!v)
        return;
    vn_irq_host_free(v->host);
    vn_irq_plan_free(v->plan);
    vn_irqbalance_free(v->irqbalance);
    g_free(v);
}

VnIrqView *
vn_irq_view_new(const gchar *sysroot, const gchar *run_dir, const GPtrArray *records,
                const VnTopology *t, const VnBitmap *reserved, const gchar *const *devices,
                GError **error)
{
    VnIrqHost *h = vn_irq_host_gather(sysroot, run_dir, records, t, devices, error);
    VnIrqView *v;

    if (!h)
        return NULL;
    v = g_new0(VnIrqView, 1);
    v->host = h;
    v->plan = vn_irq_plan(t, h->inputs, h->dedicated, reserved);
    v->irqbalance = vn_irqbalance_detect(sysroot);
    v->n_cpus = t->n_cpu_ids;
    return v;
}
