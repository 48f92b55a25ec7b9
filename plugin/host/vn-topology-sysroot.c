/* vn-topology-sysroot.c: VnTopology from a captured Linux root (--sysroot).
 *
 * One host per command: with --sysroot and no other topology source, the
 * nodes and CPUs come from the capture, not from the machine vnuma runs on,
 * so they match the free memory and CPU counters read from the same tree.
 * hwloc 2.x reads a file-system root only through $HWLOC_FSROOT (the
 * hwloc 1.x hwloc_topology_set_fsroot() is gone), which is process-wide:
 * it is set in the child of vn_topology_load_isolated() only, which also
 * keeps a capture that crashes hwloc away from this process.
 *
 * hwloc's Linux backend gives up on a tree without CPU topology files and
 * silently skips a node without cpumap; the core then falls back to one
 * CPU, and the x86 backend (blacklisted here, as for the live host) would
 * describe this machine's own CPUs.  So the files hwloc needs are checked
 * first, the first missing one named, and a topology not built by the
 * Linux backend is refused.
 */
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-cpulist.h"

#include <errno.h>

/* The cpu<N>/topology files hwloc's Linux backend accepts (new names
 * first, then the pre-5.x ones; hwloc 2.9 check_sysfs_cpu_path()). */
static const gchar *const cpu_topology_files[] = {
    "package_cpus",
    "core_cpus",
    "core_siblings",
    "thread_siblings",
};

static gchar *
system_path(const gchar *sysroot, const gchar *rel)
{
    return g_build_filename(sysroot, "sys", "devices", "system", rel, NULL);
}

static gboolean
missing(GError **error, const gchar *path, const gchar *why)
{
    g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO, "%s: missing (%s)",
                path, why);
    return FALSE;
}

/* A kernel list file (cpu/online, node/online) as a bitmap. */
static VnBitmap *
read_list(const gchar *path, GError **error)
{
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    VnBitmap *b;

    if (!g_file_get_contents(path, &text, NULL, &local)) {
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                            local->message);
        return NULL;
    }
    if (!(b = vn_cpulist_parse(g_strstrip(text), 1u << 16, &local))) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE, "%s: %s", path,
                    local->message);
        return NULL;
    }
    return b;
}

static gboolean
has_cpu_topology(const gchar *sysroot, guint cpu)
{
    for (gsize i = 0; i < G_N_ELEMENTS(cpu_topology_files); i++) {
        g_autofree gchar *rel =
            g_strdup_printf("cpu/cpu%u/topology/%s", cpu, cpu_topology_files[i]);
        g_autofree gchar *path = system_path(sysroot, rel);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR))
            return TRUE;
    }
    return FALSE;
}

/* As hwloc: cpu0's topology files, else those of the first online CPU. */
static gboolean
check_cpus(const gchar *sysroot, GError **error)
{
    g_autofree gchar *dir = system_path(sysroot, "cpu");
    g_autofree gchar *online_path = system_path(sysroot, "cpu/online");
    g_autofree gchar *topo0 = system_path(sysroot, "cpu/cpu0/topology");
    g_autoptr(VnBitmap) online = NULL;

    if (!g_file_test(dir, G_FILE_TEST_IS_DIR))
        return missing(error, dir, "not a captured Linux root: no CPUs");
    if (has_cpu_topology(sysroot, 0))
        return TRUE;
    online = g_file_test(online_path, G_FILE_TEST_EXISTS) ? read_list(online_path, NULL) : NULL;
    if (online && !vn_bitmap_is_empty(online) &&
        has_cpu_topology(sysroot, (guint)vn_bitmap_next(online, -1)))
        return TRUE;
    g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                "%s: none of package_cpus, core_cpus, core_siblings, thread_siblings "
                "(hwloc needs one to read the CPUs)",
                topo0);
    return FALSE;
}

/* Every online node needs cpumap (hwloc drops a node without it). */
static gboolean
check_nodes(const gchar *sysroot, GError **error)
{
    g_autofree gchar *online_path = system_path(sysroot, "node/online");
    g_autoptr(VnBitmap) online = NULL;

    if (!g_file_test(online_path, G_FILE_TEST_EXISTS))
        return missing(error, online_path, "the list of NUMA nodes");
    if (!(online = read_list(online_path, error)))
        return FALSE;
    if (vn_bitmap_is_empty(online)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_PARSE,
                    "%s: lists no node", online_path);
        return FALSE;
    }
    VN_BITMAP_FOREACH (online, os) {
        g_autofree gchar *rel = g_strdup_printf("node/node%d/cpumap", os);
        g_autofree gchar *path = system_path(sysroot, rel);
        if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
            return missing(error, path, "hwloc needs it to read the node");
    }
    return TRUE;
}

static gboolean
hwloc_load_fsroot(hwloc_topology_t topo, const gchar *sysroot, GError **error)
{
    const gchar *backend;
    int rc;

    hwloc_topology_set_components(topo, HWLOC_TOPOLOGY_COMPONENTS_FLAG_BLACKLIST, "x86");
    g_setenv("HWLOC_FSROOT", sysroot, TRUE);
    rc = hwloc_topology_load(topo);
    g_unsetenv("HWLOC_FSROOT");
    if (rc < 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc cannot read a topology from it: %s", sysroot, g_strerror(errno));
        return FALSE;
    }
    backend = hwloc_obj_get_info_by_name(hwloc_get_root_obj(topo), "Backend");
    if (g_strcmp0(backend, "Linux") != 0) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc's Linux backend read no topology from it", sysroot);
        return FALSE;
    }
    return TRUE;
}

/* The child's part: hwloc on the capture, the nodes hwloc does not show,
 * finished.  Free memory is the parent's part. */
static VnTopology *
load_shape(const gchar *sysroot, GError **error)
{
    g_autoptr(VnHwlocTopology) topo = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(GError) local = NULL;
    g_autofree gchar *source = NULL;

    if (!check_cpus(sysroot, error) || !check_nodes(sysroot, error))
        return NULL;
    topo = vn_hwloc_topology_new();
    if (!hwloc_load_fsroot(topo, sysroot, error))
        return NULL;
    source = g_strdup_printf("sysroot %s (hwloc)", sysroot);
    t = vn_topology_build_from_hwloc(topo, source);
    if (!vn_topology_add_sysfs_nodes(t, sysroot, error))
        return NULL;
    vn_topology_add_sysfs_tiers(t, sysroot);
    if (!vn_topology_finish(t, &local)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID, "%s: %s",
                    sysroot, local->message);
        return NULL;
    }
    return g_steal_pointer(&t);
}

VnTopology *
vn_topology_load_sysroot(const gchar *sysroot, GError **error)
{
    g_autoptr(VnTopology) t = NULL;

    g_return_val_if_fail(sysroot != NULL, NULL);
    if (!g_file_test(sysroot, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                    "%s: no such directory", sysroot);
        return NULL;
    }
    t = vn_topology_load_isolated(load_shape, sysroot, sysroot, error);
    if (!t || !vn_topology_read_sysfs_memory(t, sysroot, error))
        return NULL;
    return g_steal_pointer(&t);
}
