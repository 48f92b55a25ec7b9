/* vn-irq.h: the host NICs serving the placed VMs, their interrupts and
 * queue masks put where vn_irq_plan() says, and put back on reset.
 *
 * Which NICs: for every running record of the ledger (not foreign), the
 * domain's status XML <sysroot><run_dir>/NAME.xml names its interfaces:
 * a macvtap source device (type='direct'), a bridge (type='bridge', or
 * type='network' whose live XML names the bridge), a VF (<hostdev>,
 * type='hostdev').  Bridges, bonds and VLANs are followed down to the
 * devices with a PCI function (vn_nic_lower_ports()).  Everything is read
 * under a sysroot (vn-nic.h), so fixture trees stand in for the host.
 *
 * Applying writes proc/irq/N/smp_affinity_list and the queues' rps_cpus /
 * xps_cpus with one write(2) each.  Before a file is first changed its
 * value is saved in <state_dir>/irq-saved.json, so reset restores what
 * was there before vnuma, however many applies came between.
 *
 * Nothing here prints: outcomes are lines appended to a caller's arrays.
 */
#pragma once

#include <glib.h>
#include "vn-irq-plan.h"
#include "vn-irqbalance.h"
#include "vn-ledger.h"
#include "vn-nic.h"

#define VN_IRQ_ERROR (vn_irq_error_quark())
GQuark vn_irq_error_quark(void);
typedef enum {
    VN_IRQ_ERROR_DEVICE, /* a device named on the command line is not usable */
    VN_IRQ_ERROR_WRITE,  /* the kernel refused a value: the NIC was put back */
    VN_IRQ_ERROR_SAVED,  /* irq-saved.json unusable */
    VN_IRQ_ERROR_MAX
} VnIrqError;

/* The NICs to plan, with what the plan needs beside them. */
typedef struct {
    GPtrArray *nics;     /* of VnNic*, read as found */
    GPtrArray *inputs;   /* of VnIrqNic*, nics[i]'s plan input */
    GArray *dedicated;   /* of VnIrqDedicated: dedicated records' CPUs */
    GPtrArray *owned;    /* of VnBitmap*: the CPUs `dedicated` points to */
    GPtrArray *names;    /* of gchar*: the VM names `dedicated` points to */
    GPtrArray *problems; /* of gchar*: devices of running VMs that could not be read */
} VnIrqHost;

void vn_irq_host_free(VnIrqHost *h);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnIrqHost, vn_irq_host_free)

/* Gathers the NICs of the running records of `records` (of
 * VnLedgerRecord*, borrowed) on the host of topology `t`.  `devices`
 * (NULL-terminated, may be NULL): only these interfaces or PCI addresses,
 * whether a VM uses them or not; one that cannot be read fails the whole
 * call with VN_IRQ_ERROR_DEVICE and one line naming it.  Without
 * `devices`, a VM's device that cannot be read is a line in `problems`.
 * `sysroot` NULL or "" = "/"; `run_dir` as vn_ledger_libvirt_run_dir(). */
VnIrqHost *vn_irq_host_gather(const gchar *sysroot, const gchar *run_dir, const GPtrArray *records,
                              const VnTopology *t, const gchar *const *devices, GError **error);

/* Everything one look at the host gives: the NICs, their plan and
 * irqbalance's mode. */
typedef struct {
    VnIrqHost *host;
    VnIrqPlan *plan;
    VnIrqbalance *irqbalance;
    guint n_cpus; /* the topology's CPU id bound: masks are that wide */
} VnIrqView;

void vn_irq_view_free(VnIrqView *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnIrqView, vn_irq_view_free)

/* vn_irq_host_gather(), then vn_irq_plan() with `reserved` (host CPUs,
 * may be NULL), then vn_irqbalance_detect(); errors as the gather's. */
VnIrqView *vn_irq_view_new(const gchar *sysroot, const gchar *run_dir, const GPtrArray *records,
                           const VnTopology *t, const VnBitmap *reserved,
                           const gchar *const *devices, GError **error);

