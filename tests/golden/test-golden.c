/* test-golden.c: domain in, topology (+ load, options) -> rewritten domain.
 *
 * Every directory under tests/golden/ is a case:
 *   domain.xml     the input domain, or
 *   domain         one line: its path relative to the source root (cases
 *                  that place an xml-templates/ example or a fixture)
 *   topology       one line: "hwloc-xml PATH" | "synthetic DESC" |
 *                  "capabilities PATH" (PATH relative to the source root)
 *   load.json      optional committed load (vnumactl --load format)
 *   options        optional key file, group [write]: force=true,
 *                  memory-mode=strict, sysroot=PATH (source-root relative)
 *   vnuma.conf     optional host policy ([host], [placement]) in place of
 *                  the defaults
 *   placement.xml  optional <vnuma:vnuma> with a placement to write as is
 *                  (tests the writer without vn_plan)
 *   expected.xml   the rewritten domain, or
 *   expected.err   the one-line error (plus the planner's reasons)
 * VN_TEST_REGENERATE=1 rewrites expected.* from the current output.
 * Every output is validated against libvirt's schema, must be defined by
 * libvirt's own parser (test driver, in-process) and must be stable:
 * placing the output again gives the same bytes.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include "vn-config.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-load-file.h"
#include "vn-topology-source.h"
#include "vn-xml-file.h"
#include "vn-test-files.h"
#include "vn-test-plan.h"
#include "vn-test-schema.h"

#define GOLDEN_TIME "2026-11-29T22:00:00Z"

typedef struct {
    gchar *dir;
    VnTestHost h; /* topology, load (load.json when there is one), default policy */
    VnDomainWriteOptions o;
    gchar *sysroot;
    VnDomainMetadata *placement; /* from placement.xml, or NULL */
} Case;

static void
case_free(Case *c)
{
    g_free(c->dir);
    vn_test_host_clear(&c->h);
    g_free(c->sysroot);
    vn_domain_metadata_free(c->placement);
    g_free(c);
}
G_DEFINE_AUTOPTR_CLEANUP_FUNC(Case, case_free)

static gchar *
source_path(const gchar *rel)
{
    return g_build_filename(g_getenv("VN_SOURCE_ROOT"), rel, NULL);
}

static VnTopology *
load_topology(const gchar *dir)
{
    g_autofree gchar *file = g_build_filename(dir, "topology", NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GError) error = NULL;
    g_auto(GStrv) parts = NULL;
    g_autofree gchar *path = NULL;
    VnTopology *t = NULL;

    g_assert_true(g_file_get_contents(file, &text, NULL, &error));
    parts = g_strsplit(g_strstrip(text), " ", 2);
    g_assert_nonnull(parts[0]);
    g_assert_nonnull(parts[1]);
    path = source_path(parts[1]);
    if (g_str_equal(parts[0], "hwloc-xml"))
        t = vn_topology_load_hwloc_xml(path, &error);
    else if (g_str_equal(parts[0], "capabilities"))
        t = vn_topology_load_capabilities(path, &error);
    else if (g_str_equal(parts[0], "synthetic"))
        t = vn_topology_load_synthetic(parts[1], &error);
    else
        g_error("%s: unknown topology kind '%s'", file, parts[0]);
    g_assert_no_error(error);
    return t;
}

static void
load_options(Case *c)
{
    g_autofree gchar *file = g_build_filename(c->dir, "options", NULL);
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) error = NULL;
    g_autofree gchar *mode = NULL;
    g_autofree gchar *sysroot = NULL;

    c->o.memory_mode = VN_MEMORY_MODE_AUTO; /* the product default */
    c->o.time = GOLDEN_TIME;
    if (!g_file_test(file, G_FILE_TEST_EXISTS))
        return;
    g_assert_true(g_key_file_load_from_file(kf, file, G_KEY_FILE_NONE, &error));
    c->o.force = g_key_file_get_boolean(kf, "write", "force", NULL);
    mode = g_key_file_get_string(kf, "write", "memory-mode", NULL);
    if (mode)
        c->o.memory_mode = (VnMemoryMode)vn_memory_mode_from_string(mode);
    sysroot = g_key_file_get_string(kf, "write", "sysroot", NULL);
    if (sysroot)
        c->sysroot = source_path(sysroot);
}

/* The case's vnuma.conf, when there is one, sets the host policy. */
static void
load_config(Case *c)
{
    g_autofree gchar *file = g_build_filename(c->dir, "vnuma.conf", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) config = NULL;

    if (!g_file_test(file, G_FILE_TEST_EXISTS))
        return;
    config = vn_config_load(file, c->h.t, &error);
    g_assert_no_error(error);
    vn_policy_free(c->h.policy);
    c->h.policy = g_steal_pointer(&config->policy);
}

