/* vn-request.h: what a VM asks for. */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"

typedef enum {
    VN_SMT_PREFER,  /* whole cores first; siblings become guest threads */
    VN_SMT_ISOLATE, /* one thread per core; the sibling stays idle */
    VN_SMT_REQUIRE, /* whole cores only; vCPUs per cell must fill cores */
    VN_SMT_MAX
} VnSmtPolicy;

typedef enum {
    VN_PRIORITY_LOW,
    VN_PRIORITY_NORMAL,
    VN_PRIORITY_HIGH,
    VN_PRIORITY_MAX
} VnPriority;

/* [placement] tiers, and a VM's own wish: what to do with memory that its
 * CPU node's DRAM cannot hold when the host has a slow tier (CXL, PMEM or
 * other kmem memory: VnNode.tier).  Special memory (HBM, SPM) is never
 * used for it.
 *   off    as before: another DRAM node, or no fit (the default);
 *   spill  the VM stays one guest node on one CPU node; what that node's
 *          DRAM cannot hold is expected on the nearest slow node, which
 *          the memory policy allows as its demotion target (restrictive
 *          over both, never strict: pages of an MPOL_BIND process demoted
 *          to a kmem node are never promoted back);
 *   guest  the slow memory becomes a CPU-less guest cell bound to the
 *          slow node, with the host's HMAT latency and bandwidth copied
 *          into the domain, so the guest sees it as slower memory.
 * Both are tried only when no single DRAM node holds the VM, and before it
 * is split over DRAM nodes. */
typedef enum {
    VN_TIERS_OFF,
    VN_TIERS_SPILL,
    VN_TIERS_GUEST,
    VN_TIERS_MAX
} VnTiers;

/* Why a VM's memory is interleaved over its nodes instead of split into
 * guest cells (VnRequest.interleave): a guest that cannot see NUMA cells
 * gains nothing from them, and an operator may want bandwidth over
 * locality. */
typedef enum {
    VN_INTERLEAVE_NONE,
    VN_INTERLEAVE_WISH,     /* the operator's memory='interleave' */
    VN_INTERLEAVE_NO_CELLS, /* the guest cannot see cells (x86 without ACPI) */
    VN_INTERLEAVE_MAX
} VnInterleave;

typedef struct {
    guint node_os_id; /* host NUMA node of the device (kernel number) */
    gint iothread;    /* IOThread id serving it, or 0 for none */
    gchar *name;      /* for reasons: "hostdev 0000:3b:00.0", "disk vda" */
} VnDevice;

/* ---- the request schema: one set of limits for every door --------------
 * `vnumactl plan` checks its flags against these (tools/vnumactl-plan.c),
 * vnumad its JSON members (daemon/vnd-spec.c), the domain reader <vcpu>
 * (plugin/domain), and vn_plan() the request itself; each message names
 * the flag, member or element and the limit.
 *
 * vCPUs: 4096 is the most any QEMU/KVM guest can have: QEMU's largest
 * machine, q35, has max_cpus 4096 (since QEMU 8.2; fewer before), other
 * machines allow fewer, and KVM_MAX_VCPUS on x86 is at most 4096
 * (CONFIG_KVM_MAX_NR_VCPUS).  libvirt takes QEMU's
 * maximum as its own, so a larger <vcpu> can never start. */
#define VN_REQUEST_MAX_VCPUS 4096
/* memory: 1 PiB (2^30 MiB); at least 1 MiB */
#define VN_REQUEST_MAX_MEMORY_MIB (G_GUINT64_CONSTANT(1) << 30)
#define VN_REQUEST_MIN_MEMORY_KIB 1024
/* fixed guest cells ("cells"): 0 = vnuma chooses */
#define VN_REQUEST_MAX_CELLS 256
/* At most this many guest cells of their own sizes per request (the
 * planner keeps them in 64-bit masks). */
#define VN_REQUEST_MAX_CELL_SIZES 64
/* IOThreads of the VM, and the IOThread a device names (1..this) */
#define VN_REQUEST_MAX_IOTHREADS 256
/* devices with a host node, and the highest kernel node number one may
 * name (Linux: MAX_NUMNODES is at most 1024) */
