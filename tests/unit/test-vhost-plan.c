/* test-vhost-plan.c: where a VM's vhost workers go (vn-vhost-plan.h), on
 * the CPUs of the two-socket NIC fixture host (tests/data/sysroot/
 * 2socket-2nic: CPUs 0-5 on node 0, 6-11 on node 1) with the placements
 * of its ledger (tests/data/irq/state: vm-a dedicated on 2-3, vm-c on 4-5,
 * vm-b on 8-9, vm-d shared on 6-11). */
#include <string.h>
#include "vn-cpulist.h"
#include "vn-vhost-plan.h"

#define N_CPUS 12

typedef struct {
    const gchar *name;
    guint workers;
    const gchar *cells; /* the VM's cells' CPUs */
    const gchar *nodes; /* its nodes' CPUs, NULL: none given */
    gboolean dedicated;
    const gchar *taken; /* dedicated VMs' and reserved CPUs, NULL: none */
    const gchar *want;  /* worker i's CPU, comma-separated */
    const gchar *pool;
    const gchar *reason; /* a substring of one reason */
} Case;

static const Case cases[] = {
    /* vm-d: queues='4' of a shared VM on node 1, one CPU each */
    { "shared-four-queues", 4, "6-11", "6-11", FALSE, "2-5,8-9", "6,7,10,11", "6-7,10-11",
      "shared VM" },
    /* more workers than CPUs: dealt round, every CPU before any twice */
    { "shared-wraps", 5, "0-1", "0-5", FALSE, NULL, "0,1,0,1,0", "0-1", "5 workers over 2 CPUs" },
    /* vm-b dedicated on 8-9: the rest of node 1 that no VM owns */
    { "dedicated-off-vcpus", 4, "8-9", "6-11", TRUE, "2-5,8-9", "6,7,10,11", "6-7,10-11",
      "off its 2 vCPU CPUs" },
    /* vm-a on node 0 with vm-c beside it and host CPU 0 reserved: CPU 1 alone */
    { "dedicated-one-left", 3, "2-3", "0-5", TRUE, "0,2-5", "1,1,1", "1", "workers on 1 CPUs" },
    /* a node wholly dedicated: on the VM's own cores, said so */
    { "dedicated-nothing-left", 2, "0-5", "0-5", TRUE, "0-5", "0,1", "0-5",
      "no CPU of its nodes is left" },
    /* no node CPUs given: its cells' only, and those are its own */
    { "dedicated-no-nodes", 2, "8-9", NULL, TRUE, "8-9", "8,9", "8-9", "workers on its 2 vCPU" },
    { "shared-all-taken", 2, "6-7", "6-11", FALSE, "6-7", "6,7", "6-7", "all taken" },
    { "single-queue", 1, "6-11", "6-11", FALSE, NULL, "6", "6-11", "shared VM" },
};

static VnBitmap *
cpus(const gchar *text)
{
    g_autoptr(GError) error = NULL;
    VnBitmap *b = text ? vn_cpulist_parse(text, N_CPUS, &error) : NULL;

    g_assert_no_error(error);
    return b;
}

static void
test_case(gconstpointer data)
{
    const Case *c = data;
    g_autoptr(VnBitmap) cells = cpus(c->cells);
    g_autoptr(VnBitmap) nodes = cpus(c->nodes);
    g_autoptr(VnBitmap) taken = cpus(c->taken);
    g_autoptr(VnVhostPlan) p = vn_vhost_plan(c->workers, cells, nodes, c->dedicated, taken);
    g_autoptr(GString) got = g_string_new(NULL);
    g_autofree gchar *pool = vn_cpulist_format(p->pool);
    gboolean said = FALSE;

    for (guint i = 0; i < p->cpus->len; i++)
        g_string_append_printf(got, "%s%u", i ? "," : "", g_array_index(p->cpus, guint, i));
    g_assert_cmpstr(got->str, ==, c->want);
    g_assert_cmpstr(pool, ==, c->pool);
    for (guint i = 0; i < p->reasons->len; i++) {
        g_test_message("reason: %s", (const gchar *)p->reasons->pdata[i]);
        said = said || strstr(p->reasons->pdata[i], c->reason) != NULL;
    }
    g_assert_true(said);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gchar *path = g_strdup_printf("/vhost-plan/%s", cases[i].name);
        g_test_add_data_func(path, &cases[i], test_case);
    }
    return g_test_run();
}
