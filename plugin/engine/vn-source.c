/* vn-source.c: the topology source options every command shares. */
#include "vn-source.h"

#include "vn-config-build.h"
#include "vn-host-load.h"
#include "vn-ledger.h"
#include "vn-distances.h"
#include "vn-load-file.h"
#include "vn-topology-source.h"

G_DEFINE_QUARK(vn-source-error-quark, vn_source_error);

GOptionGroup *
vn_source_option_group(VnSourceOptions *o)
{
    const GOptionEntry entries[] = {
        { "topology", 0, 0, G_OPTION_ARG_FILENAME, &o->topology_file,
          "Host topology from an hwloc XML file", "FILE" },
        { "synthetic", 0, 0, G_OPTION_ARG_STRING, &o->synthetic,
          "Host topology from an hwloc synthetic string", "STR" },
        { "capabilities", 0, 0, G_OPTION_ARG_FILENAME, &o->capabilities,
          "Host topology from a libvirt capabilities XML file", "FILE" },
        { "load", 0, 0, G_OPTION_ARG_FILENAME, &o->load_file,
          "Committed load per node from a JSON file", "FILE" },
        { "config", 0, 0, G_OPTION_ARG_FILENAME, &o->config_file,
          "Configuration file (default: $VNUMA_CONFIG, else " VNUMA_DEFAULT_CONFIG ")", "FILE" },
        { "sysroot", 0, 0, G_OPTION_ARG_FILENAME, &o->sysroot,
          "Read /proc and /sys below DIR (free memory, CPU busy; alone: the whole captured host)",
          "DIR" },
        { NULL },
    };
    GOptionGroup *group = g_option_group_new(
        "source", "Topology source options:", "Show topology source options", NULL, NULL);

    g_option_group_add_entries(group, entries);
    return group;
}

void
vn_source_options_clear(VnSourceOptions *o)
{
    g_clear_pointer(&o->topology_file, g_free);
    g_clear_pointer(&o->synthetic, g_free);
    g_clear_pointer(&o->capabilities, g_free);
    g_clear_pointer(&o->load_file, g_free);
    g_clear_pointer(&o->config_file, g_free);
    g_clear_pointer(&o->sysroot, g_free);
    g_clear_pointer(&o->state_dir, g_free);
}

gboolean
vn_source_is_this_host(const VnSourceOptions *o)
{
    return !o->topology_file && !o->synthetic && !o->capabilities && !o->sysroot;
}

/* hwloc parses these inputs in a child (vn_topology_load_isolated()):
 * they come from elsewhere, and an hwloc bug must not take vnuma down. */
static VnTopology *
load_hwloc_xml(const gchar *path, GError **error)
{
    return vn_topology_load_isolated(vn_topology_load_hwloc_xml, path, path, error);
}

static VnTopology *
load_synthetic(const gchar *description, GError **error)
{
    g_autofree gchar *what = g_strdup_printf("hwloc synthetic description '%s'", description);

    return vn_topology_load_isolated(vn_topology_load_synthetic, description, what, error);
}

/* The one topology source asked for, or the default one: --sysroot alone
 * is a captured host, read whole from its tree (one host per command).
 * *ret_live: the live host, measured by its loader.  *ret_this_host: the
 * topology describes this host (live, or $VNUMA_TOPOLOGY standing in for
 * it, as for the hook), so its ledger applies.  *ret_measured: free memory
 * already read by the loader. */
static VnTopology *
load_topology(const VnSourceOptions *o, gboolean *ret_live, gboolean *ret_this_host,
              gboolean *ret_measured, GError **error)
{
    const gchar *env = g_getenv("VNUMA_TOPOLOGY");
    guint given = !!o->topology_file + !!o->synthetic + !!o->capabilities;

    *ret_live = FALSE;
    *ret_this_host = FALSE;
    *ret_measured = FALSE;
    if (given > 1) {
        g_set_error(error, VN_SOURCE_ERROR, VN_SOURCE_ERROR_CONFLICT,
                    "give at most one of --topology, --synthetic and --capabilities");
        return NULL;
    }
    if (o->topology_file)
        return load_hwloc_xml(o->topology_file, error);
    if (o->synthetic)
        return load_synthetic(o->synthetic, error);
    if (o->capabilities)
        return vn_topology_load_capabilities(o->capabilities, error);
    *ret_measured = TRUE;
    if (o->sysroot)
        return vn_topology_load_sysroot(o->sysroot, error);
    *ret_this_host = TRUE;
    if (env && *env) {
        *ret_measured = FALSE;
        return load_hwloc_xml(env, error);
    }
    *ret_live = TRUE;
    return vn_topology_load_live(error);
}

/* A replayed host: free memory per node from the sysroot's sysfs, unless
 * the loader read it already (live host, the capture itself). */
