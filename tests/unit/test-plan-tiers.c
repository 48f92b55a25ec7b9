/* test-plan-tiers.c: memory beyond a CPU node's DRAM ([placement] tiers,
 * a VM's own wish) and interleave for guests that cannot use cells, on
 * the real fixtures of tests/data (README.md there says where each comes
 * from).
 *
 * The figures come off the files: libvirt's vircaps-x86_64-hmat.xml has
 * node 0 with 24 CPUs and 1 GiB, node 1 without CPUs and 2 GiB, slower by
 * its <interconnects> (read latency 11 ns against 6 ns local).  With the
 * default policy (5 % headroom, 32 MiB + 8 MiB/GiB QEMU overhead shared
 * by the two nodes) node 0 takes 1024 - 51.2 - 24 = 948.8 MiB of a 2 GiB
 * VM, 948 MiB in whole MiB, and node 1 the other 1100 MiB. */
#include <glib.h>
#include <string.h>

#include "vn-domain.h"
#include "vn-ledger-domain.h"
#include "vn-plan.h"
#include "vn-rebalance.h"
#include "vn-test-fixture.h"

#define MIB G_GUINT64_CONSTANT(1024)
#define GIB (1024 * MIB)

typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnPolicy *policy;
} Host;

static void
host_init(Host *h, const gchar *dir, const gchar *file, VnTiers tiers)
{
    h->t = vn_test_load_topology(dir, file);
    h->load = vn_load_new(h->t);
    h->policy = vn_policy_new_default(h->t);
    h->policy->tiers = tiers;
}

static void
host_clear(Host *h)
{
    vn_policy_free(h->policy);
    vn_load_free(h->load);
    vn_topology_free(h->t);
}

static VnRequest *
request(guint vcpus, guint64 kib)
{
    VnRequest *r = vn_request_new();

    r->vcpus = vcpus;
    r->memory_kib = kib;
    return r;
}

static VnPlacement *
plan_ok(const Host *h, const VnRequest *r)
{
    g_autoptr(GError) error = NULL;
    VnPlacement *p = vn_plan(h->t, h->load, h->policy, r, NULL, &error);

    g_assert_no_error(error);
    g_assert_nonnull(p);
    return p;
}

static const VnCell *
cell(const VnPlacement *p, guint i)
{
    g_assert_cmpuint(i, <, p->cells->len);
    return &g_array_index(p->cells, VnCell, i);
}

static gboolean
has_line(const GPtrArray *lines, const gchar *part)
{
    for (guint i = 0; lines && i < lines->len; i++)
        if (strstr(g_ptr_array_index(lines, i), part))
            return TRUE;
    return FALSE;
}

/* As today: refused, node 0 short of DRAM, node 1 not used. */
static void
test_off_refused(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(GPtrArray) reasons = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_OFF);
    p = vn_plan(h.t, h.load, h.policy, r, &reasons, &error);
    g_assert_null(p);
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_assert_true(has_line(reasons, "node 0: 948 MiB free, needs 2.0 GiB"));
    g_assert_true(has_line(reasons, "node 1: memory-only node (used only on request)"));
    host_clear(&h);
}

/* The cells of a tiered placement of the 4-vCPU 2 GiB VM: the vCPUs and
 * 948 MiB on node 0, 1100 MiB on node 1. */
static void
assert_tiered_cells(const Host *h, const VnPlacement *p)
{
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(p, 0)->n_vcpus, ==, 4);
    g_assert_cmpuint(cell(p, 0)->memory_kib, ==, 948 * MIB);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 1);
    g_assert_cmpuint(cell(p, 1)->n_vcpus, ==, 0);
    g_assert_cmpuint(cell(p, 1)->memory_kib, ==, 2 * GIB - 948 * MIB);
    g_assert_cmpuint(h->t->nodes[cell(p, 1)->node].tier, ==, VN_MEMORY_TIER_SLOW);
    g_assert_true(has_line(p->reasons, "expected on each tier: dram 948 MiB on node 0, "
                                       "slow 1100 MiB on node 1"));
}

