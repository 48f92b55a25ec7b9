/* vn-nic.c: a host NIC's PCI function, MSI vectors and queues from sysfs
 * and /proc under a sysroot.
 *
 * Links are followed with realpath(3) and the result must stay inside the
 * sysroot: a fixture's relative links resolve inside it as the live
 * host's do inside /. */
#include "vn-nic.h"
#include "vn-host-devices.h"

#include <errno.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>

G_DEFINE_QUARK(vn-nic-error-quark, vn_nic_error);

#define MAX_LOWER_DEPTH 8
#define MAX_IRQ 1048576

static const gchar *
root_of(const gchar *sysroot)
{
    return sysroot && *sysroot ? sysroot : "/";
}

/* The file's first line, stripped, or NULL. */
static gchar *
read_line(const gchar *path)
{
    gchar *text = NULL;

    if (!g_file_get_contents(path, &text, NULL, NULL))
        return NULL;
    return g_strstrip(text);
}

static gint
read_int(const gchar *path, gint fallback)
{
    g_autofree gchar *t = read_line(path);
    gint64 v;

    if (!t || !g_ascii_string_to_signed(t, 10, -1, G_MAXINT, &v, NULL))
        return fallback;
    return (gint)v;
}

/* realpath() of `path`, or NULL when it leads nowhere or out of `root`. */
static gchar *
resolve_inside(const gchar *root, const gchar *path)
{
    g_autofree gchar *real_root = realpath(root, NULL);
    g_autofree gchar *real = realpath(path, NULL);
    gsize n;

    if (!real || !real_root)
        return NULL;
    n = strlen(real_root);
    if (strcmp(real_root, "/") != 0 && (strncmp(real, real_root, n) != 0 || real[n] != '/'))
        return NULL;
    return g_steal_pointer(&real);
}

gboolean
vn_nic_is_pci_address(const gchar *s)
{
    static const gchar shape[] = "xxxx:xx:xx.x";

    if (strlen(s) != sizeof(shape) - 1)
        return FALSE;
    for (gsize i = 0; shape[i]; i++)
        if (shape[i] == 'x' ? !g_ascii_isxdigit(s[i]) : s[i] != shape[i])
            return FALSE;
    return TRUE;
}

/* From a device directory up to the PCI function holding it. */
static gchar *
climb_to_pci(const gchar *dir)
{
    g_autofree gchar *d = g_strdup(dir);

    for (guint depth = 0; depth < 4 && strcmp(d, "/") != 0; depth++) {
        g_autofree gchar *base = g_path_get_basename(d);
        g_autofree gchar *node = g_build_filename(d, "numa_node", NULL);
        gchar *up;

        if (vn_nic_is_pci_address(base) && g_file_test(node, G_FILE_TEST_EXISTS))
            return g_steal_pointer(&d);
        up = g_path_get_dirname(d);
        g_free(d);
        d = up;
    }
    return NULL;
}

static void
irq_free(gpointer p)
{
    VnNicIrq *i = p;

    g_free(i->name);
    g_free(i->affinity);
    g_free(i);
}

static void
queue_free(gpointer p)
{
    VnNicQueue *q = p;

    g_free(q->name);
    g_free(q->mask);
    g_free(q);
}

void
vn_nic_free(VnNic *n)
{
    if (!n)
        return;
    g_free(n->netdev);
    g_free(n->pci_address);
    g_free(n->pf_address);
    g_free(n->local_cpulist);
    g_clear_pointer(&n->irqs, g_ptr_array_unref);
    g_clear_pointer(&n->rx, g_ptr_array_unref);
    g_clear_pointer(&n->tx, g_ptr_array_unref);
    g_free(n);
}

GHashTable *
vn_nic_irq_names(const gchar *sysroot)
{
    g_autofree gchar *path = g_build_filename(root_of(sysroot), "proc", "interrupts", NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    GHashTable *names = g_hash_table_new_full(NULL, NULL, NULL, g_free);

    if (!g_file_get_contents(path, &text, NULL, NULL))
        return names;
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_autofree gchar *line = g_strstrip(g_strdup(lines[i]));
        gchar *colon = strchr(line, ':');
        gchar *last;
        guint64 irq;

        if (!colon)
            continue;
        *colon = '\0';
        if (!g_ascii_string_to_unsigned(line, 10, 0, MAX_IRQ, &irq, NULL))
            continue;
        last = strrchr(colon + 1, ' ');
        last = last ? last + 1 : colon + 1;
        g_hash_table_insert(names, GUINT_TO_POINTER((guint)irq), g_strdup(last));
    }
    return names;
}

static gint
irq_cmp(gconstpointer a, gconstpointer b)
{
    const VnNicIrq *x = *(VnNicIrq *const *)a, *y = *(VnNicIrq *const *)b;

    return (x->irq > y->irq) - (x->irq < y->irq);
}

