/* vn-source.h: where a command's topology, load and config come from.
 *
 * Every vnumactl command that looks at a host shares these options:
 *   --topology FILE      hwloc XML file
 *   --synthetic STR      hwloc synthetic description
 *   --capabilities FILE  libvirt capabilities XML
 *   --load FILE          committed load, JSON (vn-load-file.h)
 *   --config FILE        vnuma.conf (vn-config.h)
 *   --sysroot DIR        read /proc and /sys below DIR
 * At most one of the first three.  With none, --sysroot DIR alone is a
 * captured host whose topology is read from DIR too (one host per
 * command: never this machine's nodes with the capture's free memory);
 * without --sysroot, $VNUMA_TOPOLOGY (an hwloc XML file) if set, else the
 * live host.  hwloc XML and synthetic strings are imported in a child
 * process (vn_topology_load_isolated()), as is a --sysroot topology.
 */
#pragma once

#include <glib.h>
#include "vn-config.h"
#include "vn-ledger.h"
#include "vn-load.h"
#include "vn-topology.h"

#define VN_SOURCE_ERROR (vn_source_error_quark())
GQuark vn_source_error_quark(void);
typedef enum {
    VN_SOURCE_ERROR_CONFLICT,  /* more than one topology source */
    VN_SOURCE_ERROR_STATE_DIR, /* o->state_dir is no directory */
    VN_SOURCE_ERROR_MAX
} VnSourceError;

/* Filled by the option group; strings owned, freed by
 * vn_source_options_clear(). */
typedef struct {
    gchar *topology_file;
    gchar *synthetic;
    gchar *capabilities;
    gchar *load_file;
    gchar *config_file;
    gchar *sysroot;
    /* Not in the shared group: a command that offers --state-dir DIR
     * (`plan`, `explain`) sets it.  The ledger in DIR is the host's
     * placed VMs, whatever the topology source: their load, and the VMs
     * defragmentation may move (vn_source_load_with_ledger()), instead of this
     * host's ledger, which only this host gets. */
    gchar *state_dir;
} VnSourceOptions;

/* How long the live host is watched to measure CPU busy. */
#define VN_SOURCE_LIVE_INTERVAL_MS 100

/* A GOptionGroup named "source" whose entries write into `o`; `o` must
 * outlive the group's GOptionContext. */
GOptionGroup *vn_source_option_group(VnSourceOptions *o);
void vn_source_options_clear(VnSourceOptions *o);

/* Whether `o` describes this host: no topology option and no --sysroot,
 * so the live host or $VNUMA_TOPOLOGY standing in for it, whose ledger
 * applies. */
gboolean vn_source_is_this_host(const VnSourceOptions *o);

/* Builds the topology, then the config, then the load:
 *  - the live host also gets its free memory from sysfs and its CPU busy
 *    measured over VN_SOURCE_LIVE_INTERVAL_MS;
 *  - this host (live, or $VNUMA_TOPOLOGY standing in for it as in the
 *    hook's tests) gets the committed load of the VMs in its ledger
 *    (vn-ledger.h, in the config's state_dir); with o->state_dir, any
 *    topology gets that ledger's instead (an existing directory, else
 *    VN_SOURCE_ERROR_STATE_DIR);
 *  - with --sysroot, any topology gets free memory from that sysroot's
 *    sysfs and CPU busy from its /proc/stat counters since boot, so a
 *    captured host replays exactly; a sysroot without proc/stat leaves
 *    CPU busy unknown and the topology's source says so;
 *  - the load file's figures are added last.
 * A topology named by an option is another host: no ledger unless
 * o->state_dir names one, and no measurement unless --sysroot says where
 * to read it.
 * ret_load and ret_config may be NULL when the caller does not want them
 * (without both, the config is not read; without ret_load, CPU busy is not
 * measured).  Outputs are written only on success. */
gboolean vn_source_load(const VnSourceOptions *o, VnTopology **ret_topology, VnLoad **ret_load,
                        VnConfig **ret_config, GError **error);

/* vn_source_load(), and with ret_ledger the ledger whose VMs the load
 * counted, read once: one snapshot of o->state_dir when set, else of this
 * host's, taken without its lock (vn_ledger_snapshot()); NULL there for a
 * topology that is another host's and no o->state_dir.  A command that
 * wants both the load and the ledger's VMs (defragmentation moves them)
 * takes them from here, so they are of one ledger generation even while
 * the hook rewrites the ledger.  ret_ledger needs ret_load. */
gboolean vn_source_load_with_ledger(const VnSourceOptions *o, VnTopology **ret_topology,
                                    VnLoad **ret_load, VnConfig **ret_config, VnLedger **ret_ledger,
                                    GError **error);

/* Adds to `load` (the measured CPU busy already in it) what else a
 * planner counts on `t`: the VMs of `ledger` (NULL: none) with the
 * overheads of `policy` (vn_ledger_to_load()), then the figures of
 * `load_file` (NULL: none; vn_load_read_file()).  vnumactl
 * (vn_source_load()) and vnumad (vnd_state_load_with_ledger()) build a
 * load from a ledger snapshot with it.  FALSE only when the load file
 * cannot be read; `load` then has the ledger's VMs, none of the file's
 * figures. */
gboolean vn_source_add_committed(const VnTopology *t, const VnPolicy *policy,
                                 const VnLedger *ledger, const gchar *load_file, VnLoad *load,
                                 GError **error);
