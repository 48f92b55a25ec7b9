/* test-irq-plan.c: the interrupt and packet-steering plan (vn-irq-plan.h)
 * for the two-socket fixture host (tests/data/sysroot/2socket-2nic: CPUs
 * 0-5 on node 0, 6-11 on node 1, no SMT), its NICs read by vn-nic.h. */
#include "vn-cpulist.h"
#include "vn-nic.h"
#include "vn-test-fixture.h"

typedef struct {
    VnTestSource src;
    GPtrArray *nics;   /* of VnIrqNic* */
    GArray *dedicated; /* of VnIrqDedicated */
    GPtrArray *owned;  /* the VnBitmaps the dedicated entries point to */
    VnIrqPlan *plan;
} Host;

static void
host_setup(Host *h, gconstpointer data)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    VnSourceOptions o = { .sysroot = root };

    (void)data;
    vn_test_source_load(&o, &h->src);
    h->nics = g_ptr_array_new_with_free_func((GDestroyNotify)vn_irq_nic_free);
    h->dedicated = g_array_new(FALSE, FALSE, sizeof(VnIrqDedicated));
    h->owned = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
}

static void
host_teardown(Host *h, gconstpointer data)
{
    (void)data;
    vn_irq_plan_free(h->plan);
    g_array_unref(h->dedicated);
    g_ptr_array_unref(h->owned);
    g_ptr_array_unref(h->nics);
    vn_test_source_clear(&h->src);
}

/* Reads a NIC of the fixture (an interface, or a PCI function given to
 * `vm`) and records `vm` on `node` as its user. */
static VnIrqNic *
add_nic(Host *h, const gchar *netdev_or_pci, const gchar *vm, guint node)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) error = NULL;
    gboolean pci = g_ascii_isdigit(netdev_or_pci[0]);
    g_autoptr(VnNic) n = pci ? vn_nic_read_pci(root, netdev_or_pci, &error)
                             : vn_nic_read_netdev(root, netdev_or_pci, &error);
    VnIrqNic *in;

    g_assert_no_error(error);
    in = vn_nic_plan_input(n, pci ? VN_IRQ_NIC_PASSTHROUGH : VN_IRQ_NIC_HOST);
    vn_irq_nic_add_user(in, vm, node);
    g_ptr_array_add(h->nics, in);
    return in;
}

static void
dedicate(Host *h, const gchar *vm, const gchar *cpus)
{
    VnIrqDedicated d = { .vm = vm };
    VnBitmap *b = vn_cpulist_parse(cpus, h->src.t->n_cpu_ids, NULL);

    g_assert_nonnull(b);
    g_ptr_array_add(h->owned, b);
    d.cpus = b;
    g_array_append_val(h->dedicated, d);
}

static gchar *
list(const VnBitmap *b)
{
    return b ? vn_cpulist_format(b) : g_strdup("(left)");
}

/* "irq:cpus irq:cpus ..." for every vector of plan `i`. */
static gchar *
targets_text(const VnIrqPlan *p, guint i)
{
    const VnIrqNicPlan *n = p->nics->pdata[i];
    GString *s = g_string_new(NULL);

    for (guint k = 0; k < n->targets->len; k++) {
        const VnIrqTarget *t = &g_array_index(n->targets, VnIrqTarget, k);
        g_autofree gchar *c = list(t->cpus);
        g_string_append_printf(s, "%s%u:%s", k ? " " : "", t->irq, c);
    }
    return g_string_free(s, FALSE);
}

static gchar *
masks_text(const GPtrArray *masks)
{
    GString *s = g_string_new(NULL);

    for (guint k = 0; k < masks->len; k++) {
        g_autofree gchar *c = list(masks->pdata[k]);
        g_string_append_printf(s, "%s%s", k ? " " : "", c);
    }
    return g_string_free(s, FALSE);
}

static gboolean
has_reason(const VnIrqNicPlan *n, const gchar *part)
{
    for (guint i = 0; i < n->reasons->len; i++)
        if (strstr(n->reasons->pdata[i], part))
            return TRUE;
    return FALSE;
}

/* Dedicated VMs on both sockets: vm-a (CPUs 2-3) and vm-c (4-5, with the
 * VF) on node 0, vm-b (8-9) on node 1.  Each NIC on its own node, one
 * queue vector per free core, never on a dedicated CPU; the VF on vm-c's
 * node off its vCPUs; RPS and XPS over the same CPUs. */
