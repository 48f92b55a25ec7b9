/* vn-load.h: what is already on the host, and the host's policy.
 *
 * VnLoad is indexed by node index (same order as VnTopology.nodes).
 * Committed figures come from the ledger of placed VMs; measured ones from
 * /proc and sysfs (plugin/).  Missing measurements are marked unknown.
 */
#pragma once

#include <glib.h>
#include "vn-bitmap.h"
#include "vn-topology.h"
#include "vn-request.h"

typedef struct {
    guint committed_vcpus;        /* shared vCPUs placed here */
    guint committed_high_vcpus;   /* of those and dedicated, high priority */
    guint64 committed_memory_kib; /* guest memory + overhead placed here */
    gdouble cpu_busy;             /* measured 0..1, < 0 when unknown */
} VnNodeLoad;

typedef struct {
    guint n_nodes;
    VnNodeLoad *nodes;
    VnBitmap *dedicated_cpus; /* CPUs owned 1:1 by placed VMs */
    /* hugepages already promised, per node, same order as the node's
     * VnHugepages array: pages committed by placed VMs */
    GHashTable *committed_hugepages; /* "node:sizekib" -> guint64* pages */
    /* shared vCPUs placed in each cache domain, VnTopology.domains order
     * (n_domains entries): a vCPU pinned over CPUs of several domains
     * counts in each by its share of those CPUs.  Filled from the ledger
     * (vn_ledger_to_load()) and by vn_load_commit() when cache domains are
     * on; the choice of domains inside a node takes what each has left. */
    guint n_domains;
    gdouble *domain_vcpus;
} VnLoad;

VnLoad *vn_load_new(const VnTopology *t);
void vn_load_free(VnLoad *l);
/* Adds `vcpus` shared vCPUs (taken back when negative; never below 0)
 * floating over host CPUs `cpus` to the domains of `t` those CPUs are in,
 * each by its share of `cpus`. */
void vn_load_add_domain_vcpus(VnLoad *l, const VnTopology *t, const VnBitmap *cpus, gdouble vcpus);
void vn_load_add_hugepages(VnLoad *l, guint node_index, guint64 size_kib, guint64 pages);
guint64 vn_load_get_hugepages(const VnLoad *l, guint node_index, guint64 size_kib);

/* [placement] balance: how vn_plan() breaks a tie between candidate node
 * sets that are equally few and equally near (internal and device
 * distance always come first; capacity limits always hold).
 *
 *   VN_BALANCE_LOAD            least loaded after placement: the smallest
 *                              max(CPU use, memory use) of the busiest
 *                              member (the default; spreads VMs out).
 *   VN_BALANCE_MEMORY_PACKING  memory kept whole: the smallest
 *                                cpu + VN_BALANCE_PACKING_FREE_WEIGHT x free
 *                              where cpu is the busiest member's CPU use
 *                              after placement (committed vCPUs over
 *                              capacity or measured busy, plus contention)
 *                              and free the largest share of its memory a
 *                              member has left free after placement.  VMs
 *                              go to the fullest nodes that hold them, so
 *                              whole nodes stay free for big VMs arriving
 *                              later (fewer split VMs), at the cost of an
 *                              uneven memory spread.
 *   VN_BALANCE_KEEP_HOLE       the largest hole kept: the smallest
 *                                (1 - hole / node) + VN_BALANCE_HOLE_LOAD_WEIGHT x load
 *                              where hole is the most guest memory any
 *                              node can still take after placement, node
 *                              the largest node's memory less the host
 *                              reservation, and load as for
 *                              VN_BALANCE_LOAD.  Sets that leave the
 *                              host's largest free node alone tie on the
 *                              hole and go to the least loaded, so VMs
 *                              spread as with load everywhere but on the
 *                              node the next big VM needs.
 *   VN_BALANCE_ADAPTIVE        load while the host's memory is less than
 *                              VN_BALANCE_ADAPTIVE_PACK_AT committed (the
 *                              committed share of the memory of every node
 *                              with CPUs and memory, reservation and
 *                              headroom counted as committed), memory
 *                              packing from there on (the default): spread
 *                              while whole nodes are plentiful (less
 *                              bandwidth contention), keep nodes whole once
 *                              the next big VM would otherwise be split.
 *                              From the load, not measured free memory.
 *                              Measured with tools/sim-compare.py (README,
 *                              "Placement quality"). */
