/* test-load-file.c: vn_load_read_file() on the files of tests/data/load. */
#include "vn-load-file.h"
#include "vn-test-fixture.h"

/* vn_test_topology_new()'s host, a load of it and the file read into it. */
typedef struct {
    VnTopology *t;
    VnLoad *load;
    gchar *path;
} Fixture;

static void
fixture_setup(Fixture *f, gconstpointer data)
{
    f->t = vn_test_topology_new();
    f->load = vn_load_new(f->t);
}

static void
fixture_teardown(Fixture *f, gconstpointer data)
{
    vn_load_free(f->load);
    vn_topology_free(f->t);
    g_free(f->path);
}

/* vn_load_read_file() of tests/data/load/`file` into f->load. */
static gboolean
read_into(Fixture *f, const gchar *file, GError **error)
{
    f->path = vn_test_data_path("load", file, NULL);
    return vn_load_read_file(f->path, f->t, f->load, error);
}

static void
test_load_good(Fixture *f, gconstpointer data)
{
    VnLoad *load = f->load;
    g_autoptr(GError) error = NULL;

    /* what a ledger put there first is added to, not replaced */
    load->nodes[0].committed_vcpus = 3;
    load->nodes[1].cpu_busy = 0.5;
    g_assert_true(read_into(f, "two-node.json", &error));
    g_assert_no_error(error);

    g_assert_cmpuint(load->nodes[0].committed_vcpus, ==, 15);
    g_assert_cmpuint(load->nodes[0].committed_high_vcpus, ==, 0);
    g_assert_cmpuint(load->nodes[0].committed_memory_kib, ==, 8192 * 1024);
    g_assert_cmpfloat_with_epsilon(load->nodes[0].cpu_busy, 0.35, 1e-12);

    g_assert_cmpuint(load->nodes[1].committed_vcpus, ==, 2);
    g_assert_cmpuint(load->nodes[1].committed_high_vcpus, ==, 2);
    g_assert_cmpuint(load->nodes[1].committed_memory_kib, ==, 2048 * 1024);
    g_assert_cmpfloat_with_epsilon(load->nodes[1].cpu_busy, 0.5, 1e-12);

    /* node id 3 is the third node (index 2) */
    g_assert_cmpuint(load->nodes[2].committed_vcpus, ==, 0);
    g_assert_cmpuint(load->nodes[2].committed_memory_kib, ==, 1024 * 1024);
    g_assert_cmpfloat(load->nodes[2].cpu_busy, ==, 0.0);

    g_assert_cmpuint(vn_bitmap_count(load->dedicated_cpus), ==, 2);
    g_assert_true(vn_bitmap_test(load->dedicated_cpus, 6));
    g_assert_true(vn_bitmap_test(load->dedicated_cpus, 7));
}

static void
test_load_empty(Fixture *f, gconstpointer data)
{
    VnLoad *load = f->load;
    g_autoptr(GError) error = NULL;

    g_assert_true(read_into(f, "empty.json", &error));
    g_assert_no_error(error);
    for (guint i = 0; i < load->n_nodes; i++) {
        g_assert_cmpuint(load->nodes[i].committed_vcpus, ==, 0);
        g_assert_cmpfloat(load->nodes[i].cpu_busy, <, 0.0);
    }
    g_assert_true(vn_bitmap_is_empty(load->dedicated_cpus));
}

typedef struct {
    const gchar *file;
    gint code;
    const gchar *message; /* after "<path>: "; NULL: not pinned */
} BadLoadCase;

static const BadLoadCase bad_cases[] = {
    { "bad-unknown-node.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].id: no node 2 in this topology" },
    { "bad-duplicate-node.json", VN_LOAD_FILE_ERROR_INVALID, "nodes[1].id: node 0 listed twice" },
    { "bad-negative.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].committed_vcpus: must not be negative" },
    { "bad-type.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].committed_vcpus: expected a whole number" },
    { "bad-absurd-memory.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].committed_memory_mib: value is absurdly large" },
    { "bad-fraction-vcpus.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].committed_vcpus: expected a whole number" },
    { "bad-busy-percent.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].cpu_busy: must be a fraction between 0 and 1" },
    { "bad-unknown-field.json", VN_LOAD_FILE_ERROR_INVALID,
      "nodes[0].committed_vcpu: unknown field" },
    { "bad-missing-id.json", VN_LOAD_FILE_ERROR_INVALID, "nodes[0]: missing \"id\"" },
    { "bad-unknown-top.json", VN_LOAD_FILE_ERROR_INVALID, "node: unknown field" },
    { "bad-nodes-object.json", VN_LOAD_FILE_ERROR_INVALID, "nodes: expected an array" },
    { "bad-node-number.json", VN_LOAD_FILE_ERROR_INVALID, "nodes[0]: expected an object" },
    { "bad-dedicated-range.json", VN_LOAD_FILE_ERROR_INVALID, NULL },
    { "bad-dedicated-type.json", VN_LOAD_FILE_ERROR_INVALID,
      "dedicated_cpus: expected a cpulist string such as \"4-7\"" },
    { "bad-root-array.json", VN_LOAD_FILE_ERROR_INVALID,
      "expected a JSON object {\"nodes\": [...]}" },
    { "bad-syntax.json", VN_LOAD_FILE_ERROR_READ, NULL },
    { "bad-duplicate-member.json", VN_LOAD_FILE_ERROR_READ,
      "member \"committed_vcpus\" given twice in one object, line 1" },
    { "bad-trailing.json", VN_LOAD_FILE_ERROR_READ,
      "trailing data after the JSON value at byte offset 45, line 2" },
    { "no-such-file.json", VN_LOAD_FILE_ERROR_READ, NULL },
};

static void
test_load_bad(Fixture *f, gconstpointer data)
{
    const BadLoadCase *c = data;
    VnLoad *load = f->load;
    g_autoptr(GError) error = NULL;
    g_autofree gchar *prefix = NULL;

    load->nodes[0].committed_vcpus = 7;
    g_assert_false(read_into(f, c->file, &error));
    prefix = g_strdup_printf("%s: ", f->path);
    g_assert_error(error, VN_LOAD_FILE_ERROR, c->code);
    g_test_message("%s", error->message);
    g_assert_true(g_str_has_prefix(error->message, prefix));
    g_assert_null(strchr(error->message, '\n'));
    if (c->message)
        g_assert_cmpstr(error->message + strlen(prefix), ==, c->message);
    /* a rejected file changes nothing */
    g_assert_cmpuint(load->nodes[0].committed_vcpus, ==, 7);
    g_assert_true(vn_bitmap_is_empty(load->dedicated_cpus));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add("/plugin/load-file/good", Fixture, NULL, fixture_setup, test_load_good,
               fixture_teardown);
    g_test_add("/plugin/load-file/empty", Fixture, NULL, fixture_setup, test_load_empty,
               fixture_teardown);
    for (gsize i = 0; i < G_N_ELEMENTS(bad_cases); i++) {
        g_autofree gchar *name = g_strdup_printf("/plugin/load-file/bad/%s", bad_cases[i].file);
        g_test_add(name, Fixture, &bad_cases[i], fixture_setup, test_load_bad, fixture_teardown);
    }
    return g_test_run();
}
