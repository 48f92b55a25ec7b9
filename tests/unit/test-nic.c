/* test-nic.c: a host NIC's PCI function, vectors and queues read under a
 * sysroot (vn-nic.h), on the two-socket fixture and a real capture. */
#include "vn-nic.h"
#include "vn-test-fixture.h"

static const VnNicIrq *
irq_at(const VnNic *n, guint i)
{
    return g_ptr_array_index(n->irqs, i);
}

/* A physical port: its function, node, vectors in order with their
 * handler names and affinities, its queues' masks. */
static void
test_pf(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNic) n = vn_nic_read_netdev(root, "ens1f0", &error);

    g_assert_no_error(error);
    g_assert_cmpstr(n->pci_address, ==, "0000:3b:00.0");
    g_assert_null(n->pf_address);
    g_assert_cmpint(n->node, ==, 0);
    g_assert_cmpstr(n->local_cpulist, ==, "0-5");
    g_assert_cmpuint(n->irqs->len, ==, 5);
    g_assert_cmpuint(irq_at(n, 0)->irq, ==, 60);
    g_assert_cmpstr(irq_at(n, 0)->name, ==, "i40e-0000:3b:00.0:misc");
    g_assert_false(vn_nic_irq_is_queue(irq_at(n, 0)));
    g_assert_cmpstr(irq_at(n, 4)->name, ==, "i40e-ens1f0-TxRx-3");
    g_assert_true(vn_nic_irq_is_queue(irq_at(n, 4)));
    g_assert_cmpstr(irq_at(n, 4)->affinity, ==, "0-11");
    g_assert_cmpint(irq_at(n, 4)->node, ==, 0);
    g_assert_false(irq_at(n, 4)->read_only);
    g_assert_cmpuint(n->rx->len, ==, 4);
    g_assert_cmpuint(n->tx->len, ==, 4);
    g_assert_cmpstr(((VnNicQueue *)n->tx->pdata[3])->name, ==, "tx-3");
    g_assert_cmpstr(((VnNicQueue *)n->tx->pdata[3])->mask, ==, "008");
    g_assert_cmpstr(((VnNicQueue *)n->rx->pdata[0])->mask, ==, "000");
}

/* virtio-net: the interface sits on the virtio device; the reader climbs
 * to the PCI function for the node and the vectors. */
static void
test_virtio_climb(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNic) n = vn_nic_read_netdev(root, "eth1", &error);
    guint queues = 0;

    g_assert_no_error(error);
    g_assert_cmpstr(n->pci_address, ==, "0000:af:00.0");
    g_assert_cmpint(n->node, ==, 1);
    g_assert_cmpuint(n->irqs->len, ==, 9);
    for (guint i = 0; i < n->irqs->len; i++)
        queues += vn_nic_irq_is_queue(irq_at(n, i));
    g_assert_cmpuint(queues, ==, 8);
    g_assert_cmpstr(irq_at(n, 0)->name, ==, "virtio3-config");
    g_assert_cmpint(irq_at(n, 8)->node, ==, 1);
}

/* The build machine's own virtio NIC as captured: node -1 (no locality),
 * three MSI-X vectors, an rx queue mask and no readable xps_cpus. */
static void
test_capture(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "virtio-capture", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNic) n = vn_nic_read_netdev(root, "eth0", &error);

    g_assert_no_error(error);
    g_assert_cmpstr(n->pci_address, ==, "0000:00:03.0");
    g_assert_cmpint(n->node, ==, -1);
    g_assert_cmpuint(n->irqs->len, ==, 3);
    g_assert_cmpstr(irq_at(n, 1)->name, ==, "virtio2-input.0");
    g_assert_cmpstr(irq_at(n, 2)->name, ==, "virtio2-output.0");
    g_assert_cmpuint(n->rx->len, ==, 1);
    g_assert_cmpuint(n->tx->len, ==, 1);
    g_assert_null(((VnNicQueue *)n->tx->pdata[0])->mask);
}

/* A VF given to a guest: no interface, its PF named, its vfio vectors. */
static void
test_vf(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnNic) n = vn_nic_read_pci(root, "0000:3b:02.0", &error);

    g_assert_no_error(error);
    g_assert_null(n->netdev);
    g_assert_cmpstr(n->pf_address, ==, "0000:3b:00.0");
    g_assert_cmpuint(n->irqs->len, ==, 3);
    g_assert_cmpstr(irq_at(n, 2)->name, ==, "vfio-msix[2](0000:3b:02.0)");
    g_assert_cmpuint(n->rx->len, ==, 0);
}

/* Bad input, one line each: a missing interface, a missing function, a
 * VF whose PF is gone, an interface without a PCI function. */
static void
test_bad_input(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) e1 = NULL, e2 = NULL, e3 = NULL, e4 = NULL, e5 = NULL;

    g_assert_null(vn_nic_read_netdev(root, "eth9", &e1));
    g_assert_error(e1, VN_NIC_ERROR, VN_NIC_ERROR_MISSING);
    g_assert_cmpstr(e1->message, ==, "network device \"eth9\": no such interface on this host");
    g_assert_null(vn_nic_read_pci(root, "0000:3b:09.0", &e2));
    g_assert_error(e2, VN_NIC_ERROR, VN_NIC_ERROR_MISSING);
    g_assert_null(vn_nic_read_pci(root, "0000:3b:02.1", &e3));
    g_assert_error(e3, VN_NIC_ERROR, VN_NIC_ERROR_NO_PF);
    g_assert_cmpstr(e3->message, ==, "VF 0000:3b:02.1: its PF is gone (physfn leads nowhere)");
    g_assert_null(vn_nic_read_netdev(root, "br0", &e4));
    g_assert_error(e4, VN_NIC_ERROR, VN_NIC_ERROR_MISSING);
    g_assert_null(vn_nic_read_netdev(root, "../eth1", &e5));
    g_assert_error(e5, VN_NIC_ERROR, VN_NIC_ERROR_MISSING);
}

/* A bridge's physical ports: the NIC, not the tap; a NIC is its own. */
static void
test_lower_ports(void)
{
    g_autofree gchar *root = vn_test_data_path("sysroot", "2socket-2nic", NULL);
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) br = vn_nic_lower_ports(root, "br0", &error);
    g_auto(GStrv) tap = NULL, nic = NULL, none = NULL;

    g_assert_no_error(error);
    g_assert_cmpuint(g_strv_length(br), ==, 1);
    g_assert_cmpstr(br[0], ==, "ens1f0");
    tap = vn_nic_lower_ports(root, "vnet0", &error);
    g_assert_no_error(error);
    g_assert_cmpuint(g_strv_length(tap), ==, 0);
    nic = vn_nic_lower_ports(root, "eth1", &error);
    g_assert_cmpstr(nic[0], ==, "eth1");
    none = vn_nic_lower_ports(root, "virbr9", &error);
    g_assert_null(none);
    g_assert_error(error, VN_NIC_ERROR, VN_NIC_ERROR_MISSING);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/nic/pf", test_pf);
    g_test_add_func("/nic/virtio-climb", test_virtio_climb);
    g_test_add_func("/nic/capture", test_capture);
    g_test_add_func("/nic/vf", test_vf);
    g_test_add_func("/nic/bad-input", test_bad_input);
    g_test_add_func("/nic/lower-ports", test_lower_ports);
    return g_test_run();
}