typedef enum {
    VN_BALANCE_LOAD,
    VN_BALANCE_MEMORY_PACKING,
    VN_BALANCE_KEEP_HOLE,
    VN_BALANCE_ADAPTIVE,
    VN_BALANCE_MAX
} VnBalance;

/* Weight of the free-memory share against CPU use under memory packing:
 * 10 points of free memory weigh as much as 3 points of CPU use. */
#define VN_BALANCE_PACKING_FREE_WEIGHT 0.3
/* Weight of the load against the hole kept under keep-hole. */
#define VN_BALANCE_HOLE_LOAD_WEIGHT 0.25
/* Balance adaptive packs memory from this committed share of the host on
 * (0.4-0.6 measured alike; 0.5 the middle). */
#define VN_BALANCE_ADAPTIVE_PACK_AT 0.5

const gchar *vn_balance_to_string(VnBalance b);
gboolean vn_balance_from_string(const gchar *s, VnBalance *ret_b);
/* The names, NULL-terminated, in enum order ("load", "memory-packing",
 * "keep-hole", "adaptive"). */
const gchar *const *vn_balance_names(void);

/* [placement] split: how vn_plan() shares the vCPUs and memory of a VM
 * that no one node holds over the nodes it chose, when it chooses the
 * guest cell count itself (no cells fixed by the domain, Nova or the
 * operator; those stay identical cells).
 *
 *   VN_SPLIT_FILL  as much of the VM as the member with the most room can
 *                  hold (memory within the headroom, vCPUs within the
 *                  overcommit, so that its vCPUs follow its memory) goes
 *                  there, the rest to the other members the same way:
 *                  cells of unequal sizes, each whole pages, vCPUs in
 *                  proportion to memory, at least one vCPU a cell.  A
 *                  90/10 split leaves 0.18 of the accesses remote
 *                  (1 - 0.9^2 - 0.1^2), an even one 0.5.  A fill that
 *                  crowds a member's CPUs past half is scored against
 *                  the even split of the same nodes and the lower score
 *                  kept (vn-plan-private.h, vn_plan_split_crowds()).
 *   VN_SPLIT_EVEN  identical cells, uneven only where a member's room
 *                  forces it.
 */
typedef enum {
    VN_SPLIT_FILL,
    VN_SPLIT_EVEN,
    VN_SPLIT_MAX
} VnSplit;

const gchar *vn_split_to_string(VnSplit s);
gboolean vn_split_from_string(const gchar *s, VnSplit *ret_s);
/* The names, NULL-terminated, in enum order ("fill", "even"). */
const gchar *const *vn_split_names(void);

/* [placement] cache_domains: where a shared VM's vCPUs may run inside a
 * node (VnCacheDomain: the CPUs sharing one L3).
 *
 *   VN_CACHE_DOMAINS_OFF      anywhere on the node's usable CPUs.
 *   VN_CACHE_DOMAINS_PREFER   the one domain, least loaded (most usable
 *                             CPUs), whose usable CPUs x cpu_overcommit
 *                             hold the node's vCPUs; else the fewest whole
 *                             domains that do, least loaded first.
 *   VN_CACHE_DOMAINS_REQUIRE  as prefer, but a node's vCPUs that no one
 *                             domain holds are refused (no fit) rather
 *                             than spread over domains.
 * A dedicated VM's CPUs come from the fewest domains with enough free
 * CPUs (most free first, one filled before the next; SMT policy as
 * without domains), under require from one domain a node.  The emulator
 * and IOThreads of a shared VM run on its CPUs of their node.  A VM's
 * vCPUs split evenly over several domains, in vCPU order, are one guest
 * die a domain (VnPlacement.dies). */
