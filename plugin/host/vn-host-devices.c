/* vn-host-devices.c: a device's NUMA node and the default hugepage size,
 * from files under a sysroot. */
#include "vn-host-devices.h"

#include <string.h>

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
        return FALSE; /* "-1": the platform gives no locality */
    *ret_node = (guint)v;
    return TRUE;
}

gboolean
vn_host_safe_name(const gchar *s)
{
    return s && *s && !strchr(s, '/') && strcmp(s, ".") != 0 && strcmp(s, "..") != 0;
}

gboolean
vn_host_device_node(const gchar *sysroot, const gchar *pci_address, const gchar *netdev,
                    const gchar *blockdev, guint *ret_node)
{
    g_autofree gchar *base = blockdev ? g_path_get_basename(blockdev) : NULL;

    if (pci_address)
        return vn_host_safe_name(pci_address) &&
               read_node(sysroot, ret_node, "sys/bus/pci/devices", pci_address, "numa_node", NULL);
    if (netdev && vn_host_safe_name(netdev))
        return read_node(sysroot, ret_node, "sys/class/net", netdev, "device", "numa_node", NULL);
    if (base && vn_host_safe_name(base))
        return read_node(sysroot, ret_node, "sys/class/block", base, "device", "numa_node", NULL) ||
               read_node(sysroot, ret_node, "sys/class/block", base, "device", "device",
                         "numa_node", NULL);
    return FALSE;
}

guint64
vn_host_default_hugepage_kib(const gchar *sysroot)
{
    g_autofree gchar *path = g_build_filename(sysroot, "proc", "meminfo", NULL);
    g_autofree gchar *text = NULL;
    const gchar *p;
    guint64 kib;

    if (!g_file_get_contents(path, &text, NULL, NULL) || !(p = strstr(text, "Hugepagesize:")))
        return DEFAULT_HUGEPAGE_KIB;
    kib = g_ascii_strtoull(p + strlen("Hugepagesize:"), NULL, 10);
    return kib ? kib : DEFAULT_HUGEPAGE_KIB;
}