static void
test_spill(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(VnPlacement) p = NULL;
    guint64 overhead;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_SPILL);
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_SPILL);
    g_assert_false(p->interleave);
    g_assert_false(vn_placement_has_guest_cells(p));
    assert_tiered_cells(&h, p);
    /* restrictive whatever [placement] memory_mode says: never strict */
    g_assert_cmpuint(vn_memory_mode_resolve(VN_MEMORY_MODE_STRICT, p), ==,
                     VN_MEMORY_MODE_RESTRICTIVE);
    g_assert_cmpuint(vn_memory_mode_resolve(VN_MEMORY_MODE_AUTO, p), ==,
                     VN_MEMORY_MODE_RESTRICTIVE);
    /* slow memory is no local capacity: each part counts on its own node */
    overhead = vn_policy_overhead_kib(h.policy, r->memory_kib);
    vn_load_commit(h.load, h.t, h.policy, r, p);
    g_assert_cmpuint(h.load->nodes[0].committed_memory_kib, ==, 948 * MIB + overhead / 2);
    g_assert_cmpuint(h.load->nodes[1].committed_memory_kib, ==, 2 * GIB - 948 * MIB + overhead / 2);
    g_assert_cmpuint(h.load->nodes[0].committed_vcpus, ==, 4);
    g_assert_cmpuint(h.load->nodes[1].committed_vcpus, ==, 0);
    host_clear(&h);
}

/* A VM that fits one DRAM node never touches the slow tier. */
static void
test_spill_not_needed(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 512 * MIB);
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_SPILL);
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_OFF);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 0);
    host_clear(&h);
}

static const gchar *const DOMAIN = "<domain type='kvm'>\n"
                                   "  <name>t</name>\n"
                                   "  <memory unit='GiB'>2</memory>\n"
                                   "  <vcpu placement='static'>4</vcpu>\n"
                                   "  <os><type arch='x86_64' machine='pc'>hvm</type></os>\n"
                                   "  <features><acpi/></features>\n"
                                   "</domain>\n";

static gchar *
written(const Host *h, const VnPlacement *p)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = vn_domain_load_buffer(DOMAIN, strlen(DOMAIN), "t.xml", &error);
    VnDomainWriteOptions o = { .memory_mode = VN_MEMORY_MODE_AUTO, .time = "2026-12-04T00:00:00Z" };

    g_assert_no_error(error);
    g_assert_true(vn_domain_apply_placement(d, h->t, p, &o, &error));
    g_assert_no_error(error);
    return vn_domain_to_string(d);
}

static void
test_spill_written(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(VnPlacement) p = NULL;
    g_autofree gchar *xml = NULL;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_SPILL);
    p = plan_ok(&h, r);
    xml = written(&h, p);
    g_assert_nonnull(strstr(xml, "<memory mode='restrictive' nodeset='0-1'/>"));
    g_assert_null(strstr(xml, "<memnode"));
    g_assert_null(strstr(xml, "<numa>"));
    g_assert_nonnull(strstr(xml, "tiers='spill'"));
    host_clear(&h);
}

static void
test_guest(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(VnPlacement) p = NULL;
    g_autofree gchar *xml = NULL;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_GUEST);
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_GUEST);
    g_assert_true(vn_placement_has_guest_cells(p));
    assert_tiered_cells(&h, p);
    xml = written(&h, p);
    /* two guest cells, the CPU-less one without a cpus attribute, and the
     * host's HMAT figures from vircaps' <interconnects> */
    g_assert_nonnull(strstr(xml, "<cell id='0' cpus='0-3' memory='970752' unit='KiB'>"));
    g_assert_nonnull(strstr(xml, "<cell id='1' memory='1126400' unit='KiB'>"));
    g_assert_nonnull(strstr(xml, "<latency initiator='0' target='1' type='read' value='11'/>"));
    g_assert_nonnull(strstr(xml, "<latency initiator='0' target='0' type='write' value='7'/>"));
    g_assert_nonnull(
        strstr(xml, "<bandwidth initiator='0' target='1' type='read' value='101' unit='MiB'/>"));
    g_assert_nonnull(strstr(xml, "<topology sockets='1'"));
    host_clear(&h);
}

/* The VM's wish wins over the host's [placement] tiers. */
static void
test_wish_over_policy(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_SPILL);
    r->tiers_set = TRUE;
    r->tiers = VN_TIERS_OFF;
    p = vn_plan(h.t, h.load, h.policy, r, NULL, &error);
    g_assert_null(p);
    g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
    g_clear_error(&error);
    h.policy->tiers = VN_TIERS_OFF;
    r->tiers = VN_TIERS_GUEST;
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_GUEST);
    host_clear(&h);
}

