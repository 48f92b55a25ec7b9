/* vn-fuzz.c: the fuzz targets' shared fixtures and checks. */
#include "vn-fuzz.h"

#include <glib/gstdio.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "vn-config-build.h"
#include "vn-plan.h"
#include "vn-topology-json.h"
#include "vn-topology-source.h"

#define FIXTURE_TOPOLOGY "tests/data/hwloc/64amd64-4p2n4ca2co.xml"

static gchar *tmp_dir;
static GHashTable *tmp_paths; /* name -> path */
static VnTopology *fixture_topology;
static VnPolicy *fixture_policy;

static void
remove_tmp_dir(void)
{
    g_autoptr(GDir) dir = tmp_dir ? g_dir_open(tmp_dir, 0, NULL) : NULL;
    const gchar *name;

    while (dir && (name = g_dir_read_name(dir))) {
        g_autofree gchar *path = g_build_filename(tmp_dir, name, NULL);
        g_remove(path);
    }
    if (tmp_dir)
        g_rmdir(tmp_dir);
}

/* GLib stops a fatal message with SIGTRAP (G_BREAKPOINT), which libFuzzer
 * does not take for a crash: no reproducer would be written.  abort()
 * instead, after saying what it was. */
static GLogWriterOutput
abort_on_warning(GLogLevelFlags level, const GLogField *fields, gsize n_fields, gpointer data)
{
    g_log_writer_standard_streams(level, fields, n_fields, data);
    if (level & (G_LOG_LEVEL_ERROR | G_LOG_LEVEL_CRITICAL | G_LOG_LEVEL_WARNING))
        abort();
    return G_LOG_WRITER_HANDLED;
}

void
vn_fuzz_init(void)
{
    g_autoptr(GError) error = NULL;

    if (tmp_dir)
        return;
    g_log_set_writer_func(abort_on_warning, NULL, NULL);
    /* vnuma's ways to this host's files: none of them may be followed */
    g_unsetenv("VNUMA_CONFIG");
    g_unsetenv("VNUMA_STATE_DIR");
    g_unsetenv("VNUMA_TOPOLOGY");
    g_unsetenv("VNUMA_LIBVIRT_RUN_DIR");
    g_setenv("SOURCE_DATE_EPOCH", "1764451200", TRUE);
    tmp_dir = g_dir_make_tmp("vnuma-fuzz-XXXXXX", &error);
    if (!tmp_dir)
        vn_fuzz_fail("cannot make a temporary directory", error);
    atexit(remove_tmp_dir);
    tmp_paths = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    vn_fuzz_topology();
}

__attribute__((weak)) int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    return 0;
}

gchar *
vn_fuzz_text(const uint8_t *data, size_t size)
{
    return g_strndup((const gchar *)data, size);
}

const gchar *
vn_fuzz_dir(void)
{
    g_assert(tmp_dir != NULL);
    return tmp_dir;
}

const gchar *
vn_fuzz_write(const gchar *name, const uint8_t *data, size_t size)
{
    const gchar *path = g_hash_table_lookup(tmp_paths, name);
    FILE *f;

    if (!path) {
        path = g_build_filename(vn_fuzz_dir(), name, NULL);
        g_hash_table_insert(tmp_paths, g_strdup(name), (gpointer)path);
    }
    /* not g_file_set_contents: no fsync and rename per execution */
    f = fopen(path, "wb");
    if (!f || fwrite(data, 1, size, f) != size || fclose(f) != 0)
        vn_fuzz_fail("cannot write the input file", NULL);
    return path;
}

gchar *
vn_fuzz_source_path(const gchar *relative)
{
    return g_build_filename(VNUMA_SOURCE_ROOT, relative, NULL);
}

const VnTopology *
vn_fuzz_topology(void)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *path = NULL;

    if (fixture_topology)
        return fixture_topology;
    path = vn_fuzz_source_path(FIXTURE_TOPOLOGY);
    fixture_topology = vn_topology_load_hwloc_xml(path, &error);
    if (!fixture_topology)
        vn_fuzz_fail("cannot load the fixture topology", error);
    return fixture_topology;
}

