/* vn-config.h: host configuration, /etc/vnuma/vnuma.conf (GKeyFile).
 *
 * Every group and key, its kind, range, default and reload behaviour is a
 * row of one table, vn-config-schema.c; the sample tools/vnuma.conf
 * (installed as <sysconfdir>/vnuma/vnuma.conf) and vnuma.conf(5) document
 * them, and a test checks they list the same keys and defaults.  Unknown
 * groups and keys are errors: a typo must not silently mean "default".
 */
#pragma once

#include <glib.h>
#include "vn-autonuma-plan.h"
#include "vn-load.h"
#include "vn-placement.h"
#include "vn-topology.h"

#define VN_CONFIG_ERROR (vn_config_error_quark())
GQuark vn_config_error_quark(void);
typedef enum {
    VN_CONFIG_ERROR_READ,    /* named file missing, unreadable, not a key file */
    VN_CONFIG_ERROR_UNKNOWN, /* unknown group or key */
    VN_CONFIG_ERROR_INVALID, /* a value out of range or of the wrong kind */
    VN_CONFIG_ERROR_MAX
} VnConfigError;

/* [hook] manage: which VMs the qemu hook looks after. */
typedef enum {
    VN_HOOK_MANAGE_OPTED_IN, /* VMs carrying vnuma metadata */
    VN_HOOK_MANAGE_ALL,
    VN_HOOK_MANAGE_NONE,
    VN_HOOK_MANAGE_MAX
} VnHookManage;

/* [hook] on_conflict: a recorded placement that no longer fits at start. */
typedef enum {
    VN_HOOK_CONFLICT_REPLAN, /* place it anew after start */
    VN_HOOK_CONFLICT_REFUSE, /* veto the start */
    VN_HOOK_CONFLICT_IGNORE, /* start it as recorded */
    VN_HOOK_CONFLICT_MAX
} VnHookConflict;

/* [topology] distances: which node distances the placement uses. */
typedef enum {
    VN_DISTANCES_SLIT,     /* the firmware's table; HMAT's when it has none or a uniform one */
    VN_DISTANCES_MEASURED, /* the probe saved by `vnumactl probe --save` on this boot */
    VN_DISTANCES_HMAT,     /* derived from the HMAT read latencies (vn-distances.h) */
    VN_DISTANCES_MAX
} VnDistances;

const gchar *const *vn_distances_names(void);

/* [rebalance] irq_steering: whether vnumad places the NIC interrupts of
 * the running VMs (vn-irq.h) and keeps them there. */
typedef enum {
    VN_IRQ_STEERING_OFF,
    VN_IRQ_STEERING_ON,
    VN_IRQ_STEERING_MAX
} VnIrqSteering;

const gchar *const *vn_irq_steering_names(void);

/* [placement] defragment: what `vnumactl define`/`place`, `plan`,
 * `explain` and vnumad's plan do when a VM would be split over nodes but
 * fits one node after a few small VMs of this host's ledger move live
 * (vn_rebalance_make_room(), within the rebalancer's round: 2 moves,
 * 16 GiB). */
typedef enum {
    VN_DEFRAGMENT_OFF,     /* place as before; nothing looked for */
    VN_DEFRAGMENT_PROPOSE, /* place as before (split); report the moves */
    VN_DEFRAGMENT_APPLY,   /* move them live, then place on one node */
    VN_DEFRAGMENT_MAX
} VnDefragment;

const gchar *const *vn_defragment_names(void);
const gchar *vn_defragment_to_string(VnDefragment d);

/* [placement] consolidate: what the qemu hook does when a VM stops
 * (`stopped end`, `release end`) and one VM vnuma split over host nodes now fits on
 * fewer of them, its guest cells kept (vn_rebalance_consolidate(), within
 * VN_CONSOLIDATE_MAX_VMS / VN_CONSOLIDATE_MAX_MEMORY_KIB). */
typedef enum {
    VN_CONSOLIDATE_OFF,     /* nothing looked for */
    VN_CONSOLIDATE_PROPOSE, /* the decision names the move; nothing changes */
    VN_CONSOLIDATE_APPLY,   /* recorded on the fewer nodes, applied live */
    VN_CONSOLIDATE_MAX
} VnConsolidate;

const gchar *const *vn_consolidate_names(void);
const gchar *vn_consolidate_to_string(VnConsolidate c);