/* hwloc's heteromem.xml: DRAM nodes 0 and 2, HBM nodes 1 and 3 sharing
 * their CPUs, CXL-DRAM node 4 (slow).  HBM is special: never local
 * capacity, never a spill target; CXL is. */
static void
test_heteromem_spill_to_cxl_not_hbm(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 1536 * MIB);
    g_autoptr(VnPlacement) off = NULL;
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "hwloc", "heteromem.xml", VN_TIERS_OFF);
    off = plan_ok(&h, r); /* off: split over the two DRAM nodes */
    g_assert_cmpuint(off->cells->len, ==, 2);
    g_assert_cmpuint(cell(off, 0)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(off, 1)->node_os_id, ==, 2);
    h.policy->tiers = VN_TIERS_SPILL;
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_SPILL);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(h.t->nodes[cell(p, 0)->node].tier, ==, VN_MEMORY_TIER_DRAM);
    g_assert_cmpuint(cell(p, 0)->n_vcpus, ==, 4);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 4);
    host_clear(&h);
}

/* A kmem tier as Linux builds it (tests/data/sysroot/kmem-tier: node 1
 * in memory_tier22 below node 0's memory_tier4, sharing its CPUs): 1 GiB
 * does not fit node 0's 948 MiB free; spill puts the rest on node 1. */
static void
test_kmem_tier_spill(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(2, GIB);
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "sysroot", "kmem-tier", VN_TIERS_SPILL);
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_SPILL);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 1);
    g_assert_cmpuint(cell(p, 0)->memory_kib + cell(p, 1)->memory_kib, ==, GIB);
    g_assert_cmpuint(cell(p, 0)->memory_kib, <, 948 * MIB);
    host_clear(&h);
}

/* A guest that cannot see cells (x86 without ACPI): spill first (one
 * guest node on one CPU node), and guest tiers become spill. */
static void
test_no_cells_spills(void)
{
    for (VnTiers mode = VN_TIERS_SPILL; mode <= VN_TIERS_GUEST; mode++) {
        Host h;
        g_autoptr(VnRequest) r = request(2, GIB);
        g_autoptr(VnPlacement) p = NULL;

        host_init(&h, "sysroot", "kmem-tier", mode);
        r->interleave = VN_INTERLEAVE_NO_CELLS;
        p = plan_ok(&h, r);
        g_assert_cmpuint(p->tiers, ==, VN_TIERS_SPILL);
        g_assert_false(p->interleave);
        g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 1);
        g_assert_cmpint(has_line(p->reasons, "the guest cannot see NUMA cells"), ==,
                        mode == VN_TIERS_GUEST);
        host_clear(&h);
    }
}

/* Bad input: a wish for guest tiers on a host without a slow tier (hwloc's
 * 8intel64-4n2t-memattrs.xml: four DRAM nodes of 1 GiB): placed as with
 * tiers off, and one warning line says so. */
static void
test_wish_without_slow_tier(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(2, 1536 * MIB);
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "hwloc", "8intel64-4n2t-memattrs.xml", VN_TIERS_OFF);
    r->tiers_set = TRUE;
    r->tiers = VN_TIERS_GUEST;
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_OFF);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(p->warnings->len, ==, 1);
    g_assert_cmpstr(g_ptr_array_index(p->warnings, 0), ==,
                    "tiers=guest (the VM's wish): this host has no slow memory tier (no CPU-less "
                    "node classed slow), placed as with tiers=off");
    host_clear(&h);
}

/* ---- interleave ---- */

/* hwloc's 64amd64-4p2n4ca2co.xml: eight nodes of ~16 GiB, distances 16
 * and 22.  20 GiB needs two nodes: a distance-16 pair, 10 GiB each. */
static void
test_interleave_wish(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 20 * GIB);
    g_autoptr(VnPlacement) p = NULL;
    const VnBitmap *pin0;

    host_init(&h, "hwloc", "64amd64-4p2n4ca2co.xml", VN_TIERS_OFF);
    r->interleave = VN_INTERLEAVE_WISH;
    p = plan_ok(&h, r);
    g_assert_true(p->interleave);
    g_assert_false(vn_placement_has_guest_cells(p));
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(vn_topology_distance(h.t, cell(p, 0)->node, cell(p, 1)->node), ==, 16);
    g_assert_cmpuint(cell(p, 0)->memory_kib, ==, 10 * GIB);
    g_assert_cmpuint(cell(p, 1)->memory_kib, ==, 10 * GIB);
    /* every vCPU on the CPUs of both nodes */
    pin0 = g_ptr_array_index(p->vcpu_pins, 0);
    g_assert_cmpuint(vn_bitmap_count(pin0), ==, 16);
    for (guint v = 1; v < p->vcpu_pins->len; v++)
        g_assert_true(vn_bitmap_equal(g_ptr_array_index(p->vcpu_pins, v), pin0));
    g_assert_true(has_line(p->reasons, "the operator asked for memory='interleave'"));
    g_assert_cmpuint(vn_memory_mode_resolve(VN_MEMORY_MODE_AUTO, p), ==, VN_MEMORY_MODE_STRICT);
    host_clear(&h);
}

