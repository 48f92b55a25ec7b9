/* test-paths.c: one domain, three doors, one answer.
 *
 * Every domain of tests/golden/ (its domain.xml, or the file its `domain`
 * names) and every input of $VN_CORPUS/libvirt-domains goes through
 *   cli   the built `vnumactl plan DOMAIN.xml` (stdout: the rewritten XML;
 *         stderr: the refusal),
 *   api   POST /v1/plan {"domain_xml": ...} on a real vnumad over its unix
 *         socket (200: .xml; 400/409: .error),
 *   hook  the engine call the hook makes at prepare (vn_engine_run(),
 *         VN_ENGINE_START, the domain read as the hook names its stdin),
 *         its placement then written by the same writer: the hook binary
 *         itself never prints the XML at prepare (libvirt discards it),
 * on the same host (the 4-node Dell R910 of the corpus test, empty load,
 * empty config, an empty state directory, SOURCE_DATE_EPOCH fixed), and
 * must give byte-identical XML, or all three the same refusal (the
 * message with the input's own name, a path, "domain_xml" or "domain XML
 * on stdin", read as one).  Hand-written pins refused by all three go
 * through again with force; an output with several guest cells and
 * vnuma's record of them goes through again as input (the cell rule's
 * re-chosen case) and must come back unchanged from all three.
 */
#include <glib.h>
#include <glib/gstdio.h>
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <json-glib/json-glib.h>
#include <libsoup/soup.h>
#include <signal.h>
#include <string.h>
#include "vn-config.h"
#include "vn-test-files.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-topology-source.h"

#define EPOCH "1795903200"
#define HOOK_NAME "domain XML on stdin"

typedef struct {
    gchar *topology; /* hwloc XML path */
    gchar *config;   /* vnuma.conf path */
    gchar *state_dir;
    gchar *socket;
    gchar *vnumactl;
    GSubprocess *daemon;
    SoupSession *session;
    VnTopology *t;
    VnLoad *load;
    VnConfig *c;
    guint same_xml, same_refusal, forced, replaced;
} Paths;

static Paths paths;

/* The answer of one door: XML, or a refusal. */
typedef struct {
    gchar *xml;
    gchar *refusal;
} Answer;

static void
answer_clear(Answer *a)
{
    g_free(a->xml);
    g_free(a->refusal);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Answer, answer_clear)

/* `message` with the input's name read as "DOMAIN". */
static gchar *
unnamed(const gchar *message, const gchar *name)
{
    g_auto(GStrv) parts = g_strsplit(message, name, -1);

    return g_strjoinv("DOMAIN", parts);
}

static void
run_cli(const gchar *path, gboolean force, Answer *a)
{
    const gchar *argv[] = { paths.vnumactl,           "plan", path, "--topology", paths.topology,
                            force ? "--force" : NULL, NULL };
    g_autofree gchar *out = NULL, *err = NULL;
    g_autoptr(GError) error = NULL;
    gint status;
    const gchar *prefix = "vnumactl plan: ";

    g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_DEFAULT, NULL, NULL, &out, &err,
                               &status, &error));
    g_assert_no_error(error);
    if (g_spawn_check_wait_status(status, NULL)) {
        a->xml = g_steal_pointer(&out);
        return;
    }
    g_assert_true(g_str_has_prefix(err, prefix));
    if (strchr(err, '\n'))
        *strchr(err, '\n') = '\0';
    a->refusal = unnamed(err + strlen(prefix), path);
}

static JsonObject *
parse_object(GBytes *body, JsonParser *parser)
{
    g_autoptr(GError) error = NULL;
    gsize len;
    const gchar *text = g_bytes_get_data(body, &len);

    g_assert_true(json_parser_load_from_data(parser, text, (gssize)len, &error));
    g_assert_no_error(error);
    g_assert_true(JSON_NODE_HOLDS_OBJECT(json_parser_get_root(parser)));
    return json_node_get_object(json_parser_get_root(parser));
}