#define VN_REQUEST_MAX_DEVICES 256
#define VN_REQUEST_MAX_NODE_ID 4095
/* hugepage sizes the CLI and the API take by name ("2M", "1G"); a domain
 * may name any size, which then fits only where the host has that pool */
#define VN_REQUEST_HUGEPAGE_2M_KIB G_GUINT64_CONSTANT(2048)
#define VN_REQUEST_HUGEPAGE_1G_KIB G_GUINT64_CONSTANT(1048576)

/* The size of one guest cell when the guest topology is given cell by
 * cell (the user's <cpu><numa> cells).  vcpus may be 0 (a CPU-less guest
 * cell); vcpus and memory_kib are not both 0. */
typedef struct {
    guint vcpus;
    guint64 memory_kib;
} VnCellSize;

typedef struct {
    guint vcpus;
    guint64 memory_kib;
    guint64 hugepage_kib; /* 0: normal pages */
    gboolean dedicated;   /* 1:1 pinned, CPUs not shared with anyone */
    VnSmtPolicy smt;
    guint iothreads;
    VnPriority priority;
    guint cells; /* 0: let vnuma choose; else fixed guest cells */
    /* With `cells`: every guest cell on a host node of its own (OpenStack
     * Nova's rule), so `cells` nodes or no fit; otherwise cells may share
     * a node that holds them. */
    gboolean distinct_nodes;
    /* Of VnCellSize, or NULL: `cells` cells of equal size (the even split).
     * When set, guest cell i has exactly these vCPUs (the i-th range of
     * vcpus in the placement) and this memory; its length is `cells`, and
     * its vCPUs and memory sum to vcpus and memory_kib (vn_plan() refuses
     * the request otherwise, VN_PLAN_ERROR_INVALID_REQUEST). */
    GArray *cell_sizes;
    gboolean allow_memory_only; /* may use memory-only nodes (HBM, CXL) */
    GArray *devices;            /* of VnDevice; may be NULL */
    /* The host CPUs (ids) the VM may run on, or NULL for any: the set
     * another manager allows it (a domain's <vcpu cpuset>, OpenStack Nova's
     * cpu_shared_set).  vn_plan() holds the CPUs outside it as reserved for
     * this request, so only nodes with CPUs in it take guest cells (memory
     * follows the cells), and every pin stays inside it. */
    VnBitmap *allowed_cpus;
    /* The VM's own tiers wish (tiers_set), else the host policy's. */
    gboolean tiers_set;
    VnTiers tiers;
    /* Not NONE: a VM over several nodes gets no guest cells but its memory
     * interleaved over the fewest, nearest nodes that hold an even share
     * each, its vCPUs floating over their CPUs (VnPlacement.interleave).
     * Only without guest cells of its own (cells 0 or 1, no cell_sizes). */
    VnInterleave interleave;
} VnRequest;

VnRequest *vn_request_new(void);
void vn_request_free(VnRequest *r);
void vn_request_add_device(VnRequest *r, guint node_os_id, gint iothread, const gchar *name);
/* Appends guest cell `cell_sizes->len` of the given size; `cells`, `vcpus`
 * and `memory_kib` are left to the caller. */
void vn_request_add_cell_size(VnRequest *r, guint vcpus, guint64 memory_kib);
/* Drops `cell_sizes` when every cell has the same size: identical cells are
 * the even split of `cells`, planned as `cells` alone is (the answer a
 * domain's identical guest cells get).  `cells`, `vcpus` and `memory_kib`
 * stay. */
void vn_request_forget_even_cell_sizes(VnRequest *r);

const gchar *vn_tiers_to_string(VnTiers v);
gboolean vn_tiers_from_string(const gchar *s, VnTiers *ret);
/* The names, in enum order, NULL-terminated ("off", "spill", "guest"). */
const gchar *const *vn_tiers_names(void);
const gchar *vn_smt_policy_to_string(VnSmtPolicy p);
gboolean vn_smt_policy_from_string(const gchar *s, VnSmtPolicy *ret_p);
const gchar *vn_priority_to_string(VnPriority p);
gboolean vn_priority_from_string(const gchar *s, VnPriority *ret_p);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnRequest, vn_request_free)