static VnNicIrq *
read_irq(const gchar *root, guint irq, GHashTable *names)
{
    g_autofree gchar *num = g_strdup_printf("%u", irq);
    g_autofree gchar *dir = g_build_filename(root, "proc", "irq", num, NULL);
    g_autofree gchar *list = g_build_filename(dir, "smp_affinity_list", NULL);
    g_autofree gchar *node = g_build_filename(dir, "node", NULL);
    const gchar *name = g_hash_table_lookup(names, GUINT_TO_POINTER(irq));
    VnNicIrq *i = g_new0(VnNicIrq, 1);
    struct stat st;

    i->irq = irq;
    i->name = g_strdup(name ? name : "");
    i->affinity = read_line(list);
    i->node = read_int(node, -1);
    i->read_only = stat(list, &st) != 0 || (st.st_mode & S_IWUSR) == 0;
    return i;
}

static GPtrArray *
read_irqs(const gchar *root, const gchar *function)
{
    g_autofree gchar *msi = g_build_filename(function, "msi_irqs", NULL);
    g_autoptr(GDir) dir = g_dir_open(msi, 0, NULL);
    g_autoptr(GHashTable) names = vn_nic_irq_names(root);
    GPtrArray *irqs = g_ptr_array_new_with_free_func(irq_free);
    const gchar *e;

    while (dir && (e = g_dir_read_name(dir))) {
        guint64 irq;
        if (g_ascii_string_to_unsigned(e, 10, 0, MAX_IRQ, &irq, NULL))
            g_ptr_array_add(irqs, read_irq(root, (guint)irq, names));
    }
    g_ptr_array_sort(irqs, irq_cmp);
    return irqs;
}

/* "rx-10" after "rx-9": by the number after the dash. */
static gint
queue_cmp(gconstpointer a, gconstpointer b)
{
    const VnNicQueue *x = *(VnNicQueue *const *)a, *y = *(VnNicQueue *const *)b;
    guint64 m = g_ascii_strtoull(x->name + 3, NULL, 10),
            n = g_ascii_strtoull(y->name + 3, NULL, 10);

    return (m > n) - (m < n);
}

static void
read_queues(VnNic *n, const gchar *netdir)
{
    g_autofree gchar *qdir = g_build_filename(netdir, "queues", NULL);
    g_autoptr(GDir) dir = g_dir_open(qdir, 0, NULL);
    const gchar *e;

    n->rx = g_ptr_array_new_with_free_func(queue_free);
    n->tx = g_ptr_array_new_with_free_func(queue_free);
    while (dir && (e = g_dir_read_name(dir))) {
        gboolean rx = g_str_has_prefix(e, "rx-"), tx = g_str_has_prefix(e, "tx-");
        g_autofree gchar *file = NULL;
        VnNicQueue *q;

        if (!rx && !tx)
            continue;
        file = g_build_filename(qdir, e, rx ? "rps_cpus" : "xps_cpus", NULL);
        q = g_new0(VnNicQueue, 1);
        q->name = g_strdup(e);
        q->mask = read_line(file);
        g_ptr_array_add(rx ? n->rx : n->tx, q);
    }
    g_ptr_array_sort(n->rx, queue_cmp);
    g_ptr_array_sort(n->tx, queue_cmp);
}

/* Fills the PCI facts of `n` from the function directory `function`. */
static gboolean
read_function(VnNic *n, const gchar *root, const gchar *function, GError **error)
{
    g_autofree gchar *node = g_build_filename(function, "numa_node", NULL);
    g_autofree gchar *cpus = g_build_filename(function, "local_cpulist", NULL);
    g_autofree gchar *physfn = g_build_filename(function, "physfn", NULL);

    n->pci_address = g_path_get_basename(function);
    n->node = read_int(node, -1);
    n->local_cpulist = read_line(cpus);
    if (g_file_test(physfn, G_FILE_TEST_IS_SYMLINK)) {
        g_autofree gchar *pf = resolve_inside(root, physfn);
        if (!pf) {
            g_set_error(error, VN_NIC_ERROR, VN_NIC_ERROR_NO_PF,
                        "VF %s: its PF is gone (physfn leads nowhere)", n->pci_address);
            return FALSE;
        }
        n->pf_address = g_path_get_basename(pf);
    }
    n->irqs = read_irqs(root, function);
    return TRUE;
}

VnNic *
vn_nic_read_netdev(const gchar *sysroot, const gchar *netdev, GError **error)
{
    const gchar *root = root_of(sysroot);
    g_autofree gchar *netdir = NULL;
    g_autofree gchar *devlink = NULL;
    g_autofree gchar *device = NULL;
    g_autofree gchar *function = NULL;
    g_autoptr(VnNic) n = g_new0(VnNic, 1);

    netdir = vn_host_safe_name(netdev) ? g_build_filename(root, "sys", "class", "net", netdev, NULL)
                                       : NULL;
    if (!netdir || !g_file_test(netdir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, VN_NIC_ERROR, VN_NIC_ERROR_MISSING,
                    "network device \"%s\": no such interface on this host", netdev);
        return NULL;
    }
    devlink = g_build_filename(netdir, "device", NULL);
    device = resolve_inside(root, devlink);
    function = device ? climb_to_pci(device) : NULL;
    if (!function) {
        g_set_error(error, VN_NIC_ERROR, VN_NIC_ERROR_MISSING,
                    "network device \"%s\": not on a PCI function (a bridge, bond or tap?)",
                    netdev);
        return NULL;
    }
    n->netdev = g_strdup(netdev);
    if (!read_function(n, root, function, error))
        return NULL;
    read_queues(n, netdir);
    return g_steal_pointer(&n);
}