static void
run_api(const gchar *text, gboolean force, Answer *a)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(SoupMessage) msg = soup_message_new("POST", "http://vnumad/v1/plan");
    g_autoptr(GBytes) req = NULL, body = NULL;
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) error = NULL;
    gchar *json;
    JsonObject *o;
    guint status;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "domain_xml");
    json_builder_add_string_value(b, text);
    if (force) {
        json_builder_set_member_name(b, "force");
        json_builder_add_boolean_value(b, TRUE);
    }
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    json = json_generator_to_data(gen, NULL);
    req = g_bytes_new_take(json, strlen(json));
    soup_message_set_request_body_from_bytes(msg, "application/json", req);
    body = soup_session_send_and_read(paths.session, msg, NULL, &error);
    g_assert_no_error(error);
    status = soup_message_get_status(msg);
    o = parse_object(body, parser);
    if (status == SOUP_STATUS_OK) {
        a->xml = g_strdup(json_object_get_string_member(o, "xml"));
        return;
    }
    if (status != SOUP_STATUS_BAD_REQUEST && status != SOUP_STATUS_CONFLICT)
        g_error("POST /v1/plan: %u %s", status, (const gchar *)g_bytes_get_data(body, NULL));
    a->refusal = unnamed(json_object_get_string_member(o, "error"), "domain_xml");
}

/* The hook's prepare: the engine plans (START leaves the XML alone), the
 * placement is then written as every rewriting door writes it. */
static void
run_hook(const gchar *text, gboolean force, Answer *a)
{
    const VnEngineHost host = { .t = paths.t, .load = paths.load, .policy = paths.c->policy };
    VnDomainWriteOptions wo = { .force = force, .memory_mode = paths.c->memory_mode };
    g_auto(VnEngineResult) res = { 0 };
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = vn_domain_load_buffer(text, strlen(text), HOOK_NAME, &error);

    if (d && vn_engine_run(d, &host, VN_ENGINE_START, NULL, &res, &error) &&
        vn_domain_apply_placement(d, paths.t, res.placement, &wo, &error)) {
        a->xml = vn_domain_to_string(d);
        return;
    }
    g_assert_nonnull(error);
    a->refusal = unnamed(error->message, HOOK_NAME);
}

/* The three doors on one input; FALSE when they disagree.  *ret_xml: the
 * XML they agree on, or NULL for a refusal (then *ret_refusal). */
static gboolean
agree(const gchar *path, const gchar *text, gboolean force, gchar **ret_xml, gchar **ret_refusal)
{
    g_auto(Answer) cli = { 0 }, api = { 0 }, hook = { 0 };

    run_cli(path, force, &cli);
    run_api(text, force, &api);
    run_hook(text, force, &hook);
    if (cli.xml && api.xml && hook.xml && g_str_equal(cli.xml, api.xml) &&
        g_str_equal(cli.xml, hook.xml)) {
        *ret_xml = g_steal_pointer(&cli.xml);
        return TRUE;
    }
    if (cli.refusal && api.refusal && hook.refusal && g_str_equal(cli.refusal, api.refusal) &&
        g_str_equal(cli.refusal, hook.refusal)) {
        *ret_refusal = g_steal_pointer(&cli.refusal);
        return TRUE;
    }
    g_error("%s%s: the doors disagree\n--- cli\n%s\n--- api\n%s\n--- hook\n%s", path,
            force ? " (force)" : "", cli.xml ? cli.xml : cli.refusal,
            api.xml ? api.xml : api.refusal, hook.xml ? hook.xml : hook.refusal);
    return FALSE;
}

/* Several guest cells with vnuma's record of them: the cell rule's
 * "re-chosen" case, which the doors once answered differently. */
static gboolean
has_recorded_cells(const gchar *xml)
{
    return strstr(xml, "<vnuma:placement") && strstr(xml, "<vnuma:cell id='1'");
}

static void
run_domain(gconstpointer data)
{
    const gchar *path = data;
    g_autofree gchar *text = NULL, *xml = NULL, *refusal = NULL;

    g_assert_true(g_file_get_contents(path, &text, NULL, NULL));
    g_assert_true(agree(path, text, FALSE, &xml, &refusal));
    if (refusal && strstr(refusal, "is hand-written")) {
        /* hand-written pins: the same again with force */
        g_test_message("refused: %s; again with force", refusal);
        g_clear_pointer(&refusal, g_free);
        g_assert_true(agree(path, text, TRUE, &xml, &refusal));
        paths.forced++;
    }
    if (refusal) {
        g_test_message("refused: %s", refusal);
        paths.same_refusal++;
        return;
    }
    paths.same_xml++;
    if (has_recorded_cells(xml)) {
        /* placed again, as a placed domain is at its next start */
        g_autofree gchar *again = g_build_filename(paths.state_dir, "..", "again.xml", NULL);
        g_autofree gchar *xml2 = NULL, *refusal2 = NULL;
        g_assert_true(g_file_set_contents(again, xml, -1, NULL));
        g_assert_true(agree(again, xml, FALSE, &xml2, &refusal2));
        g_assert_null(refusal2);
        g_assert_cmpstr(xml2, ==, xml);
        g_unlink(again);
        paths.replaced++;
    }
}