static VnDomainMetadata *
load_placement(const gchar *dir)
{
    g_autofree gchar *file = g_build_filename(dir, "placement.xml", NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(xmlDoc) doc = NULL;
    VnDomainMetadata *m;

    if (!g_file_test(file, G_FILE_TEST_EXISTS))
        return NULL;
    doc = vn_xml_file_read(file, &error);
    g_assert_no_error(error);
    m = vn_domain_metadata_parse(xmlDocGetRootElement(doc), file, &error);
    g_assert_no_error(error);
    return m;
}

static Case *
case_new(const gchar *dir)
{
    g_autoptr(Case) c = g_new0(Case, 1);
    g_autofree gchar *load = g_build_filename(dir, "load.json", NULL);
    g_autoptr(GError) error = NULL;

    c->dir = g_strdup(dir);
    vn_test_host_init(&c->h, load_topology(dir));
    if (g_file_test(load, G_FILE_TEST_EXISTS))
        g_assert_true(vn_load_read_file(load, c->h.t, c->h.load, &error));
    g_assert_no_error(error);
    load_config(c);
    load_options(c);
    c->placement = load_placement(dir);
    return g_steal_pointer(&c);
}

/* Places `d`; returns FALSE with the error text (and reasons) in *ret_err. */
static gboolean
place(Case *c, VnDomain *d, gchar **ret_err)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) reasons = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GString) err = NULL;

    if (c->placement) {
        p = vn_domain_metadata_to_placement(c->placement, c->h.t, &error);
        g_assert_no_error(error);
        if (vn_domain_apply_placement(d, c->h.t, p, &c->o, &error))
            return TRUE;
    } else {
        const VnEngineHost host = {
            .t = c->h.t, .load = c->h.load, .policy = c->h.policy, .sysroot = c->sysroot
        };
        g_auto(VnEngineResult) res = { 0 };
        if (vn_engine_run(d, &host, VN_ENGINE_PLAN, &c->o, &res, &error))
            return TRUE;
        reasons = g_steal_pointer(&res.reasons);
    }
    err = g_string_new(error->message);
    g_string_append_c(err, '\n');
    for (guint i = 0; reasons && i < reasons->len; i++)
        g_string_append_printf(err, "  %s\n", (const gchar *)reasons->pdata[i]);
    *ret_err = g_string_free(g_steal_pointer(&err), FALSE);
    return FALSE;
}

static void
compare(const gchar *dir, const gchar *name, const gchar *actual, const gchar *other)
{
    g_autofree gchar *path = g_build_filename(dir, name, NULL);
    g_autofree gchar *stale = g_build_filename(dir, other, NULL);
    g_autofree gchar *expected = NULL;
    g_autoptr(GError) error = NULL;

    if (g_strcmp0(g_getenv("VN_TEST_REGENERATE"), "1") == 0) {
        g_assert_true(g_file_set_contents(path, actual, -1, &error));
        g_unlink(stale);
        return;
    }
    if (!g_file_get_contents(path, &expected, NULL, NULL))
        g_error("%s: missing (run with VN_TEST_REGENERATE=1); output was:\n%s", path, actual);
    if (g_strcmp0(expected, actual) != 0)
        g_error("%s differs; output was:\n%s", path, actual);
}

static void
check_valid(const gchar *xml)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(xmlDoc) doc = vn_xml_file_parse("output", xml, strlen(xml), &error);
    g_autofree gchar *why = NULL;
    g_autofree gchar *out = NULL;

    g_assert_no_error(error);
    if (vn_test_schema_available() && !vn_test_schema_validate(doc, &why))
        g_error("output is not schema-valid (%s):\n%s", why, xml);
    if (vn_test_virt_xml_validate(xml, &out) > 0)
        g_error("virt-xml-validate rejects the output: %s\n%s", out, xml);
    if (!vn_test_libvirt_accepts(xml, &why))
        g_error("libvirt's parser rejects the output: %s\n%s", why, xml);
}

static gchar *
domain_path(const gchar *dir)
{
    g_autofree gchar *link = g_build_filename(dir, "domain", NULL);
    g_autofree gchar *text = NULL;

    if (!g_file_get_contents(link, &text, NULL, NULL))
        return g_build_filename(dir, "domain.xml", NULL);
    return source_path(g_strstrip(text));
}

static void
run_case(gconstpointer data)
{
    g_autoptr(Case) c = case_new(data);
    g_autofree gchar *input = domain_path(c->dir);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = vn_domain_load_file(input, &error);
    g_autoptr(VnDomain) again = NULL;
    g_autofree gchar *err = NULL;
    g_autofree gchar *out = NULL;
    g_autofree gchar *out2 = NULL;

    g_assert_no_error(error);
    if (!place(c, d, &err)) {
        compare(c->dir, "expected.err", err, "expected.xml");
        return;
    }
    out = vn_domain_to_string(d);
    compare(c->dir, "expected.xml", out, "expected.err");
    check_valid(out);
    /* stable: the output placed again is the same bytes */
    again = vn_domain_load_buffer(out, strlen(out), "output", &error);
    g_assert_no_error(error);
    c->o.force = FALSE;
    if (!place(c, again, &err))
        g_error("placing the output again failed: %s", err);
    out2 = vn_domain_to_string(again);
    g_assert_cmpstr(out, ==, out2);
}

int
main(int argc, char **argv)
{
    const gchar *here = g_getenv("VN_SOURCE_ROOT");
    g_autofree gchar *root = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    g_autoptr(GPtrArray) names = g_ptr_array_new_with_free_func(g_free);

    g_test_init(&argc, &argv, NULL);
    if (!here) {
        g_printerr("VN_SOURCE_ROOT is not set\n");
        return 77;
    }
    root = g_build_filename(here, "tests", "golden", NULL);
    entries = vn_test_dir_names(root, NULL);
    for (guint i = 0; i < entries->len; i++) {
        const gchar *name = entries->pdata[i];
        g_autofree gchar *path = g_build_filename(root, name, "domain.xml", NULL);
        g_autofree gchar *link = g_build_filename(root, name, "domain", NULL);
        if (g_file_test(path, G_FILE_TEST_IS_REGULAR) || g_file_test(link, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(names, g_strdup(name));
    }
    for (guint i = 0; i < names->len; i++) {
        g_autofree gchar *test = g_strdup_printf("/golden/%s", (gchar *)names->pdata[i]);
        gchar *case_dir = g_build_filename(root, names->pdata[i], NULL);
        g_test_add_data_func_full(test, case_dir, run_case, g_free);
    }
    return g_test_run();
}
