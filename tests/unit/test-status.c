/* test-status.c: vn_status_collect()'s memory by tier, on the kmem host
 * of tests/data/sysroot/kmem-tier (node 0 dram in memory_tier4, node 1
 * slow in memory_tier22) and the spilled VM of tests/data/status/kmem
 * (numa_maps: 1024 + 230400 + 16 pages on node 0, 76800 on node 1). */
#include <glib.h>

#include "vn-ledger.h"
#include "vn-status.h"
#include "vn-test-fixture.h"

static VnStatus *
collect(const VnTopology *t, GPtrArray *records)
{
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autofree gchar *sysroot = vn_test_data_path("status", "kmem", NULL);

    return vn_status_collect(t, load, policy, records, sysroot, "/run/libvirt/qemu");
}

static void
test_spilled_vm(void)
{
    g_autoptr(VnTopology) t = vn_test_load_topology("sysroot", "kmem-tier");
    g_autoptr(GPtrArray) records =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_autoptr(VnStatus) s = NULL;
    VnLedgerRecord *r = vn_ledger_record_new("u1", "spill");
    const VnStatusVm *v;

    vn_ledger_record_add_cell(r, 0, 0, 2, "0-1", 921600);
    vn_ledger_record_add_cell(r, 1, 1, 0, "", 307200);
    g_ptr_array_add(records, r);
    s = collect(t, records);
    v = g_ptr_array_index(s->vms, 0);
    g_assert_true(v->measured);
    g_assert_cmpuint(v->tier_kib[VN_MEMORY_TIER_DRAM], ==, (1024 + 230400 + 16) * 4);
    g_assert_cmpuint(v->tier_kib[VN_MEMORY_TIER_SLOW], ==, 76800 * 4);
    g_assert_cmpuint(v->tier_kib[VN_MEMORY_TIER_SPECIAL], ==, 0);
    g_assert_cmpuint(v->tier_unknown_kib, ==, 0);
    g_assert_cmpuint(v->resident_kib, ==, (1024 + 230400 + 16 + 76800) * 4);
    g_assert_true(s->has_tier[VN_MEMORY_TIER_DRAM]);
    g_assert_true(s->has_tier[VN_MEMORY_TIER_SLOW]);
    g_assert_false(s->has_tier[VN_MEMORY_TIER_SPECIAL]);
    g_assert_cmpint(s->kernel_tier[VN_MEMORY_TIER_DRAM], ==, 4);
    g_assert_cmpint(s->kernel_tier[VN_MEMORY_TIER_SLOW], ==, 22);
}

/* The same numa_maps read against a one-node host (node 0: CPUs 0-1,
 * 1 GiB): node 1's pages are on a node the topology lacks, counted as
 * unknown, not as dram; the host has one tier. */
static void
test_node_not_in_topology(void)
{
    g_autoptr(VnTopology) t = vn_topology_new("one node");
    g_autoptr(GPtrArray) records =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_autoptr(VnStatus) s = NULL;
    g_autoptr(GError) error = NULL;
    VnLedgerRecord *r = vn_ledger_record_new("u1", "spill");
    const VnStatusVm *v;

    vn_topology_add_node(t, 0, 1024 * 1024);
    vn_topology_add_cpu(t, 0, 0, 0, 0);
    vn_topology_add_cpu(t, 1, 0, 1, 0);
    g_assert_true(vn_topology_finish(t, &error));
    g_assert_no_error(error);
    vn_ledger_record_add_cell(r, 0, 0, 2, "0-1", 921600);
    g_ptr_array_add(records, r);
    s = collect(t, records);
    v = g_ptr_array_index(s->vms, 0);
    g_assert_true(v->measured);
    g_assert_cmpuint(v->tier_kib[VN_MEMORY_TIER_DRAM], ==, (1024 + 230400 + 16) * 4);
    g_assert_cmpuint(v->tier_kib[VN_MEMORY_TIER_SLOW], ==, 0);
    g_assert_cmpuint(v->tier_unknown_kib, ==, 76800 * 4);
    g_assert_true(s->has_tier[VN_MEMORY_TIER_DRAM]);
    g_assert_false(s->has_tier[VN_MEMORY_TIER_SLOW]);
    g_assert_cmpint(s->kernel_tier[VN_MEMORY_TIER_DRAM], ==, -1);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/status/tiers/spilled-vm", test_spilled_vm);
    g_test_add_func("/status/tiers/node-not-in-topology", test_node_not_in_topology);
    return g_test_run();
}