VnNic *
vn_nic_read_pci(const gchar *sysroot, const gchar *pci_address, GError **error)
{
    const gchar *root = root_of(sysroot);
    g_autofree gchar *link = NULL;
    g_autofree gchar *function = NULL;
    g_autoptr(VnNic) n = g_new0(VnNic, 1);

    if (pci_address && vn_nic_is_pci_address(pci_address)) {
        link = g_build_filename(root, "sys", "bus", "pci", "devices", pci_address, NULL);
        function = resolve_inside(root, link);
    }
    if (!function) {
        g_set_error(error, VN_NIC_ERROR, VN_NIC_ERROR_MISSING,
                    "PCI function \"%s\": not on this host", pci_address ? pci_address : "");
        return NULL;
    }
    if (!read_function(n, root, function, error))
        return NULL;
    n->rx = g_ptr_array_new_with_free_func(queue_free);
    n->tx = g_ptr_array_new_with_free_func(queue_free);
    return g_steal_pointer(&n);
}

static void add_lower(const gchar *root, const gchar *netdev, guint depth, GPtrArray *out);

/* Each entry of `dir` whose name starts with `prefix`, as an interface. */
static void
add_entries(const gchar *root, const gchar *dir, const gchar *prefix, guint depth, GPtrArray *out)
{
    g_autoptr(GDir) d = g_dir_open(dir, 0, NULL);
    const gchar *e;

    while (d && (e = g_dir_read_name(d)))
        if (g_str_has_prefix(e, prefix))
            add_lower(root, e + strlen(prefix), depth + 1, out);
}

static void
add_lower(const gchar *root, const gchar *netdev, guint depth, GPtrArray *out)
{
    g_autofree gchar *netdir = g_build_filename(root, "sys", "class", "net", netdev, NULL);
    g_autofree gchar *device = g_build_filename(netdir, "device", NULL);
    g_autofree gchar *brif = g_build_filename(netdir, "brif", NULL);

    if (depth > MAX_LOWER_DEPTH || !vn_host_safe_name(netdev))
        return;
    if (g_file_test(device, G_FILE_TEST_EXISTS)) {
        if (!g_ptr_array_find_with_equal_func(out, netdev, g_str_equal, NULL))
            g_ptr_array_add(out, g_strdup(netdev));
        return;
    }
    add_entries(root, brif, "", depth, out);
    add_entries(root, netdir, "lower_", depth, out);
}

static gint
str_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(*(const gchar *const *)a, *(const gchar *const *)b);
}

GStrv
vn_nic_lower_ports(const gchar *sysroot, const gchar *netdev, GError **error)
{
    const gchar *root = root_of(sysroot);
    g_autofree gchar *netdir = NULL;
    g_autoptr(GPtrArray) out = g_ptr_array_new_with_free_func(g_free);

    netdir = vn_host_safe_name(netdev) ? g_build_filename(root, "sys", "class", "net", netdev, NULL)
                                       : NULL;
    if (!netdir || !g_file_test(netdir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, VN_NIC_ERROR, VN_NIC_ERROR_MISSING,
                    "network device \"%s\": no such interface on this host", netdev);
        return NULL;
    }
    add_lower(root, netdev, 0, out);
    g_ptr_array_sort(out, str_cmp);
    g_ptr_array_add(out, NULL);
    return (GStrv)g_ptr_array_free(g_steal_pointer(&out), FALSE);
}

gboolean
vn_nic_irq_is_queue(const VnNicIrq *irq)
{
    const gchar *n = irq->name;

    return n && *n && !g_str_has_suffix(n, "-config") && !g_str_has_suffix(n, "-ctrl") &&
           !strstr(n, "async") && !strstr(n, "misc");
}

VnIrqNic *
vn_nic_plan_input(const VnNic *n, VnIrqNicKind kind)
{
    g_autofree gchar *name =
        n->netdev ? g_strdup(n->netdev)
                  : g_strdup_printf("%s %s", n->pf_address ? "VF" : "PCI", n->pci_address);
    VnIrqNic *in = vn_irq_nic_new(name, kind, n->node);

    for (guint i = 0; i < n->irqs->len; i++) {
        const VnNicIrq *irq = n->irqs->pdata[i];
        vn_irq_nic_add_vector(in, irq->irq, vn_nic_irq_is_queue(irq), irq->read_only);
    }
    in->n_rx = n->rx->len;
    in->n_tx = n->tx->len;
    return in;
}