/* ---- the host and the daemon --------------------------------------------- */

static gboolean
daemon_answers(void)
{
    g_autoptr(SoupMessage) msg = soup_message_new("GET", "http://vnumad/v1/host");
    g_autoptr(GBytes) body = soup_session_send_and_read(paths.session, msg, NULL, NULL);

    return body && soup_message_get_status(msg) == SOUP_STATUS_OK;
}

static void
start_daemon(void)
{
    g_autofree gchar *vnumad =
        g_build_filename(g_getenv("VN_BUILD_ROOT"), "daemon", "vnumad", NULL);
    g_autoptr(GSocketAddress) addr = g_unix_socket_address_new(paths.socket);
    g_autoptr(GError) error = NULL;
    g_autofree gchar *log = g_build_filename(paths.state_dir, "..", "vnumad.log", NULL);
    g_autoptr(GSubprocessLauncher) l = g_subprocess_launcher_new(G_SUBPROCESS_FLAGS_STDOUT_SILENCE);

    g_subprocess_launcher_set_stderr_file_path(l, log);
    paths.daemon = g_subprocess_launcher_spawn(l, &error, vnumad, "--foreground", "--socket",
                                               paths.socket, "--topology", paths.topology, NULL);
    g_assert_no_error(error);
    paths.session = soup_session_new_with_options("remote-connectable", addr, NULL);
    for (guint i = 0; i < 200 && !daemon_answers(); i++)
        g_usleep(50 * 1000);
    if (!daemon_answers()) {
        g_autofree gchar *text = NULL;
        g_file_get_contents(log, &text, NULL, NULL);
        g_error("vnumad did not answer on %s:\n%s", paths.socket, text ? text : "");
    }
}

static void
stop_daemon(void)
{
    g_autoptr(GError) error = NULL;

    g_subprocess_send_signal(paths.daemon, SIGTERM);
    g_assert_true(g_subprocess_wait(paths.daemon, NULL, &error));
    g_assert_no_error(error);
    g_assert_true(g_subprocess_get_if_exited(paths.daemon));
    g_assert_cmpint(g_subprocess_get_exit_status(paths.daemon), ==, 0);
}

static void
set_up_host(const gchar *tmp)
{
    g_autoptr(GError) error = NULL;

    paths.topology = g_build_filename(g_getenv("VN_TEST_DATA"), "hwloc",
                                      "40intel64-2g2n4c+pcilocality.xml", NULL);
    paths.config = g_build_filename(g_getenv("VN_TEST_DATA"), "config", "empty.conf", NULL);
    paths.state_dir = g_build_filename(tmp, "state", NULL);
    paths.socket = g_build_filename(tmp, "vnumad.sock", NULL);
    paths.vnumactl = g_build_filename(g_getenv("VN_BUILD_ROOT"), "tools", "vnumactl", NULL);
    g_assert_cmpint(g_mkdir(paths.state_dir, 0700), ==, 0);
    /* every door: the same config, the same (empty) ledger, the same clock */
    g_setenv("VNUMA_CONFIG", paths.config, TRUE);
    g_setenv("VNUMA_STATE_DIR", paths.state_dir, TRUE);
    g_setenv("SOURCE_DATE_EPOCH", EPOCH, TRUE);
    g_unsetenv("VNUMA_TOPOLOGY");
    g_unsetenv("VNUMA_LIBVIRT_RUN_DIR");
    paths.t = vn_topology_load_hwloc_xml(paths.topology, &error);
    g_assert_no_error(error);
    paths.c = vn_config_load(paths.config, paths.t, &error);
    g_assert_no_error(error);
    paths.load = vn_load_new(paths.t);
}