const VnPolicy *
vn_fuzz_policy(void)
{
    if (!fixture_policy)
        fixture_policy = vn_policy_new_default(vn_fuzz_topology());
    return fixture_policy;
}

VnLoad *
vn_fuzz_load_new(void)
{
    return vn_load_new(vn_fuzz_topology());
}

void
vn_fuzz_fail(const gchar *what, const GError *error)
{
    /* a message that is not UTF-8 is shown with its bytes escaped */
    g_autofree gchar *shown = error && !g_utf8_validate(error->message, -1, NULL)
                                  ? g_strescape(error->message, NULL)
                                  : NULL;

    fprintf(stderr, "vn-fuzz: %s%s%s\n", what, error ? ": " : "",
            shown   ? shown
            : error ? error->message
                    : "");
    abort();
}

void
vn_fuzz_check(gboolean ok, const GError *error, const gchar *origin)
{
    if (ok && error)
        vn_fuzz_fail("succeeded but set an error", error);
    if (ok)
        return;
    if (!error)
        vn_fuzz_fail("failed without an error", NULL);
    if (!error->message || !*error->message)
        vn_fuzz_fail("failed with an empty message", NULL);
    if (!g_utf8_validate(error->message, -1, NULL))
        vn_fuzz_fail("failed with a message that is not UTF-8", error);
    if (strchr(error->message, '\n'))
        vn_fuzz_fail("failed with a message of several lines", error);
    if (origin && !strstr(error->message, origin))
        vn_fuzz_fail("failed with a message that does not name the input", error);
}

static void
plan_one(const VnTopology *t, const VnPolicy *p, guint vcpus, guint64 memory_kib, guint cells)
{
    g_autoptr(VnRequest) r = vn_request_new();
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(GPtrArray) reasons = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) placement = NULL;

    r->vcpus = vcpus;
    r->memory_kib = memory_kib;
    r->cells = cells;
    placement = vn_plan(t, load, p, r, &reasons, &error);
    vn_fuzz_check(placement != NULL, error, NULL);
}

void
vn_fuzz_use_topology(const VnTopology *t, const VnPolicy *policy)
{
    g_autoptr(VnPolicy) own = policy ? NULL : vn_policy_new_default(t);
    const VnPolicy *p = policy ? policy : own;

    json_node_unref(vn_topology_to_json(t, NULL));
    plan_one(t, p, 1, 512 * 1024, 0);
    plan_one(t, p, 4, 2 * 1024 * 1024, 2);
}

void
vn_fuzz_load_source(const VnSourceOptions *o, const gchar *origin)
{
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(GError) error = NULL;
    gboolean ok = vn_source_load(o, &t, NULL, NULL, &error);

    vn_fuzz_check(ok, error, origin);
    if (ok)
        vn_fuzz_use_topology(t, NULL);
}

static void
read_and_use(const gchar *input, const gchar *origin, VnFuzzReadFunc read, VnFuzzUseFunc use,
             GDestroyNotify free_func)
{
    g_autoptr(GError) error = NULL;
    gpointer value = read(input, origin, &error);

    vn_fuzz_check(value != NULL, error, origin);
    if (!value)
        return;
    use(value);
    free_func(value);
}

void
vn_fuzz_read_file(const gchar *name, const uint8_t *data, size_t size, VnFuzzReadFunc read,
                  VnFuzzUseFunc use, GDestroyNotify free_func)
{
    const gchar *path = vn_fuzz_write(name, data, size);

    read_and_use(path, path, read, use, free_func);
}

void
vn_fuzz_read_text(const gchar *name, const uint8_t *data, size_t size, VnFuzzReadFunc read,
                  VnFuzzUseFunc use, GDestroyNotify free_func)
{
    g_autofree gchar *text = vn_fuzz_text(data, size);

    read_and_use(text, name, read, use, free_func);
}