static void
test_two_sockets(Host *h, gconstpointer data)
{
    const VnIrqNicPlan *ens, *eth, *vf;
    g_autofree gchar *t0 = NULL, *t1 = NULL, *t2 = NULL, *rps0 = NULL, *xps0 = NULL, *xps1 = NULL;
    g_autofree gchar *c0 = NULL, *c1 = NULL;

    (void)data;
    dedicate(h, "vm-a", "2-3");
    dedicate(h, "vm-b", "8-9");
    dedicate(h, "vm-c", "4-5");
    add_nic(h, "ens1f0", "vm-a", 0);
    add_nic(h, "eth1", "vm-b", 1);
    add_nic(h, "0000:3b:02.0", "vm-c", 0);
    h->plan = vn_irq_plan(h->src.t, h->nics, h->dedicated, NULL);
    ens = h->plan->nics->pdata[0];
    eth = h->plan->nics->pdata[1];
    vf = h->plan->nics->pdata[2];

    c0 = list(ens->cpus);
    g_assert_cmpstr(c0, ==, "0-1");
    t0 = targets_text(h->plan, 0);
    g_assert_cmpstr(t0, ==, "60:0-1 61:0 62:1 63:0 64:1");
    rps0 = masks_text(ens->rps);
    g_assert_cmpstr(rps0, ==, "0-1 0-1 0-1 0-1");
    xps0 = masks_text(ens->xps);
    g_assert_cmpstr(xps0, ==, "0 1 0 1");
    g_assert_true(
        has_reason(ens, "on node 0, its PCI function's node (serving vm-a on node(s) 0)"));
    g_assert_true(has_reason(ens, "more vectors than cores"));

    c1 = list(eth->cpus);
    g_assert_cmpstr(c1, ==, "6-7,10-11");
    t1 = targets_text(h->plan, 1);
    g_assert_cmpstr(t1, ==, "80:6-7,10-11 81:6 82:7 83:10 84:11 85:6 86:7 87:10 88:11");
    xps1 = masks_text(eth->xps);
    g_assert_cmpstr(xps1, ==, "6 7 10 11");
    g_assert_cmpuint(g_array_index(eth->rows, VnIrqRow, 2).cpu, ==, 8);
    g_assert_cmpint(g_array_index(eth->rows, VnIrqRow, 2).state, ==, VN_IRQ_CPU_DEDICATED);
    g_assert_cmpstr(g_array_index(eth->rows, VnIrqRow, 2).vm, ==, "vm-b");
    g_assert_cmpuint(g_array_index(eth->rows, VnIrqRow, 0).irqs->len, ==, 2);

    t2 = targets_text(h->plan, 2);
    g_assert_cmpstr(t2, ==, "70:0 71:1 72:0");
    g_assert_cmpstr(vf->name, ==, "VF 0000:3b:02.0");
    g_assert_cmpint(vf->kind, ==, VN_IRQ_NIC_PASSTHROUGH);
    g_assert_cmpuint(vf->rps->len + vf->xps->len, ==, 0);
    g_assert_true(has_reason(vf, "passed through to vm-c on node(s) 0"));
}

/* Node 1 wholly dedicated: the interrupts go there anyway, and the
 * reasons say they will disturb the VM. */
static void
test_all_dedicated(Host *h, gconstpointer data)
{
    g_autofree gchar *t = NULL;

    (void)data;
    dedicate(h, "vm-b", "6-11");
    add_nic(h, "eth1", "vm-b", 1);
    h->plan = vn_irq_plan(h->src.t, h->nics, h->dedicated, NULL);
    t = targets_text(h->plan, 0);
    g_assert_cmpstr(t, ==, "80:6-11 81:6 82:7 83:8 84:9 85:10 86:11 87:6 88:7");
    g_assert_true(has_reason(h->plan->nics->pdata[0], "nothing else is left"));
}

/* Reserved host CPUs are skipped like dedicated ones, but taken back
 * before dedicated CPUs when nothing else is left. */
static void
test_reserved(Host *h, gconstpointer data)
{
    g_autoptr(VnBitmap) reserved = vn_cpulist_parse("0-1,6-7", h->src.t->n_cpu_ids, NULL);
    g_autofree gchar *c0 = NULL, *c1 = NULL;

    (void)data;
    dedicate(h, "vm-a", "2-5");
    add_nic(h, "ens1f0", "vm-a", 0);
    add_nic(h, "eth1", "vm-b", 1);
    h->plan = vn_irq_plan(h->src.t, h->nics, h->dedicated, reserved);
    c0 = list(((VnIrqNicPlan *)h->plan->nics->pdata[0])->cpus);
    g_assert_cmpstr(c0, ==, "0-1");
    g_assert_true(has_reason(h->plan->nics->pdata[0], "reserved for the host"));
    c1 = list(((VnIrqNicPlan *)h->plan->nics->pdata[1])->cpus);
    g_assert_cmpstr(c1, ==, "8-11");
}

/* A vector the kernel will not move is left and reported; a NIC with no
 * node goes to its users' node; one with neither is left alone. */
static void
test_left(Host *h, gconstpointer data)
{
    VnIrqNic *ens;
    VnIrqNic *nowhere = vn_irq_nic_new("eth7", VN_IRQ_NIC_HOST, -1);
    const VnIrqNicPlan *p0, *p1;
    g_autofree gchar *t = NULL;

    (void)data;
    ens = add_nic(h, "ens1f0", "vm-a", 1);
    ens->node_os_id = -1;
    g_array_index(ens->vectors, VnIrqVector, 1).read_only = TRUE;
    vn_irq_nic_add_vector(nowhere, 99, TRUE, FALSE);
    g_ptr_array_add(h->nics, nowhere);
    h->plan = vn_irq_plan(h->src.t, h->nics, h->dedicated, NULL);
    p0 = h->plan->nics->pdata[0];
    p1 = h->plan->nics->pdata[1];
    t = targets_text(h->plan, 0);
    g_assert_cmpstr(t, ==, "60:6-11 61:(left) 62:6 63:7 64:8");
    g_assert_true(g_array_index(p0->targets, VnIrqTarget, 1).left);
    g_assert_true(has_reason(p0, "irq 61: the kernel takes no affinity"));
    g_assert_true(has_reason(p0, "on the nodes of the VMs it serves (vm-a on node(s) 1)"));
    g_assert_null(p1->cpus);
    g_assert_true(vn_bitmap_is_empty(p1->nodes));
    g_assert_true(has_reason(p1, "left as it is"));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add("/irq-plan/two-sockets", Host, NULL, host_setup, test_two_sockets, host_teardown);
    g_test_add("/irq-plan/all-dedicated", Host, NULL, host_setup, test_all_dedicated,
               host_teardown);
    g_test_add("/irq-plan/reserved", Host, NULL, host_setup, test_reserved, host_teardown);
    g_test_add("/irq-plan/left", Host, NULL, host_setup, test_left, host_teardown);
    return g_test_run();
}
