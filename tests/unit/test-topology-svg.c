/* test-topology-svg.c: the host picture is well-formed XML whatever the
 * names in it, and shows every VM cell and every distance. */
#include "vn-topology-svg.h"

#include <string.h>
#include <glib/gstdio.h>
#include <libxml/parser.h>

#define GIB (G_GUINT64_CONSTANT(1024) * 1024)

static VnTopology *
host(guint n)
{
    g_autoptr(VnTopology) t = vn_topology_new("test <host> & \"friends\"");

    for (guint i = 0; i < n; i++) {
        vn_topology_add_node(t, i, (8 + 8 * i) * GIB);
        for (guint c = 0; c < 4 * (i + 1); c++)
            vn_topology_add_cpu(t, i * 64 + c, (gint)i, i * 64 + c, 0);
    }
    for (guint a = 0; a < n; a++)
        for (guint b = 0; b < n; b++)
            vn_topology_set_distance(t, a, b, a == b ? 10 : 20 + a + b);
    g_assert_true(vn_topology_finish(t, NULL));
    return g_steal_pointer(&t);
}

static void
assert_well_formed(const gchar *svg)
{
    xmlDocPtr doc = xmlReadMemory(svg, (int)strlen(svg), "picture.svg", NULL,
                                  XML_PARSE_NONET | XML_PARSE_NOERROR);

    g_assert_nonnull(doc);
    g_assert_cmpstr((const char *)xmlDocGetRootElement(doc)->name, ==, "svg");
    xmlFreeDoc(doc);
}

/* xmllint, when installed, must agree (the operator's check). */
static void
assert_xmllint(const gchar *svg)
{
    g_autofree gchar *xmllint = g_find_program_in_path("xmllint");
    g_autofree gchar *dir = NULL;
    g_autofree gchar *path = NULL;
    const gchar *argv[] = { NULL, "--noout", NULL, NULL };
    gint status = -1;

    if (!xmllint) {
        g_test_message("xmllint not installed: libxml2's parse above stands alone");
        return;
    }
    dir = g_dir_make_tmp("vn-svg-XXXXXX", NULL);
    path = g_build_filename(dir, "picture.svg", NULL);
    g_assert_true(g_file_set_contents(path, svg, -1, NULL));
    argv[0] = xmllint;
    argv[2] = path;
    g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, NULL, NULL,
                               &status, NULL));
    g_assert_true(g_spawn_check_wait_status(status, NULL));
    g_remove(path);
    g_rmdir(dir);
}

static void
test_vms_and_distances(void)
{
    g_autoptr(VnTopology) t = host(3);
    g_autoptr(VnPolicy) policy = vn_policy_new_default(t);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(GPtrArray) records =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_autoptr(VnStatus) status = NULL;
    g_autofree gchar *svg = NULL;
    VnLedgerRecord *r = vn_ledger_record_new("u1", "<web> & \"db\"");

    vn_ledger_record_add_cell(r, 0, 0, 2, "0-3", 2 * GIB);
    vn_ledger_record_add_cell(r, 1, 2, 2, "128-131", 2 * GIB);
    g_ptr_array_add(records, r);
    load->nodes[0].committed_memory_kib = 4 * GIB;
    status =
        vn_status_collect(t, load, policy, records, "/nonexistent-sysroot", "/run/libvirt/qemu");
    ((VnStatusVm *)g_ptr_array_index(status->vms, 0))->locality = 0.75;
    svg = vn_topology_svg(t, status, NULL);
    assert_well_formed(svg);
    assert_xmllint(svg);
    g_assert_nonnull(strstr(svg, "&lt;web&gt; &amp; &quot;db&quot;, cell 0</text>"));
    g_assert_nonnull(strstr(svg, "&lt;web&gt; &amp; &quot;db&quot;, cell 1</text>"));
    g_assert_nonnull(strstr(svg, "2 vCPUs \xc2\xb7 2.0 GiB \xc2\xb7 local 75%"));
    g_assert_nonnull(strstr(svg, "test &lt;host&gt; &amp;"));
    g_assert_nonnull(strstr(svg, "#f3d17a"));    /* 75 %: amber */
    g_assert_nonnull(strstr(svg, ">22</text>")); /* distance 0-2 */
    g_assert_nonnull(strstr(svg, ">23</text>")); /* distance 1-2 */
}

/* No status: nodes and distances only; one node: no matrix shading. */
static void
test_bare(void)
{
    for (guint n = 1; n <= 9; n += 4) {
        g_autoptr(VnTopology) t = host(n);
        g_autofree gchar *svg = vn_topology_svg(t, NULL, NULL);
        assert_well_formed(svg);
        g_assert_nonnull(strstr(svg, "node 0"));
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/svg/vms-and-distances", test_vms_and_distances);
    g_test_add_func("/svg/bare", test_bare);
    return g_test_run();
}