static gboolean
measure_memory(const VnSourceOptions *o, gboolean measured, VnTopology *t, GError **error)
{
    return measured || !o->sysroot || vn_topology_read_sysfs_memory(t, o->sysroot, error);
}

/* CPU busy: watched live, or counters since boot from a sysroot.  A
 * capture without proc/stat leaves it unknown, and the source says so. */
static gboolean
measure_busy(const VnSourceOptions *o, gboolean live, VnTopology *t, VnLoad *load, GError **error)
{
    g_autofree gchar *stat = NULL;
    g_autofree gchar *old = NULL;

    if (!live && !o->sysroot)
        return TRUE;
    if (!live) {
        stat = g_build_filename(o->sysroot, "proc", "stat", NULL);
        if (!g_file_test(stat, G_FILE_TEST_EXISTS)) {
            old = g_steal_pointer(&t->source);
            t->source = g_strdup_printf("%s; CPU busy unknown: no %s", old, stat);
            return TRUE;
        }
    }
    return vn_host_measure_cpu_busy(o->sysroot, t, load, live ? VN_SOURCE_LIVE_INTERVAL_MS : 0,
                                    error);
}

/* The directory of the ledger whose VMs are the host's load: o->state_dir
 * (which must be a directory: a mistyped one would read as an empty
 * ledger), else this host's state directory, else none (NULL, TRUE). */
static gboolean
ledger_dir(const VnSourceOptions *o, gboolean this_host, const VnConfig *config,
           const gchar **ret_dir, GError **error)
{
    *ret_dir = NULL;
    if (o->state_dir && !g_file_test(o->state_dir, G_FILE_TEST_IS_DIR)) {
        g_set_error(error, VN_SOURCE_ERROR, VN_SOURCE_ERROR_STATE_DIR,
                    "--state-dir: %s: no such directory", o->state_dir);
        return FALSE;
    }
    *ret_dir = o->state_dir ? o->state_dir : this_host ? config->state_dir : NULL;
    return TRUE;
}

/* The host's placed VMs: the ledger in the state directory (read without
 * its lock; writes to it are atomic), into *ret_ledger.  A topology named
 * on the command line is another host, which this host's ledger does not
 * describe (NULL); an explicit --state-dir names the ledger that does. */
static gboolean
read_ledger(const VnSourceOptions *o, gboolean this_host, const VnConfig *config,
            VnLedger **ret_ledger, GError **error)
{
    const gchar *dir;

    *ret_ledger = NULL;
    if (!ledger_dir(o, this_host, config, &dir, error))
        return FALSE;
    if (!dir)
        return TRUE;
    *ret_ledger = vn_ledger_snapshot(dir, error);
    return *ret_ledger != NULL;
}

gboolean
vn_source_add_committed(const VnTopology *t, const VnPolicy *policy, const VnLedger *ledger,
                        const gchar *load_file, VnLoad *load, GError **error)
{
    g_return_val_if_fail(t && policy && load, FALSE);

    if (ledger)
        vn_ledger_to_load(ledger, t, policy, NULL, load);
    return !load_file || vn_load_read_file(load_file, t, load, error);
}

gboolean
vn_source_load_with_ledger(const VnSourceOptions *o, VnTopology **ret_topology, VnLoad **ret_load,
                           VnConfig **ret_config, VnLedger **ret_ledger, GError **error)
{
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    gboolean live, this_host, measured;

    g_return_val_if_fail(o && ret_topology && (ret_load || !ret_ledger), FALSE);

    t = load_topology(o, &live, &this_host, &measured, error);
    if (!t || !measure_memory(o, measured, t, error))
        return FALSE;
    /* the load needs the policy (overheads) and the state directory */
    if ((ret_config || ret_load) && !(config = vn_config_load(o->config_file, t, error)))
        return FALSE;
    /* [topology] distances; a saved probe measured this host or the
     * captured one, never a topology file standing for another */
    vn_distances_apply(t, config, this_host || measured, o->sysroot ? o->sysroot : "/");
    if (ret_load) {
        load = vn_load_new(t);
        /* the one read of the ledger: its load and its VMs are one snapshot */
        if (!measure_busy(o, live, t, load, error) ||
            !read_ledger(o, this_host, config, &ledger, error) ||
            !vn_source_add_committed(t, config->policy, ledger, o->load_file, load, error))
            return FALSE;
    }
    *ret_topology = g_steal_pointer(&t);
    if (ret_load)
        *ret_load = g_steal_pointer(&load);
    if (ret_config)
        *ret_config = g_steal_pointer(&config);
    if (ret_ledger)
        *ret_ledger = g_steal_pointer(&ledger);
    return TRUE;
}

gboolean
vn_source_load(const VnSourceOptions *o, VnTopology **ret_topology, VnLoad **ret_load,
               VnConfig **ret_config, GError **error)
{
    return vn_source_load_with_ledger(o, ret_topology, ret_load, ret_config, NULL, error);
}