/* How far NIC `n` as read is from plan `p`: counts of vectors, rx and tx
 * queue masks, and of those that differ from the plan (a vector left by
 * the plan, or a mask that cannot be read, counts as in place). */
typedef struct {
    guint irqs, irqs_off;
    guint rps, rps_off;
    guint xps, xps_off;
} VnIrqDrift;

void vn_irq_nic_drift(const VnNic *n, const VnIrqNicPlan *p, guint n_cpus, VnIrqDrift *ret);

/* Puts NIC `n` where plan `p` says, writing only what differs (so a NIC
 * in place costs reads only).  A vector the kernel refuses with EIO
 * (a managed interrupt) is left and named in `ret_left`; any other
 * refusal puts back every file of this NIC already written and fails
 * with VN_IRQ_ERROR_WRITE naming the file: all or nothing per NIC.  Each
 * file changed is one line in `ret_changed` ("irq 61: 0-11 -> 0").
 * Previous values are saved first (VN_IRQ_ERROR_SAVED when they cannot
 * be).  `n_cpus`: the host's CPU id bound (masks are that wide). */
gboolean vn_irq_apply_nic(const gchar *sysroot, const gchar *state_dir, const VnNic *n,
                          const VnIrqNicPlan *p, guint n_cpus, GPtrArray *ret_changed,
                          GPtrArray *ret_left, GError **error);

/* The file the irqbalance policy script reads: "IRQ NODE" per line. */
#define VN_IRQ_MANAGED_FILE "irq-managed"

/* vn_irq_apply_nic() for every NIC of `h` with its plan in `p` (same
 * order); one NIC failing does not stop the others (its line goes to
 * `ret_failed`).  Then rewrites <state_dir>/irq-managed with every
 * interrupt now placed and the node it is on.  Returns the failures. */
guint vn_irq_apply_all(const gchar *sysroot, const gchar *state_dir, const VnIrqHost *h,
                       const VnIrqPlan *p, guint n_cpus, GPtrArray *ret_changed,
                       GPtrArray *ret_left, GPtrArray *ret_failed);

/* The interrupts <state_dir>/irq-managed lists (GUINT_TO_POINTER(irq)
 * set): those vnuma placed at its last apply.  Empty when there is no
 * file or it cannot be read. */
GHashTable *vn_irq_managed_read(const gchar *state_dir);

/* How one NIC of a view stands against its plan, for status and
 * metrics. */
typedef enum {
    VN_IRQ_NIC_IN_PLACE,  /* every vector and mask as planned */
    VN_IRQ_NIC_OFF_PLAN,  /* some differ: not applied yet, or drifted */
    VN_IRQ_NIC_UNPLANNED, /* the plan leaves it where it is (no node for it) */
    VN_IRQ_NIC_STATE_MAX
} VnIrqNicState;

const gchar *vn_irq_nic_state_to_string(VnIrqNicState s);
gboolean vn_irq_nic_state_from_string(const gchar *s, VnIrqNicState *ret);

typedef struct {
    const VnNic *nic;         /* borrowed from the view */
    const VnIrqNicPlan *plan; /* borrowed from the view */
    VnIrqDrift drift;
    guint irqs_left;  /* vectors the kernel will not move */
    gboolean steered; /* its planned vectors are in irq-managed: vnuma placed them */
    VnIrqNicState state;
} VnIrqNicStatus;

/* One VnIrqNicStatus per NIC of `v`, in its order; `state_dir` holds
 * irq-managed. */
GArray *vn_irq_view_status(const VnIrqView *v, const gchar *state_dir);

/* Writes back every value irq-saved.json holds and removes it (and
 * irq-managed); a file no
 * longer there (the NIC went) is a line, not an error.  One line per
 * file in `ret_log`.  TRUE with nothing to do when there is no file. */
gboolean vn_irq_reset(const gchar *sysroot, const gchar *state_dir, GPtrArray *ret_log,
                      GError **error);
