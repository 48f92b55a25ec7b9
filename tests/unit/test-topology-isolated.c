/* test-topology-isolated.c: vn_topology_load_isolated().
 *
 * The child's topology equals the in-process one for every hwloc fixture;
 * an input that crashes hwloc 2.9 (tests/data/hwloc-crash) is an error
 * naming the file, and so is every other way a child can die or stall.
 * No child is left behind. */
#include <errno.h>
#include <stdlib.h>
#include <sys/wait.h>
#include <unistd.h>

#include "vn-topology-json.h"
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-test-files.h"
#include "vn-test-fixture.h"

static gchar *
as_json(const VnTopology *t)
{
    g_autoptr(JsonNode) n = vn_topology_to_json(t, NULL);
    return json_to_string(n, TRUE);
}

/* Every child was reaped. */
static void
assert_no_children(void)
{
    g_assert_cmpint(waitpid(-1, NULL, WNOHANG), ==, -1);
    g_assert_cmpint(errno, ==, ECHILD);
}

static void
assert_same(VnTopologyLoadFunc load, const gchar *arg)
{
    g_autoptr(GError) e1 = NULL;
    g_autoptr(GError) e2 = NULL;
    g_autoptr(VnTopology) direct = load(arg, &e1);
    g_autoptr(VnTopology) isolated = vn_topology_load_isolated(load, arg, arg, &e2);
    g_autofree gchar *a = NULL;
    g_autofree gchar *b = NULL;

    g_assert_no_error(e1);
    g_assert_no_error(e2);
    a = as_json(direct);
    b = as_json(isolated);
    if (g_strcmp0(a, b) != 0)
        g_error("%s: the child's topology differs:\n%s\n---\n%s", arg, a, b);
    g_assert_cmpuint(isolated->smt_width, ==, direct->smt_width);
    g_assert_cmpuint(isolated->n_cpu_ids, ==, direct->n_cpu_ids);
}

static void
test_same_as_in_process(void)
{
    g_autofree gchar *dir = vn_test_data_path("hwloc", NULL);
    g_autoptr(GPtrArray) paths = vn_test_dir_paths(dir, ".xml");

    for (guint i = 0; i < paths->len; i++)
        assert_same(vn_topology_load_hwloc_xml, paths->pdata[i]);
    g_assert_cmpuint(paths->len, >=, 7);
    assert_same(vn_topology_load_synthetic, "pack:2 numa:2 core:4 pu:2");
    assert_no_children();
}

/* The loader's own errors come back with their code and message. */
static void
test_loader_errors(void)
{
    static const struct {
        const gchar *arg;
        VnTopologyLoadFunc load;
    } cases[] = {
        { "/nonexistent/topology.xml", vn_topology_load_hwloc_xml },
        { "pack:2 frobnicate:3", vn_topology_load_synthetic },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) direct = NULL;
        g_autoptr(GError) isolated = NULL;
        g_assert_null(cases[i].load(cases[i].arg, &direct));
        g_assert_null(
            vn_topology_load_isolated(cases[i].load, cases[i].arg, cases[i].arg, &isolated));
        g_assert_nonnull(direct);
        g_assert_error(isolated, VN_TOPOLOGY_SOURCE_ERROR, direct->code);
        g_assert_cmpstr(isolated->message, ==, direct->message);
    }
    assert_no_children();
}

/* Every file of tests/data/hwloc-crash kills hwloc 2.9 with SIGSEGV. */
static void
test_hwloc_crash(void)
{
    g_autofree gchar *dir = vn_test_data_path("hwloc-crash", NULL);
    g_autoptr(GPtrArray) paths = vn_test_dir_paths(dir, ".xml");

    for (guint i = 0; i < paths->len; i++) {
        const gchar *path = paths->pdata[i];
        g_autofree gchar *expected =
            g_strdup_printf("%s: hwloc crashed reading it (signal %d)", path, SIGSEGV);
        g_autoptr(GError) error = NULL;
        g_assert_null(vn_topology_load_isolated(vn_topology_load_hwloc_xml, path, path, &error));
        g_assert_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC);
        g_assert_cmpstr(error->message, ==, expected);
    }
    g_assert_cmpuint(paths->len, >=, 1);
    assert_no_children();
}

/* Children that die or stall in other ways. */
static VnTopology *
load_abort(const gchar *arg, GError **error)
{
    abort();
}

static VnTopology *
load_exit(const gchar *arg, GError **error)
{
    _exit(3);
}

static VnTopology *
load_stall(const gchar *arg, GError **error)
{
    g_usleep(30 * G_USEC_PER_SEC);
    return NULL;
}

static void
test_child_failures(void)
{
    static const struct {
        VnTopologyLoadFunc load;
        const gchar *expected;
    } cases[] = {
        { load_abort, "in: hwloc crashed reading it (signal 6)" },
        { load_exit, "in: hwloc failed reading it (import process exited with status 3)" },
        { load_stall, "in: hwloc did not finish reading it within 300 ms (import process killed)" },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        gint64 t0 = g_get_monotonic_time();
        g_assert_null(vn_topology_load_isolated_timeout(cases[i].load, "pu:1", "in", 300, &error));
        g_assert_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC);
        g_assert_cmpstr(error->message, ==, cases[i].expected);
        g_assert_cmpint(g_get_monotonic_time() - t0, <, 10 * G_USEC_PER_SEC);
        assert_no_children();
    }
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/topology/isolated/same-as-in-process", test_same_as_in_process);
    g_test_add_func("/topology/isolated/loader-errors", test_loader_errors);
    g_test_add_func("/topology/isolated/hwloc-crash", test_hwloc_crash);
    g_test_add_func("/topology/isolated/child-failures", test_child_failures);
    return g_test_run();
}