/* Even shares: a node that holds less than half is no member, although
 * an uneven split would have used it. */
static void
test_interleave_even_shares(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 20 * GIB);
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "hwloc", "64amd64-4p2n4ca2co.xml", VN_TIERS_OFF);
    r->interleave = VN_INTERLEAVE_NO_CELLS;
    /* every node but 0 and 6 (distance 16) holds no more than 8 GiB */
    for (guint i = 0; i < h.t->n_nodes; i++)
        if (h.t->nodes[i].os_id != 0 && h.t->nodes[i].os_id != 6)
            h.load->nodes[i].committed_memory_kib = 7 * GIB;
    p = plan_ok(&h, r);
    g_assert_true(p->interleave);
    g_assert_cmpuint(p->cells->len, ==, 2);
    g_assert_cmpuint(cell(p, 0)->node_os_id, ==, 0);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 6);
    g_assert_true(has_line(p->reasons, "the guest cannot see NUMA cells"));
    host_clear(&h);
}

static void
test_interleave_one_node(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 4 * GIB);
    g_autoptr(VnPlacement) p = NULL;

    host_init(&h, "hwloc", "64amd64-4p2n4ca2co.xml", VN_TIERS_OFF);
    r->interleave = VN_INTERLEAVE_WISH;
    p = plan_ok(&h, r);
    g_assert_false(p->interleave);
    g_assert_cmpuint(p->cells->len, ==, 1);
    g_assert_true(has_line(p->reasons, "one node holds the VM: nothing to interleave"));
    host_clear(&h);
}

/* Memory soft-reserved by the firmware (EFI specific-purpose) and onlined
 * through dax/kmem: hwloc names it SPM, the kernel puts it in a memory
 * tier below DRAM's (seen on the emulated host, layout 2node-kmem).  It is
 * slow, a spill target; SPM without that kernel tier stays special. */
static VnTopology *
spm_host(gint kernel_tier)
{
    g_autoptr(VnTopology) t = vn_topology_new("test: DRAM node 0, SPM node 1");
    g_autoptr(GError) error = NULL;
    guint n0 = vn_topology_add_node(t, 0, GIB), n1 = vn_topology_add_node(t, 1, 512 * MIB);

    vn_topology_add_cpu(t, 0, (gint)n0, 0, 0);
    vn_topology_add_cpu(t, 1, (gint)n0, 1, 0);
    t->nodes[n0].kernel_tier = 4;
    t->nodes[n1].kernel_tier = kernel_tier;
    t->nodes[n1].subtype = g_strdup("SPM");
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    return g_steal_pointer(&t);
}

static void
test_spm_kmem_is_slow(void)
{
    Host h = { 0 };
    g_autoptr(VnRequest) r = request(2, GIB);
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnTopology) plain = spm_host(-1);

    g_assert_cmpuint(plain->nodes[1].tier, ==, VN_MEMORY_TIER_SPECIAL);
    h.t = spm_host(22);
    g_assert_cmpuint(h.t->nodes[1].tier, ==, VN_MEMORY_TIER_SLOW);
    g_assert_nonnull(strstr(h.t->nodes[1].tier_reason, "memory_tier22"));
    h.load = vn_load_new(h.t);
    h.policy = vn_policy_new_default(h.t);
    h.policy->tiers = VN_TIERS_SPILL;
    p = plan_ok(&h, r);
    g_assert_cmpuint(p->tiers, ==, VN_TIERS_SPILL);
    g_assert_cmpuint(cell(p, 1)->node_os_id, ==, 1);
    host_clear(&h);
}

/* ---- one unit for the ledger and the rebalancer ---- */

/* Interleaved and spilled placements are recorded whole; guest tiers are
 * guest cells, each its own. */
