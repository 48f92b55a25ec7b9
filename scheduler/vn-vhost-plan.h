/* vn-vhost-plan.h: where a VM's vhost workers run.
 *
 * vhost-net gives each queue pair of a virtio-net interface its own
 * worker thread (`vhost-<qemu pid>`): an interface with
 * <driver name='vhost' queues='N'/> has N of them, each copying one
 * queue's packets between the tap and the guest.  All on the emulator's
 * CPUs they take turns on one or two cores, which is the bottleneck
 * multi-queue was asked for, so they are dealt over the VM's node:
 *  - worker i (in ascending thread id) gets the i-th CPU of the pool,
 *    ascending, wrapping when there are more workers than CPUs: one CPU
 *    each, none idle while another holds two;
 *  - a shared VM's pool is its cells' CPUs (those its vCPUs float on);
 *  - a dedicated VM's pool is the CPUs of its cells' nodes that no VM
 *    owns and the host does not keep (`taken`: every dedicated VM's
 *    CPUs, its own vCPU cores among them, and the reserved host CPUs),
 *    so its vCPUs never share a core with packet copying; when nothing is
 *    left there, its cells' CPUs, and the reasons say so.
 * Pure: values in, values out.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"

typedef struct {
    GArray *cpus;       /* of guint: worker i's CPU, n_workers long */
    VnBitmap *pool;     /* the CPUs dealt */
    GPtrArray *reasons; /* of gchar*, in decision order */
} VnVhostPlan;

void vn_vhost_plan_free(VnVhostPlan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnVhostPlan, vn_vhost_plan_free)

/* Plans `n_workers` workers of a VM whose cells have `cell_cpus` (not
 * empty) on nodes whose CPUs are `node_cpus` (may be NULL: then the
 * cells' CPUs).  `taken` (may be NULL): CPUs owned by dedicated VMs or
 * reserved for the host.  Never fails. */
VnVhostPlan *vn_vhost_plan(guint n_workers, const VnBitmap *cell_cpus, const VnBitmap *node_cpus,
                           gboolean dedicated, const VnBitmap *taken);
