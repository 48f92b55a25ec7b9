/* test-probe-file.c: the saved probe (round trip, refusals) and
 * `[topology] distances = measured` (applied on this boot, ignored with a
 * warning after a reboot, without a probe, or on other nodes); and
 * vn_probe_measure() / `vnumactl probe` on this machine. */
#include <glib/gstdio.h>

#include "vn-probe-file.h"
#include "vn-probe-json.h"
#include "vn-probe-measure.h"
#include "vn-topology-source.h"
#include "vn-test-fixture.h"

/* vn_test_topology_new(): nodes 0 and 1 with CPUs, node 3 memory-only. */
static VnProbe *
three_node_probe(void)
{
    VnProbe *p = vn_probe_new(3);

    vn_probe_set(p, 0, 0, 100, 9000);
    vn_probe_set(p, 0, 1, 150, 6000);
    vn_probe_set(p, 0, 2, 300, 3000);
    vn_probe_set(p, 1, 0, 160, 6000);
    vn_probe_set(p, 1, 1, 100, 9000);
    vn_probe_set(p, 1, 2, 250, 3500);
    return p;
}

static void
test_round_trip(void)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnProbe) p = three_node_probe();
    g_autoptr(JsonNode) root = vn_probe_file_to_json(p, t, "boot-1");
    g_autoptr(GError) error = NULL;
    g_autofree gchar *boot = NULL;
    g_autoptr(VnProbe) back = vn_probe_file_from_json(root, "test", t, &boot, &error);
    g_autoptr(JsonNode) again = NULL;
    g_autofree gchar *a = json_to_string(root, FALSE), *b = NULL;

    g_assert_no_error(error);
    g_assert_cmpstr(boot, ==, "boot-1");
    for (guint i = 0; i < 9; i++) {
        g_assert_cmpfloat(back->latency_ns[i], ==, p->latency_ns[i]);
        g_assert_cmpfloat(back->bandwidth_mbs[i], ==, p->bandwidth_mbs[i]);
    }
    again = vn_probe_file_to_json(back, t, boot);
    b = json_to_string(again, FALSE);
    g_assert_cmpstr(a, ==, b);
    g_assert_nonnull(strstr(a, "\"nodes\":[0,1,3]"));
    g_assert_nonnull(strstr(a, "[null,null,null]")); /* node 3 has no CPUs: no row */
}

static void
test_refused(void)
{
    static const struct {
        const gchar *json;
        gint code;
    } bad[] = {
        { "[]", VN_PROBE_FILE_ERROR_CORRUPT },
        { "{\"version\": 2, \"boot_id\": \"b\"}", VN_PROBE_FILE_ERROR_CORRUPT },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 1]}", VN_PROBE_FILE_ERROR_MISMATCH },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 1, 2]}",
          VN_PROBE_FILE_ERROR_MISMATCH },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 0, 3]}",
          VN_PROBE_FILE_ERROR_MISMATCH },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 1, 3], \"latency_ns\": [[1]]}",
          VN_PROBE_FILE_ERROR_CORRUPT },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 1, 3], \"latency_ns\": "
          "[[1, 2, \"x\"], [1, 2, 3], [null, null, null]], \"bandwidth_mbs\": "
          "[[1, 2, 3], [1, 2, 3], [null, null, null]]}",
          VN_PROBE_FILE_ERROR_CORRUPT },
        { "{\"version\": 1, \"boot_id\": \"b\", \"nodes\": [0, 1, 3], \"latency_ns\": "
          "[[1, 2, -3], [1, 2, 3], [null, null, null]], \"bandwidth_mbs\": "
          "[[1, 2, 3], [1, 2, 3], [null, null, null]]}",
          VN_PROBE_FILE_ERROR_CORRUPT },
    };
    g_autoptr(VnTopology) t = vn_test_topology_new();

    for (guint i = 0; i < G_N_ELEMENTS(bad); i++) {
        g_autoptr(JsonNode) root = json_from_string(bad[i].json, NULL);
        g_autoptr(GError) error = NULL;
        g_autoptr(VnProbe) p = vn_probe_file_from_json(root, "probe.json", t, NULL, &error);

        g_test_message("%s", bad[i].json);
        g_assert_null(p);
        g_assert_error(error, VN_PROBE_FILE_ERROR, bad[i].code);
        g_assert_true(g_str_has_prefix(error->message, "probe.json: "));
    }
}

/* A state dir and a sysroot whose boot id is `boot`. */
typedef struct {
    gchar *dir, *state, *sysroot;
} Dirs;

static void
dirs_set_boot(Dirs *d, const gchar *boot)
{
    g_autofree gchar *random =
        g_build_filename(d->sysroot, "proc", "sys", "kernel", "random", NULL);
    g_autofree gchar *path = g_build_filename(random, "boot_id", NULL);
    g_autofree gchar *text = g_strdup_printf("%s\n", boot);

    g_assert_cmpint(g_mkdir_with_parents(random, 0755), ==, 0);
    g_assert_true(g_file_set_contents(path, text, -1, NULL));
}

static void
dirs_init(Dirs *d)
{
    d->dir = g_dir_make_tmp("vn-probe-XXXXXX", NULL);
    d->state = g_build_filename(d->dir, "state", NULL);
    d->sysroot = g_build_filename(d->dir, "root", NULL);
    dirs_set_boot(d, "boot-1");
}

static void
dirs_clear(Dirs *d)
{
    vn_test_remove_tree(d->dir);
    g_free(d->dir);
    g_free(d->state);
    g_free(d->sysroot);
}