/* tests/golden/<case>/domain.xml, or the source-root path in <case>/domain. */
static void
add_golden(GPtrArray *domains)
{
    g_autofree gchar *root = g_build_filename(g_getenv("VN_SOURCE_ROOT"), "tests", "golden", NULL);
    g_autoptr(GPtrArray) names = vn_test_dir_names(root, NULL);

    for (guint i = 0; i < names->len; i++) {
        g_autofree gchar *xml = g_build_filename(root, names->pdata[i], "domain.xml", NULL);
        g_autofree gchar *ref = g_build_filename(root, names->pdata[i], "domain", NULL);
        g_autofree gchar *rel = NULL;
        if (g_file_test(xml, G_FILE_TEST_EXISTS)) {
            g_ptr_array_add(domains, g_steal_pointer(&xml));
        } else if (g_file_get_contents(ref, &rel, NULL, NULL)) {
            g_ptr_array_add(domains,
                            g_build_filename(g_getenv("VN_SOURCE_ROOT"), g_strstrip(rel), NULL));
        }
    }
}

/* $VN_CORPUS/libvirt-domains/INDEX.tsv: its inputs, as test-corpus.c
 * walks them. */
static void
add_corpus(GPtrArray *domains)
{
    const gchar *root = g_getenv("VN_CORPUS");
    g_autofree gchar *dir = root ? g_build_filename(root, "libvirt-domains", NULL) : NULL;
    g_autofree gchar *index = dir ? g_build_filename(dir, "INDEX.tsv", NULL) : NULL;
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;

    if (!index || !g_file_get_contents(index, &text, NULL, NULL))
        return;
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 1; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", -1);
        if (g_strv_length(f) >= 7 && g_str_equal(f[2], "input"))
            g_ptr_array_add(domains, g_build_filename(dir, f[0], NULL));
    }
}

static void
summary(gconstpointer data)
{
    const GPtrArray *domains = data;

    g_test_message("%u domains: %u the same XML from all three (%u after the same refusal "
                   "of hand-written pins, with force; %u with recorded cells placed again, "
                   "unchanged), %u the same refusal",
                   domains->len, paths.same_xml, paths.forced, paths.replaced, paths.same_refusal);
    g_assert_cmpuint(paths.same_xml + paths.same_refusal, ==, domains->len);
    /* most are ordinary VMs: they place */
    g_assert_cmpuint(paths.same_xml, >, 2 * paths.same_refusal);
}

int
main(int argc, char **argv)
{
    g_autoptr(GPtrArray) all = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) domains = g_ptr_array_new();
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    g_autofree gchar *tmp = NULL;
    g_autofree gchar *golden_root = NULL;
    int rc;

    g_test_init(&argc, &argv, NULL);
    if (!g_getenv("VN_BUILD_ROOT") || !g_getenv("VN_TEST_DATA") || !g_getenv("VN_SOURCE_ROOT")) {
        g_print("1..0 # SKIP run through meson test\n");
        return 0;
    }
    tmp = g_dir_make_tmp("vn-paths-XXXXXX", NULL);
    g_assert_nonnull(tmp);
    set_up_host(tmp);
    add_golden(all);
    add_corpus(all);
    /* several golden cases place one template under other options */
    for (guint i = 0; i < all->len; i++)
        if (g_hash_table_add(seen, all->pdata[i]))
            g_ptr_array_add(domains, all->pdata[i]);
    golden_root = g_build_filename(g_getenv("VN_SOURCE_ROOT"), "", NULL);
    for (guint i = 0; i < domains->len; i++) {
        const gchar *p = domains->pdata[i];
        const gchar *corpus = g_getenv("VN_CORPUS");
        const gchar *rel = corpus && g_str_has_prefix(p, corpus) ? p + strlen(corpus)
                           : g_str_has_prefix(p, golden_root)    ? p + strlen(golden_root)
                                                                 : p;
        g_autofree gchar *name = g_strdup_printf("/paths/%s", rel[0] == '/' ? rel + 1 : rel);
        g_test_add_data_func(name, p, run_domain);
    }
    g_test_add_data_func("/paths-summary/all", domains, summary);
    start_daemon();
    rc = g_test_run();
    stop_daemon();
    g_object_unref(paths.session);
    g_object_unref(paths.daemon);
    vn_topology_free(paths.t);
    vn_load_free(paths.load);
    vn_config_free(paths.c);
    {
        g_autofree gchar *log = g_build_filename(tmp, "vnumad.log", NULL);
        g_unlink(log);
        g_unlink(paths.socket);
        g_rmdir(paths.state_dir);
        g_rmdir(tmp);
    }
    g_free(paths.topology);
    g_free(paths.config);
    g_free(paths.state_dir);
    g_free(paths.socket);
    g_free(paths.vnumactl);
    return rc;
}
