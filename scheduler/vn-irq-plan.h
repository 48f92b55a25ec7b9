/* vn-irq-plan.h: where a NIC's interrupts and packet steering run.
 *
 * Traffic from a NIC is first handled by the CPU its queue interrupt
 * lands on (hard interrupt, then the softirq), then by the CPUs RPS hands
 * received packets to; XPS picks a transmit queue by the sending CPU.
 * This decision keeps that work on the NIC's node, spread one queue
 * vector per core so no single core is the bottleneck, and off the CPUs
 * guests own:
 *  - a host NIC (a macvtap source, a bridge's port) goes to its own node
 *    (its PCI function's numa_node); when the firmware gives none, to the
 *    nodes the VMs using it are placed on;
 *  - a VF passed through to a VM goes to that VM's nodes;
 *  - on those nodes, never a CPU dedicated to a VM or reserved for the
 *    host, unless nothing else is left (then the reasons say so, and
 *    reserved host CPUs are taken before dedicated ones);
 *  - queue vectors one per core (the first CPU of each core, ascending;
 *    wrapping when there are more vectors than cores); the other vectors
 *    (configuration, misc) and every rx queue's RPS mask get all the
 *    chosen CPUs; tx queue i's XPS mask every CPU whose position in the
 *    chosen CPUs is i modulo the queue count;
 *  - a vector the kernel will not move (a read-only smp_affinity_list, as
 *    for managed interrupts) is left and reported, never fought.
 * Pure: values in, values out.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"
#include "vn-topology.h"

typedef enum {
    VN_IRQ_NIC_HOST,        /* the host's own NIC serving VMs */
    VN_IRQ_NIC_PASSTHROUGH, /* a VF (or whole function) given to one VM */
    VN_IRQ_NIC_KIND_MAX
} VnIrqNicKind;

const gchar *vn_irq_nic_kind_to_string(VnIrqNicKind k);
gboolean vn_irq_nic_kind_from_string(const gchar *s, VnIrqNicKind *ret);

typedef struct {
    guint irq;
    gboolean queue;     /* a queue vector (spread), else config/misc */
    gboolean read_only; /* the kernel will not take a new affinity */
} VnIrqVector;

/* A NIC as the plan sees it (the caller fills it; strings owned). */
typedef struct {
    gchar *name; /* "ens1f0", "VF 0000:3b:02.0" */
    VnIrqNicKind kind;
    gint node_os_id;    /* its PCI function's node, -1 when unknown */
    GArray *vectors;    /* of VnIrqVector, ascending */
    guint n_rx;         /* rx queues (RPS) */
    guint n_tx;         /* tx queues (XPS) */
    GPtrArray *users;   /* names of the VMs it serves (gchar*) */
    VnBitmap *vm_nodes; /* node os ids those VMs' cells are on; may be empty */
} VnIrqNic;

VnIrqNic *vn_irq_nic_new(const gchar *name, VnIrqNicKind kind, gint node_os_id);
void vn_irq_nic_free(VnIrqNic *n);
void vn_irq_nic_add_vector(VnIrqNic *n, guint irq, gboolean queue, gboolean read_only);
/* Records that VM `vm` uses the NIC, with a cell on node `node_os_id`. */
void vn_irq_nic_add_user(VnIrqNic *n, const gchar *vm, guint node_os_id);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnIrqNic, vn_irq_nic_free)

/* CPUs a VM owns 1:1 (a dedicated placement). */
typedef struct {
    const gchar *vm;
    const VnBitmap *cpus;
} VnIrqDedicated;

/* What became of one host CPU of the NIC's nodes. */
typedef enum {
    VN_IRQ_CPU_CHOSEN,    /* takes the NIC's work */
    VN_IRQ_CPU_SIBLING,   /* chosen, a second thread of a core (RPS/XPS only) */
    VN_IRQ_CPU_DEDICATED, /* a VM's own CPU: skipped */
    VN_IRQ_CPU_RESERVED,  /* reserved for the host: skipped */
    VN_IRQ_CPU_STATE_MAX
} VnIrqCpuState;

const gchar *vn_irq_cpu_state_to_string(VnIrqCpuState s);
gboolean vn_irq_cpu_state_from_string(const gchar *s, VnIrqCpuState *ret);

/* One explain row: a CPU of the NIC's nodes. */
typedef struct {
    guint cpu;
    guint core;
    VnIrqCpuState state;
    const gchar *vm; /* DEDICATED: whose (borrowed from the input) */
    GArray *irqs;    /* of guint: queue vectors placed on it */
} VnIrqRow;

typedef struct {
    guint irq;
    VnBitmap *cpus; /* NULL when left */
    gboolean left;  /* read-only: reported, not moved */
} VnIrqTarget;

typedef struct {
    gchar *name;
    VnIrqNicKind kind;
    VnBitmap *nodes;    /* node os ids it runs on; empty when nothing is planned */
    VnBitmap *cpus;     /* the chosen CPUs (also every RPS mask); NULL when left */
    GArray *targets;    /* of VnIrqTarget, one per vector */
    GPtrArray *rps;     /* of VnBitmap*, one per rx queue */
    GPtrArray *xps;     /* of VnBitmap*, one per tx queue */
    GPtrArray *reasons; /* of gchar*, in decision order */
    GArray *rows;       /* of VnIrqRow, ascending CPU */
} VnIrqNicPlan;

typedef struct {
    GPtrArray *nics; /* of VnIrqNicPlan*, the input's order */
} VnIrqPlan;

void vn_irq_plan_free(VnIrqPlan *p);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnIrqPlan, vn_irq_plan_free)

/* Plans every NIC of `nics` (of VnIrqNic*) on the finished topology `t`.
 * `dedicated` (of VnIrqDedicated, may be NULL) and `reserved` (may be
 * NULL) are host CPU ids.  Never fails: a NIC with no node to go to is
 * planned as left where it is, with the reason. */
VnIrqPlan *vn_irq_plan(const VnTopology *t, const GPtrArray *nics, const GArray *dedicated,
                       const VnBitmap *reserved);