static VnConfig *
measured_config(const Dirs *d)
{
    g_autofree gchar *text = g_strdup_printf("[topology]\ndistances = measured\n"
                                             "[paths]\nstate_dir = %s\n",
                                             d->state);
    g_autoptr(GError) error = NULL;
    VnConfig *c = vn_test_config_from_text(text, &error);

    g_assert_no_error(error);
    g_assert_cmpint(c->distances, ==, VN_DISTANCES_MEASURED);
    return c;
}

static void
test_apply(void)
{
    Dirs d = { 0 };
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnProbe) p = three_node_probe();
    g_autoptr(VnConfig) c = NULL;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *path = NULL;

    dirs_init(&d);
    c = measured_config(&d);
    g_assert_true(vn_probe_file_save(p, t, d.state, d.sysroot, &path, &error));
    g_assert_no_error(error);
    g_assert_true(g_str_has_suffix(path, "/state/" VN_PROBE_FILE));
    g_assert_true(vn_probe_file_apply(t, c, d.sysroot));
    /* 10 x 150 / 100 = 15, 10 x 300 / 100 = 30, 10 x 160 / 100 = 16,
     * 10 x 250 / 100 = 25; node 3's row (no CPUs) keeps the firmware's */
    g_assert_cmpuint(vn_topology_distance(t, 0, 1), ==, 15);
    g_assert_cmpuint(vn_topology_distance(t, 0, 2), ==, 30);
    g_assert_cmpuint(vn_topology_distance(t, 1, 0), ==, 16);
    g_assert_cmpuint(vn_topology_distance(t, 1, 2), ==, 25);
    g_assert_cmpuint(vn_topology_distance(t, 2, 0), ==, 30);
    g_assert_cmpuint(vn_topology_distance(t, 0, 0), ==, 10);
    g_assert_true(g_str_has_suffix(t->source, "; distances measured by vnumactl probe"));
    dirs_clear(&d);
}

/* After a reboot, without a probe, or with [topology] distances = slit:
 * the firmware's table stays. */
static void
test_ignored(void)
{
    Dirs d = { 0 };
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnTopology) fresh = vn_test_topology_new();
    g_autoptr(VnProbe) p = three_node_probe();
    g_autoptr(VnConfig) c = NULL;
    g_autoptr(VnConfig) slit = NULL;
    g_autoptr(GError) error = NULL;

    dirs_init(&d);
    c = measured_config(&d);
    g_assert_false(vn_probe_file_apply(t, c, d.sysroot));
    g_assert_nonnull(strstr(t->source, "warning: [topology] distances = measured ignored: no "
                                       "saved probe"));
    g_assert_true(vn_probe_file_save(p, t, d.state, d.sysroot, NULL, &error));
    dirs_set_boot(&d, "boot-2");
    g_assert_false(vn_probe_file_apply(fresh, c, d.sysroot));
    g_assert_nonnull(strstr(fresh->source, "is from another boot (boot id boot-1, now boot-2"));
    for (guint i = 0; i < 3; i++)
        for (guint j = 0; j < 3; j++)
            g_assert_cmpuint(vn_topology_distance(fresh, i, j), ==, vn_topology_distance(t, i, j));
    slit = vn_test_config_from_text("[topology]\ndistances = slit\n", &error);
    g_assert_no_error(error);
    dirs_set_boot(&d, "boot-1");
    g_assert_false(vn_probe_file_apply(fresh, slit, d.sysroot));
    g_assert_cmpuint(vn_topology_distance(fresh, 0, 1), ==, 21);
    dirs_clear(&d);
}

/* This machine: every CPU node against every memory node, within the
 * budget; on a one-node machine one pair. */
static void
test_measure_live(void)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_live(&error);
    VnProbeOptions o = { .seconds = 0.05, .buffer_bytes = 4u << 20 };
    g_autoptr(GPtrArray) notes = NULL;
    g_autoptr(VnProbe) p = NULL;

    g_assert_no_error(error);
    p = vn_probe_measure(t, &o, &notes, &error);
    g_assert_no_error(error);
    for (guint i = 0; i < t->n_nodes; i++)
        for (guint j = 0; j < t->n_nodes; j++)
            g_assert_cmpint(vn_probe_measured(p, i, j), ==,
                            vn_topology_node_ncpus(t, i) > 0 && t->nodes[j].mem_total_kib > 0);
    g_assert_cmpuint(notes->len, ==, 0);
}

/* `vnumactl probe --quick --json` reports every node of this host (one
 * here) and exits 0. */
static void
test_cli(void)
{
    g_autofree gchar *exe = g_build_filename(g_getenv("VN_BUILD_ROOT"), "tools", "vnumactl", NULL);
    const gchar *argv[] = { exe, "probe", "--quick", "--json", NULL };
    g_autofree gchar *out = NULL, *err = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_live(&error);
    gint status = -1;
    JsonObject *probe;

    g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
    g_assert_no_error(error);
    g_assert_cmpstr(err, ==, "");
    g_assert_true(g_spawn_check_wait_status(status, &error));
    root = json_from_string(out, &error);
    g_assert_no_error(error);
    probe = json_object_get_object_member(json_node_get_object(root), "probe");
    g_assert_cmpuint(json_array_get_length(json_object_get_array_member(probe, "nodes")), ==,
                     t->n_nodes);
    if (t->n_nodes == 1)
        g_assert_cmpint(json_array_get_length(
                            json_object_get_array_member(json_node_get_object(root), "findings")),
                        ==, 0);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/probe-file/round-trip", test_round_trip);
    g_test_add_func("/probe-file/refused", test_refused);
    g_test_add_func("/probe-file/apply", test_apply);
    g_test_add_func("/probe-file/ignored", test_ignored);
    g_test_add_func("/probe-file/measure-live", test_measure_live);
    g_test_add_func("/probe-file/vnumactl-probe", test_cli);
    return g_test_run();
}