static void
test_recorded_whole(void)
{
    Host h;
    g_autoptr(VnRequest) r = request(4, 2 * GIB);
    g_autoptr(VnRequest) big = request(4, 20 * GIB);

    host_init(&h, "caps", "vircaps-x86_64-hmat.xml", VN_TIERS_SPILL);
    for (VnTiers mode = VN_TIERS_SPILL; mode <= VN_TIERS_GUEST; mode++) {
        g_autoptr(VnPlacement) p = NULL;
        g_autoptr(VnLedgerRecord) rec = NULL;
        h.policy->tiers = mode;
        p = plan_ok(&h, r);
        rec = vn_ledger_record_from_placement("u", "t", p, r);
        g_assert_cmpint(rec->whole, ==, mode == VN_TIERS_SPILL);
        g_assert_cmpuint(rec->cells->len, ==, 2);
    }
    host_clear(&h);
    host_init(&h, "hwloc", "64amd64-4p2n4ca2co.xml", VN_TIERS_OFF);
    big->interleave = VN_INTERLEAVE_WISH;
    {
        g_autoptr(VnPlacement) p = plan_ok(&h, big);
        g_autoptr(VnLedgerRecord) rec = vn_ledger_record_from_placement("u", "i", p, big);
        g_assert_true(rec->whole);
    }
    host_clear(&h);
}

/* A hot node whose only movable VM is whole: nothing moves; the same VM
 * not whole: one of its cells moves. */
static void
test_rebalance_keeps_whole(void)
{
    for (guint whole = 0; whole < 2; whole++) {
        Host h;
        g_autoptr(GPtrArray) vms = g_ptr_array_new_with_free_func((GDestroyNotify)vn_resident_free);
        g_autoptr(GPtrArray) moves = NULL;
        VnRebalanceLimits lim;
        VnResident *vm = vn_resident_new("i", VN_PRIORITY_NORMAL, FALSE, 0);

        host_init(&h, "hwloc", "64amd64-4p2n4ca2co.xml", VN_TIERS_OFF);
        vn_rebalance_limits_init(&lim, 100000);
        vm->whole = whole;
        /* 4 vCPUs and 2 GiB on nodes 0 and 6 each; node 0 is hot with
         * 10 GiB of load that is nobody's to move */
        for (guint i = 0; i < 2; i++) {
            guint node = (guint)vn_topology_node_by_os_id(h.t, i ? 6 : 0);
            vn_resident_add_cell(vm, i, node, 4, 2 * GIB);
            h.load->nodes[node].committed_vcpus += 4;
            h.load->nodes[node].committed_memory_kib += 2 * GIB + (i ? 0 : 10 * GIB);
        }
        g_ptr_array_add(vms, vm);
        moves = vn_rebalance_propose(h.t, h.load, h.policy, vms, &lim, NULL);
        g_assert_cmpuint(moves->len, ==, whole ? 0 : 1);
        host_clear(&h);
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plan/tiers/off-refused", test_off_refused);
    g_test_add_func("/plan/tiers/spill", test_spill);
    g_test_add_func("/plan/tiers/spill-not-needed", test_spill_not_needed);
    g_test_add_func("/plan/tiers/spill-written", test_spill_written);
    g_test_add_func("/plan/tiers/guest", test_guest);
    g_test_add_func("/plan/tiers/wish-over-policy", test_wish_over_policy);
    g_test_add_func("/plan/tiers/heteromem-cxl-not-hbm", test_heteromem_spill_to_cxl_not_hbm);
    g_test_add_func("/plan/tiers/kmem-tier", test_kmem_tier_spill);
    g_test_add_func("/plan/tiers/wish-without-slow-tier", test_wish_without_slow_tier);
    g_test_add_func("/plan/tiers/spm-kmem-is-slow", test_spm_kmem_is_slow);
    g_test_add_func("/plan/tiers/no-cells-spills", test_no_cells_spills);
    g_test_add_func("/plan/interleave/wish", test_interleave_wish);
    g_test_add_func("/plan/interleave/even-shares", test_interleave_even_shares);
    g_test_add_func("/plan/interleave/one-node", test_interleave_one_node);
    g_test_add_func("/plan/tiers/recorded-whole", test_recorded_whole);
    g_test_add_func("/plan/interleave/rebalance-keeps-whole", test_rebalance_keeps_whole);
    return g_test_run();
}
