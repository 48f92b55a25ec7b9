/* vn-autonuma-plan.h: what kernel.numa_balancing (AutoNUMA) should be, and
 * whether what it is now works against the placed VMs.  Pure: the caller
 * reads the sysctl and the VMs' memory modes and writes the value.
 *
 * kernel.numa_balancing is a bitmask: VN_NUMA_BALANCING_BIT_NORMAL (1) scans
 * every task's memory, takes hint faults and moves pages towards the node
 * that touches them; VN_NUMA_BALANCING_BIT_TIERING (2) promotes hot pages from
 * a slower memory tier to the top one.  Linux 6.1 has no per-process or
 * per-cgroup switch: the memory policy decides.  Measured on Debian 12's
 * kernel (hint faults over 25 s on 64 MiB of local memory): default policy
 * +365, MPOL_BIND (libvirt `strict`) 0, cpuset.mems only (libvirt
 * `restrictive`) +372.
 *
 * A placed VM is *bound* when AutoNUMA has nothing to win by moving its
 * pages:
 *   strict        every cell's memory is MPOL_BIND to its node: the kernel
 *                 does not even scan it;
 *   restrictive   on ONE node (cpuset.mems one node, its vCPUs pinned to
 *                 that node's CPUs, which vnuma always writes): the pages
 *                 may only live there and every thread runs there, so
 *                 scanning costs hint faults and moves nothing.
 * A restrictive VM over several nodes is not bound (AutoNUMA is what moves
 * its pages next to its threads), nor is one whose mode is not known (no
 * recorded vnuma placement, another manager's pins).
 *
 * The rule: switch AutoNUMA off only together with binding,
 * never alone. */
#pragma once

#include <glib.h>
#include "vn-placement.h"
#include "vn-topology.h"

#define VN_NUMA_BALANCING_BIT_NORMAL 1
#define VN_NUMA_BALANCING_BIT_TIERING 2

/* [host] numa_balancing: what vnumad does with the sysctl. */
typedef enum {
    VN_NUMA_BALANCING_LEAVE,   /* never writes it (restores its own change) */
    VN_NUMA_BALANCING_OFF,     /* 0 while every placed VM is bound */
    VN_NUMA_BALANCING_TIERING, /* 2 (promotion only) on a host with a slow tier */
    VN_NUMA_BALANCING_WISH_MAX
} VnNumaBalancingWish;

const gchar *vn_numa_balancing_wish_to_string(VnNumaBalancingWish v);
gboolean vn_numa_balancing_wish_from_string(const gchar *s, VnNumaBalancingWish *ret);
/* The names, in enum order, NULL-terminated (the config schema's). */
const gchar *const *vn_numa_balancing_wish_names(void);

/* One placed VM as the decision sees it. */
typedef struct {
    const gchar *name;   /* borrowed */
    gboolean mode_known; /* FALSE: no recorded vnuma memory mode */
    VnMemoryMode mode;   /* RESTRICTIVE or STRICT when known */
    guint n_nodes;       /* host nodes its cells are on */
} VnAutonumaVm;

/* Whether AutoNUMA has nothing to win on `vm` (see above). */
gboolean vn_autonuma_vm_bound(const VnAutonumaVm *vm);

typedef struct {
    gint value;       /* the value to write; -1: write nothing */
    gboolean refused; /* the wish cannot be had now */
    gchar *reason;    /* one line: why this value, or why nothing is written */
    gchar *refusal;   /* when refused: why, without what is restored (the same
                       * refusal on later samples has this reason) */
} VnAutonumaDecision;

void vn_autonuma_decision_clear(VnAutonumaDecision *d);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VnAutonumaDecision, vn_autonuma_decision_clear)

/* Whether `t` has memory the kernel can promote from: a node of tier
 * slow which, when the kernel's memory tiers are known, sits in a tier
 * below every CPU node's (on 6.1 a CPU-less node from the firmware lands
 * in the DRAM tier, and then nothing is ever promoted).  *ret_why (may be
 * NULL) gets one phrase either way. */
gboolean vn_autonuma_has_slow_tier(const VnTopology *t, gchar **ret_why);

/* The value for kernel.numa_balancing.
 *   current   the value now (-1: unreadable: nothing is written)
 *   restore   the value vnumad found before it changed the sysctl, -1 when
 *             it has not changed it: that value comes back under `leave`,
 *             and when `off`/`tiering` no longer hold
 *   vms       of VnAutonumaVm, the placed VMs
 *   t         the host, for its tiers
 * `off` gives 0 only with at least one placed VM and every one bound;
 * `tiering` gives 2 only when vn_autonuma_has_slow_tier(). */
void vn_autonuma_decide(VnNumaBalancingWish wish, gint current, gint restore, const GArray *vms,
                        const VnTopology *t, VnAutonumaDecision *ret);

/* The warning for `vnumactl status`: normal balancing (bit 1) runs beside
 * placed restrictive VMs, whose pages it scans and moves; NULL when not. */
gchar *vn_autonuma_warning(gint current, const GArray *vms);