const gchar *vn_hook_manage_to_string(VnHookManage m);
gint vn_hook_manage_from_string(const gchar *s);
const gchar *vn_hook_conflict_to_string(VnHookConflict c);
gint vn_hook_conflict_from_string(const gchar *s);

typedef struct {
    gchar *path;               /* file read; NULL when defaults were used */
    VnPolicy *policy;          /* [host], and [placement] balance */
    VnMemoryMode memory_mode;  /* [placement] */
    VnDefragment defragment;   /* [placement] */
    VnConsolidate consolidate; /* [placement] */
    VnHookManage hook_manage;  /* [hook] */
    VnHookConflict hook_on_conflict;
    gboolean hook_strict;  /* [hook] strict: a hook error vetoes the start */
    gchar *state_dir;      /* [paths] */
    VnDistances distances; /* [topology]; applied by vn_distances_apply() */
    /* [api]: vnumad's listeners.  api_socket defaults to VNUMA_DEFAULT_API_SOCKET;
     * api_tcp_listen "IP:PORT" or NULL (off); when set, api_bearer_token
     * (>= 16 characters, no spaces) is mandatory. */
    gchar *api_socket;
    gchar *api_tcp_listen;
    gchar *api_bearer_token;
    /* A client connection is closed when it stays idle between requests,
     * or does not deliver a whole request, for `api_idle_timeout_s`
     * (1..3600, default 30); at most `api_max_connections` (1..512,
     * default 128) are open at once, more are answered 503. */
    guint api_idle_timeout_s;
    guint api_max_connections;
    /* [rebalance]: vnumad's adaptive loop.  Every `rebalance_interval_s`
     * (1..3600, default 10) it measures the host; with `rebalance_auto`
     * (default false) it applies a round once moves have been proposed
     * for `rebalance_hot_intervals` (1..100, default 3) samples in a row.
     * With `dataplane_repair` (default true), every sample also puts the
     * data path of each running placed VM (vhost workers, [dataplane]
     * processes) back on its CPUs when it drifted (vn_dataplane_repair()).
     * It lives here, not in [dataplane], whose keys are domain names. */
    gboolean rebalance_auto;
    guint rebalance_interval_s;
    guint rebalance_hot_intervals;
    gboolean dataplane_repair;
    /* With `irq_steering` on (default off), vnumad puts the NIC interrupts
     * and RPS/XPS masks of the running VMs where vn_irq_plan() says at
     * start and when the running VMs change, and back on every sample
     * when they drifted (daemon/vnd-irq.c). */
    VnIrqSteering irq_steering;
    /* [host] numa_balancing: leave (default) never writes
     * kernel.numa_balancing; off and tiering are applied by vnumad on
     * every sample as vn_autonuma_decide() says (daemon/vnd-autonuma.c). */
    VnNumaBalancingWish numa_balancing;
    /* [dataplane]: data-plane processes serving a VM, keyed by domain name:
     * name -> GStrv of specs (vn-dataplane.h: "pidfile:/run/x.pid",
     * "unit:NAME.service"), each checked, in file order, none twice for one
     * VM.  Read through vn_config_dataplane_specs(). */
    GHashTable *dataplane;
} VnConfig;

/* Defaults for topology `t` (which sizes the reserved CPU set). */
VnConfig *vn_config_new_default(const VnTopology *t);

/* Loads `path`; NULL means $VNUMA_CONFIG if set, else VNUMA_DEFAULT_CONFIG.
 * A missing default file means defaults; a missing file that was named
 * (argument or $VNUMA_CONFIG) is an error.  reserved_cpus must be CPUs of
 * `t`.  $VNUMA_STATE_DIR, when set, overrides [paths] state_dir.
 * Errors name the file, the group and the key. */
VnConfig *vn_config_load(const gchar *path, const VnTopology *t, GError **error);
void vn_config_free(VnConfig *c);

/* [dataplane]: the specs named for domain `vm` (borrowed, NULL-terminated),
 * or NULL when it has none. */
const gchar *const *vn_config_dataplane_specs(const VnConfig *c, const gchar *vm);
/* How many domains [dataplane] names `spec` for: more than one means the
 * process is shared and must not be steered to any one VM. */
guint vn_config_dataplane_users(const VnConfig *c, const gchar *spec);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnConfig, vn_config_free)
