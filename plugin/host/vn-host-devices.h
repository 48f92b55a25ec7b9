/* vn-host-devices.h: host facts a domain's request needs, read from files
 * under a sysroot (never hard-coded paths), so a test can hand in a fake
 * /sys. */
#pragma once

#include <glib.h>

/* The NUMA node of a host device, from
 * sys/bus/pci/devices/<addr>/numa_node, sys/class/net/<if>/device/numa_node
 * or sys/class/block/<dev>/device[/device]/numa_node (the first of
 * pci_address, netdev, blockdev that is set).  FALSE when the node is
 * unknown (-1, no file, a name with '/'); *ret_node is then untouched. */
gboolean vn_host_device_node(const gchar *sysroot, const gchar *pci_address, const gchar *netdev,
                             const gchar *blockdev, guint *ret_node);

/* The default hugepage size in KiB from proc/meminfo (2048 when unknown). */
guint64 vn_host_default_hugepage_kib(const gchar *sysroot);
/* A single file-name component a caller may put in a sysfs path: not
 * empty, no '/', not "." or "..". */
gboolean vn_host_safe_name(const gchar *s);
