/* vn-nic.h: a host network device's PCI function, interrupts and queues,
 * read under a sysroot.
 *
 * Where the facts are (Linux, kernel documentation in
 * Documentation/ABI/testing/sysfs-bus-pci, sysfs-class-net-queues,
 * Documentation/core-api/irq/irq-affinity.rst, filesystems/proc.rst):
 *  - sys/class/net/DEV/device: the device the interface sits on; for
 *    virtio-net that is the virtio device (virtioN), whose parent
 *    directory is the PCI function, so the reader climbs to the first
 *    directory with a `msi_irqs` or `numa_node` and a PCI-address name;
 *  - <function>/numa_node ("-1": no locality), local_cpulist,
 *    msi_irqs/<irq> (one file per MSI/MSI-X vector, "msi" or "msix"),
 *    physfn (a VF's link to its PF);
 *  - sys/class/net/DEV/queues/rx-N/rps_cpus, tx-N/xps_cpus (hex masks;
 *    reading xps_cpus of a single-queue device fails with ENOENT);
 *  - proc/irq/N/{smp_affinity_list,node}; proc/interrupts, whose last
 *    column names the handler ("virtio2-input.0", "i40e-ens1f0-TxRx-0").
 *  - a bridge's ports are sys/class/net/BR/brif/PORT; a bond's, a VLAN's
 *    or a macvlan's lower devices sys/class/net/DEV/lower_PORT links.
 * Nothing is cached: every call reads the files again.
 */
#pragma once

#include <glib.h>
#include "vn-irq-plan.h"

#define VN_NIC_ERROR (vn_nic_error_quark())
GQuark vn_nic_error_quark(void);
typedef enum {
    VN_NIC_ERROR_MISSING, /* no such interface or PCI function */
    VN_NIC_ERROR_NO_PF,   /* a VF whose physfn link leads nowhere */
    VN_NIC_ERROR_READ,    /* a file that must be there is not readable */
    VN_NIC_ERROR_MAX
} VnNicError;

typedef struct {
    guint irq;
    gchar *name;     /* handler name from proc/interrupts, or "" */
    gchar *affinity; /* smp_affinity_list as read ("0-11"), or NULL */
    gint node;       /* proc/irq/N/node, -1 when unknown */
    /* smp_affinity_list has no write bit (or is missing): the kernel
     * will not take a change, whoever asks. */
    gboolean read_only;
} VnNicIrq;

typedef struct {
    gchar *name; /* "rx-0", "tx-3" */
    gchar *mask; /* rps_cpus / xps_cpus as read (hex mask), or NULL */
} VnNicQueue;

typedef struct {
    gchar *netdev;        /* interface name, NULL for a VF without one */
    gchar *pci_address;   /* "0000:3b:00.0" */
    gchar *pf_address;    /* a VF's PF, else NULL */
    gint node;            /* numa_node, -1 when unknown */
    gchar *local_cpulist; /* as read, or NULL */
    GPtrArray *irqs;      /* of VnNicIrq*, ascending */
    GPtrArray *rx;        /* of VnNicQueue*, rx-0 first */
    GPtrArray *tx;        /* of VnNicQueue*, tx-0 first */
} VnNic;

void vn_nic_free(VnNic *n);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnNic, vn_nic_free)

/* The interface `netdev` and the PCI function under it.  `sysroot` NULL
 * or "" = "/".  VN_NIC_ERROR_MISSING when there is no such interface or
 * it has no PCI function (a bridge, a tap: see vn_nic_lower_ports()). */
VnNic *vn_nic_read_netdev(const gchar *sysroot, const gchar *netdev, GError **error);

/* The PCI function `pci_address` ("0000:3b:02.0"), e.g. a VF given to a
 * guest (bound to vfio-pci, it has no interface: netdev NULL, no
 * queues).  VN_NIC_ERROR_MISSING when there is no such function,
 * VN_NIC_ERROR_NO_PF for a VF whose PF is gone. */
VnNic *vn_nic_read_pci(const gchar *sysroot, const gchar *pci_address, GError **error);

/* The interfaces with a PCI function under `netdev`: itself when it has
 * one, else its bridge ports and lower devices, followed through bridges,
 * bonds and VLANs (a depth of 8 at most), ascending, each once; ports
 * without a device (taps, vnetN) are left out.  An empty array for a
 * bridge with only virtual ports; VN_NIC_ERROR_MISSING when `netdev`
 * does not exist. */
GStrv vn_nic_lower_ports(const gchar *sysroot, const gchar *netdev, GError **error);

/* Whether `s` reads as a PCI address: "0000:3b:00.0", domain:bus:slot.function
 * in hex. */
gboolean vn_nic_is_pci_address(const gchar *s);

/* The handler names of proc/interrupts: irq (GUINT_TO_POINTER) -> name.
 * Lines that do not start with a number ("NMI:") are skipped; an empty
 * table when the file is not there. */
GHashTable *vn_nic_irq_names(const gchar *sysroot);

/* Whether irq `irq` serves a queue: every vector but a device's own
 * configuration or control one (names ending in "-config", "-ctrl",
 * containing "async" or "misc", or none at all). */
gboolean vn_nic_irq_is_queue(const VnNicIrq *irq);

/* The plan's view of `n` (vn-irq-plan.h), without users: named by its
 * interface, else "VF <pci>" for a VF, else "PCI <pci>". */
VnIrqNic *vn_nic_plan_input(const VnNic *n, VnIrqNicKind kind);