typedef enum {
    VN_CACHE_DOMAINS_OFF,
    VN_CACHE_DOMAINS_PREFER,
    VN_CACHE_DOMAINS_REQUIRE,
    VN_CACHE_DOMAINS_MAX
} VnCacheDomains;

/* The names, NULL-terminated, in enum order ("off", "prefer", "require"). */
const gchar *const *vn_cache_domains_names(void);

typedef struct {
    VnBitmap *reserved_cpus;      /* never handed to guests (host CPU ids) */
    guint64 reserved_memory_kib;  /* kept for the host on every node */
    guint64 overhead_base_kib;    /* per VM: QEMU fixed overhead */
    guint64 overhead_per_gib_kib; /* per VM per GiB of guest memory */
    guint headroom_percent;       /* of each node's memory kept free */
    gdouble cpu_overcommit;       /* shared vCPUs per usable host CPU */
    VnBalance balance;            /* tie-break between equally near sets */
    VnCacheDomains cache_domains; /* inside a node (default off) */
    VnTiers tiers;                /* memory beyond the CPU node's DRAM, for a
                                   * VM that wishes nothing (default off) */
    VnSplit split;                /* a VM over several nodes (default fill) */
    /* Simulation only, never a setting (vnuma-mirror, vn-simulate.h):
     * vn_plan() tries single nodes and the seeds of node sets from the
     * last node to the first, so exact ties go the other way and sets grow
     * from the other end: an equally good search, to show how much of a
     * simulated verdict is chance. */
    gboolean search_from_last;
} VnPolicy;

/* Documented defaults: nothing reserved, 32 MiB + 8 MiB/GiB overhead, 5 %
 * headroom, overcommit 4.0, balance adaptive.  `t` sizes the reserved CPU bitmap. */
VnPolicy *vn_policy_new_default(const VnTopology *t);
void vn_policy_free(VnPolicy *p);
/* The CPUs of node index `node` that guests may use: the node's CPUs less
 * the host-reserved ones and, when `load` is given, less those dedicated
 * to placed VMs.  A new bitmap of t->n_cpu_ids bits. */
VnBitmap *vn_policy_usable_cpus(const VnPolicy *p, const VnTopology *t, const VnLoad *load,
                                guint node);

/* Memory a VM may still take on node index `node` with `committed_kib`
 * already committed there: the node's total less the host's reserve, the
 * headroom and the committed memory, and no more than the node has
 * available now (free plus reclaimable page cache, less the headroom)
 * when that is known. */
guint64 vn_policy_usable_memory_kib(const VnPolicy *p, const VnTopology *t, guint node,
                                    guint64 committed_kib);
/* Node index `node`'s total memory less the host's reserve. */
guint64 vn_policy_memory_base_kib(const VnPolicy *p, const VnTopology *t, guint node);

/* The host's committed memory share: what `load` commits on the nodes
 * with CPUs and memory (VMs with their overhead) plus the host reservation
 * and the headroom there, over their memory (each node counted up to its
 * total); 0 with no such node.  From the load alone, not measured free
 * memory: the same ledger gives the same share whatever the page cache
 * does.  What VN_BALANCE_ADAPTIVE switches on. */
gdouble vn_policy_committed_share(const VnPolicy *p, const VnTopology *t, const VnLoad *load);
/* The balance `p` places with at committed share `share`
 * (vn_policy_committed_share()): its own, or for VN_BALANCE_ADAPTIVE load
 * under VN_BALANCE_ADAPTIVE_PACK_AT and memory packing from there on. */
VnBalance vn_policy_balance_at(const VnPolicy *p, gdouble share);

/* QEMU overhead for a VM of `memory_kib` guest memory. */
guint64 vn_policy_overhead_kib(const VnPolicy *p, guint64 memory_kib);

/* Whether shared vCPUs are counted per cache domain for `policy` on `t`:
 * cache domains on and some node with more than one. */
gboolean vn_load_counts_domains(const VnTopology *t, const VnPolicy *policy);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnLoad, vn_load_free)
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnPolicy, vn_policy_free)
