/* vn-topology-sysfs.c: free memory and hugepages per node from sysfs.
 *
 * Everything is read below a sysroot ("/" for this host, a snapshot
 * directory in tests), as hwloc's HWLOC_FSROOT does.  The files are the
 * kernel's per-node ones:
 *   node<N>/meminfo                                   "Node N MemFree:  123 kB",
 *                                                     Active(file), Inactive(file),
 *                                                     SReclaimable
 *   node<N>/hugepages/hugepages-<size>kB/nr_hugepages  "4"
 *   node<N>/hugepages/hugepages-<size>kB/free_hugepages
 */
#include "vn-topology-source.h"

#include <inttypes.h>
#include <stdio.h>

static gchar *
node_dir(const gchar *sysroot, guint os_id)
{
    g_autofree gchar *name = g_strdup_printf("node%u", os_id);

    return g_build_filename(sysroot, "sys", "devices", "system", "node", name, NULL);
}

static gboolean
read_file(const gchar *path, gchar **ret_text, GError **error)
{
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, ret_text, NULL, &local)) {
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                            local->message);
        return FALSE;
    }
    return TRUE;
}

/* meminfo lines are "Node <id> <Field>: <value> kB".  MemFree is required;
 * the reclaimable part is what the kernel's own MemAvailable counts beside
 * it (Documentation/filesystems/proc.rst): the file LRU lists and
 * reclaimable slab, each 0 when the kernel does not report it. */
typedef struct {
    guint64 free_kib;
    guint64 reclaimable_kib;
} NodeMemory;

static gboolean
read_meminfo(const gchar *dir, guint os_id, NodeMemory *ret, GError **error)
{
    static const gchar *const reclaimable[] = { "Active(file)", "Inactive(file)", "SReclaimable" };
    g_autofree gchar *path = g_build_filename(dir, "meminfo", NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    gboolean have_free = FALSE;
    guint found = 0; /* reclaimable fields seen: the scan stops once all are */

    if (!read_file(path, &text, error))
        return FALSE;
    *ret = (NodeMemory){ 0 };
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i] && !(have_free && found == G_N_ELEMENTS(reclaimable)); i++) {
        unsigned id;
        uint64_t kib;
        char field[32] = "", unit[4] = "";

        if (sscanf(lines[i], "Node %u %31[^:]: %" SCNu64 " %3s", &id, field, &kib, unit) != 4 ||
            id != os_id || !g_str_equal(unit, "kB"))
            continue;
        if (g_str_equal(field, "MemFree")) {
            ret->free_kib = kib;
            have_free = TRUE;
        } else if (g_strv_contains(reclaimable, field)) {
            ret->reclaimable_kib += kib;
            found++;
        }
    }
    if (!have_free) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                    "%s: no 'Node %u MemFree: <n> kB' line", path, os_id);
        return FALSE;
    }
    return TRUE;
}

/* A sysfs number file: one unsigned decimal and a newline. */
static gboolean
read_count(const gchar *dir, const gchar *name, guint64 *ret_value, GError **error)
{
    g_autofree gchar *path = g_build_filename(dir, name, NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    guint64 v;

    if (!read_file(path, &text, error))
        return FALSE;
    if (!g_ascii_string_to_unsigned(g_strstrip(text), 10, 0, G_MAXUINT64, &v, &local)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE, "%s: %s", path,
                    local->message);
        return FALSE;
    }
    *ret_value = v;
    return TRUE;
}

/* Updates the entry of that size if the source already had one (hwloc's
 * page types), adds one otherwise. */
static void
set_hugepages(VnTopology *t, guint index, guint64 size_kib, guint64 total, guint64 free)
{
    GArray *pages = t->nodes[index].hugepages;

    for (guint i = 0; i < pages->len; i++) {
        VnHugepages *h = &g_array_index(pages, VnHugepages, i);
        if (h->size_kib == size_kib) {
            h->total = total;
            h->free = MIN(free, total);
            return;
        }
    }
    vn_topology_add_hugepages(t, index, size_kib, total, free);
}

/* Returns the node's hugepage pools (empty when the kernel has none). */
static GArray *
read_hugepages(const gchar *dir, GError **error)
{
    g_autofree gchar *hdir = g_build_filename(dir, "hugepages", NULL);
    g_autoptr(GArray) pools = g_array_new(FALSE, TRUE, sizeof(VnHugepages));
    g_autoptr(GDir) d = NULL;
    const gchar *name;

    d = g_dir_open(hdir, 0, NULL);
    if (!d)
        return g_steal_pointer(&pools);
    while ((name = g_dir_read_name(d))) {
        g_autofree gchar *sub = g_build_filename(hdir, name, NULL);
        VnHugepages h;
        uint64_t size_kib;
        char rest[3] = "";

        /* Entries are "hugepages-2048kB"; anything else is not ours. */
        if (sscanf(name, "hugepages-%" SCNu64 "%2s", &size_kib, rest) != 2 ||
            !g_str_equal(rest, "kB") || !g_str_has_suffix(name, "kB"))
            continue;
        h.size_kib = size_kib;
        if (!read_count(sub, "nr_hugepages", &h.total, error) ||
            !read_count(sub, "free_hugepages", &h.free, error))
            return NULL;
        g_array_append_val(pools, h);
    }
    return g_steal_pointer(&pools);
}

/* Everything is read first and applied only when every file was fine, so
 * a failure leaves `t` as it was. */
gboolean
vn_topology_read_sysfs_memory(VnTopology *t, const gchar *sysroot, GError **error)
{
    g_autofree NodeMemory *mem = NULL;
    g_autoptr(GPtrArray) pools = NULL;

    g_return_val_if_fail(t != NULL && sysroot != NULL, FALSE);
    mem = g_new0(NodeMemory, MAX(t->n_nodes, 1));
    pools = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    for (guint i = 0; i < t->n_nodes; i++) {
        g_autofree gchar *dir = node_dir(sysroot, t->nodes[i].os_id);
        GArray *p;

        if (!read_meminfo(dir, t->nodes[i].os_id, &mem[i], error))
            return FALSE;
        if (!(p = read_hugepages(dir, error)))
            return FALSE;
        g_ptr_array_add(pools, p);
    }
    for (guint i = 0; i < t->n_nodes; i++) {
        GArray *p = g_ptr_array_index(pools, i);

        t->nodes[i].mem_free_kib = mem[i].free_kib;
        t->nodes[i].mem_reclaimable_kib = mem[i].reclaimable_kib;
        for (guint k = 0; k < p->len; k++) {
            VnHugepages *h = &g_array_index(p, VnHugepages, k);
            set_hugepages(t, i, h->size_kib, h->total, h->free);
        }
    }
    return TRUE;
}
