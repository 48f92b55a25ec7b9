/* test-corpus.c: every libvirt domain input of $VN_CORPUS/libvirt-domains
 * (INDEX.tsv) placed on a real 4-node host (Dell R910, 4 x 10 cores, with
 * hugepage pools added).
 *
 * Placeable: the output is schema-valid when the input was, is accepted
 * by libvirt's own parser when the input was (test driver), keeps every
 * part vnuma does not own (canonical XML of both with vnuma's parts
 * stripped is equal) and placing it again gives the same bytes.
 * Hand-written pins are refused with a reason first, then placed with
 * force.  Unplaceable: a one-line reason, never a crash.
 */
#include <glib.h>
#include <libxml/c14n.h>
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-plan.h"
#include "vn-topology-source.h"
#include "vn-xml-file.h"
#include "vn-test-schema.h"

typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnPolicy *policy;
    guint placed, forced, refused, unplaceable, unreadable;
} Corpus;

static Corpus corpus;

typedef struct {
    gchar *path;
    gboolean valid; /* xmllint_domain_rng column */
} Entry;

static void
entry_free(gpointer p)
{
    Entry *e = p;
    g_free(e->path);
    g_free(e);
}

static gboolean
is_blank(xmlNode *n)
{
    return n->type == XML_TEXT_NODE && xmlIsBlankNode(n);
}

static xmlNode *
child(xmlNode *parent, const gchar *name)
{
    for (xmlNode *n = parent ? parent->children : NULL; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && !n->ns && xmlStrEqual(n->name, BAD_CAST name))
            return n;
    return NULL;
}

static void
drop(xmlNode *n)
{
    if (n) {
        xmlUnlinkNode(n);
        xmlFreeNode(n);
    }
}

static void
drop_children(xmlNode *parent, const gchar *const *names, const gchar *ns)
{
    xmlNode *n = parent ? parent->children : NULL;

    while (n) {
        xmlNode *next = n->next;
        gboolean ns_match = ns ? n->ns && xmlStrEqual(n->ns->href, BAD_CAST ns) : !n->ns;
        if (n->type == XML_ELEMENT_NODE && ns_match &&
            g_strv_contains(names, (const gchar *)n->name))
            drop(n);
        n = next;
    }
}

static void
drop_blanks(xmlNode *node)
{
    xmlNode *n = node->children;

    while (n) {
        xmlNode *next = n->next;
        if (is_blank(n))
            drop(n);
        else if (n->type == XML_ELEMENT_NODE)
            drop_blanks(n);
        n = next;
    }
}

static void
drop_if_empty(xmlNode *n)
{
    if (n && !n->properties && !n->children)
        drop(n);
}

/* Removes what vnuma owns.  `cells_too`: the guest cells were replaced. */
static void
strip_owned(xmlDoc *doc, gboolean cells_too)
{
    xmlNode *root = xmlDocGetRootElement(doc);
    xmlNode *cpu, *numa;

    drop_blanks(root);
    xmlUnsetProp(child(root, "vcpu"), BAD_CAST "placement");
    xmlUnsetProp(child(root, "vcpu"), BAD_CAST "cpuset");
    drop_children(child(root, "cputune"),
                  (const gchar *const[]){ "vcpupin", "emulatorpin", "iothreadpin", NULL }, NULL);
    drop_if_empty(child(root, "cputune"));
    drop(child(root, "numatune"));
    drop_children(child(root, "memoryBacking"), (const gchar *const[]){ "hugepages", NULL }, NULL);
    drop_if_empty(child(root, "memoryBacking"));
    drop_children(child(root, "metadata"), (const gchar *const[]){ "vnuma", NULL },
                  VN_DOMAIN_XMLNS);
    drop_if_empty(child(root, "metadata"));
    cpu = child(root, "cpu");
    drop(child(cpu, "topology"));
    numa = child(cpu, "numa");
    if (cells_too)
        drop(numa);
    for (xmlNode *c = numa && !cells_too ? numa->children : NULL; c; c = c->next)
        drop(child(c, "distances"));
    drop_if_empty(cpu);
}

static gchar *
canonical(const gchar *xml, gboolean cells_too)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(xmlDoc) doc = vn_xml_file_parse("c14n", xml, strlen(xml), &error);
    xmlChar *out = NULL;
    gchar *ret;

    g_assert_no_error(error);
    strip_owned(doc, cells_too);
    g_assert_cmpint(xmlC14NDocDumpMemory(doc, NULL, XML_C14N_1_0, NULL, 1, &out), >=, 0);
    ret = g_strdup((const gchar *)out);
    xmlFree(out);
    return ret;
}

/* Whether vnuma wrote the guest cells: replaced the input's, or gave a
 * VM without any its own (split over nodes). */
static gboolean
cells_replaced(const VnDomain *before, const VnDomain *after)
{
    if (before->cells->len == 0)
        return after->cells->len > 0;
    if (before->cells->len != after->cells->len)
        return TRUE;
    for (guint i = 0; i < before->cells->len; i++) {
        const VnDomainCell *a = &g_array_index(before->cells, VnDomainCell, i);
        const VnDomainCell *b = &g_array_index(after->cells, VnDomainCell, i);
        if (a->memory_kib != b->memory_kib || !vn_bitmap_equal(a->vcpus, b->vcpus))
            return TRUE;
    }
    return FALSE;
}

static VnPlacement *
try_place(VnDomain *d, gboolean force, GError **error)
{
    VnDomainWriteOptions o = { .force = force,
                               .memory_mode = VN_MEMORY_MODE_AUTO,
                               .time = "2026-11-29T22:00:00Z" };
    const VnEngineHost host = { .t = corpus.t, .load = corpus.load, .policy = corpus.policy };
    g_auto(VnEngineResult) res = { 0 };

    if (!vn_engine_run(d, &host, VN_ENGINE_PLAN, &o, &res, error))
        return NULL;
    return g_steal_pointer(&res.placement);
}

static void
check_placed(const Entry *e, const gchar *input, VnDomain *before, VnDomain *d)
{
    g_autofree gchar *out = vn_domain_to_string(d);
    g_autofree gchar *a = NULL, *b = NULL, *out2 = NULL, *why = NULL, *why2 = NULL;
    gboolean cells_too = cells_replaced(before, d);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) again = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(xmlDoc) doc = vn_xml_file_parse("output", out, strlen(out), &error);

    g_assert_no_error(error);
    if (e->valid && vn_test_schema_available() && !vn_test_schema_validate(doc, &why))
        g_error("%s: output not schema-valid (%s):\n%s", e->path, why, out);
    /* what libvirt's parser took before vnuma, it takes after */
    if (vn_test_libvirt_accepts(input, NULL) && !vn_test_libvirt_accepts(out, &why2))
        g_error("%s: libvirt accepts the input, not the output: %s\n%s", e->path, why2, out);
    a = canonical(input, cells_too);
    b = canonical(out, cells_too);
    if (g_strcmp0(a, b) != 0)
        g_error("%s: a part vnuma does not own changed:\n--- in\n%s\n--- out\n%s", e->path, a, b);
    again = vn_domain_load_buffer(out, strlen(out), "output", &error);
    g_assert_no_error(error);
    p = try_place(again, FALSE, &error);
    if (!p)
        g_error("%s: placing the output again: %s", e->path, error->message);
    out2 = vn_domain_to_string(again);
    g_assert_cmpstr(out, ==, out2);
}

static void
assert_reason(const Entry *e, const GError *error)
{
    g_assert_nonnull(error);
    g_assert_nonnull(error->message);
    g_assert_cmpuint(strlen(error->message), >, 10);
    if (strchr(error->message, '\n'))
        g_error("%s: reason is not one line: %s", e->path, error->message);
    g_test_message("%s: %s", e->path, error->message);
}

static void
run_entry(gconstpointer data)
{
    const Entry *e = data;
    g_autofree gchar *input = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;
    g_autoptr(VnDomain) before = NULL;
    g_autoptr(VnPlacement) p = NULL;

    g_assert_true(g_file_get_contents(e->path, &input, NULL, NULL));
    d = vn_domain_load_file(e->path, &error);
    if (!d) {
        assert_reason(e, error);
        corpus.unreadable++;
        return;
    }
    before = vn_domain_load_file(e->path, NULL);
    p = try_place(d, FALSE, &error);
    if (!p && (g_error_matches(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN) ||
               g_error_matches(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH))) {
        assert_reason(e, error);
        corpus.refused++;
        g_clear_error(&error);
        p = try_place(d, TRUE, &error);
        corpus.forced += p != NULL;
    }
    if (!p) {
        assert_reason(e, error);
        corpus.unplaceable++;
        return;
    }
    corpus.placed++;
    check_placed(e, input, before, d);
}

/* Every corpus file cut short or with a byte changed, at seeded random
 * places: it loads or fails with one line, and a loaded one is placed or
 * refused with one line -- never a crash (ASan and valgrind run this). */
static void
run_mutations(gconstpointer data)
{
    const GPtrArray *entries = data;
    GRand *rand = g_rand_new_with_seed(4);
    guint loaded = 0, refused = 0;

    for (guint i = 0; i < entries->len; i++) {
        const Entry *e = entries->pdata[i];
        g_autofree gchar *text = NULL;
        gsize len;

        g_assert_true(g_file_get_contents(e->path, &text, &len, NULL));
        for (guint m = 0; m < 8 && len > 1; m++) {
            g_autofree gchar *copy = g_memdup2(text, len);
            gsize at = (gsize)g_rand_int_range(rand, 0, (gint32)len);
            gsize cut = m % 2 ? at : len;
            g_autoptr(GError) error = NULL;
            g_autoptr(VnDomain) d = NULL;
            g_autoptr(VnPlacement) p = NULL;

            if (m % 2 == 0)
                copy[at] = (gchar) "<>&'\"=/ x9\0"[g_rand_int_range(rand, 0, 11)];
            d = vn_domain_load_buffer(copy, cut, e->path, &error);
            if (!d) {
                g_assert_null(strchr(error->message, '\n'));
                refused++;
                continue;
            }
            loaded++;
            p = try_place(d, TRUE, &error);
            if (!p)
                g_assert_null(strchr(error->message, '\n'));
        }
    }
    g_rand_free(rand);
    g_test_message("%u mutated documents loaded, %u refused with one line", loaded, refused);
    g_assert_cmpuint(loaded + refused, >, 8 * entries->len / 2);
}

static GPtrArray *
read_index(const gchar *dir)
{
    g_autofree gchar *index = g_build_filename(dir, "INDEX.tsv", NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    GPtrArray *entries = g_ptr_array_new_with_free_func(entry_free);

    if (!g_file_get_contents(index, &text, NULL, NULL))
        return entries;
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 1; lines[i]; i++) {
        g_auto(GStrv) f = g_strsplit(lines[i], "\t", -1);
        Entry *e;
        if (g_strv_length(f) < 7 || !g_str_equal(f[2], "input"))
            continue;
        e = g_new0(Entry, 1);
        e->path = g_build_filename(dir, f[0], NULL);
        e->valid = g_str_equal(f[6], "valid");
        g_ptr_array_add(entries, e);
    }
    return entries;
}

static void
summary(void)
{
    g_test_message("placed %u (%u after refusing hand-written pins without --force), "
                   "refused %u, unplaceable %u, unreadable %u",
                   corpus.placed, corpus.forced, corpus.refused, corpus.unplaceable,
                   corpus.unreadable);
    /* most of libvirt's test domains are ordinary VMs: they must place */
    g_assert_cmpuint(corpus.placed, >, 2 * (corpus.unplaceable + corpus.unreadable));
}

int
main(int argc, char **argv)
{
    const gchar *root = g_getenv("VN_CORPUS");
    g_autofree gchar *dir = root ? g_build_filename(root, "libvirt-domains", NULL) : NULL;
    g_autofree gchar *topo = NULL;
    g_autoptr(GPtrArray) entries = NULL;
    g_autoptr(GError) error = NULL;

    g_test_init(&argc, &argv, NULL);
    entries = dir ? read_index(dir) : g_ptr_array_new();
    if (entries->len == 0) {
        /* TAP: a skip is an empty plan with a reason, exit 0 */
        g_print("1..0 # SKIP no corpus at $VN_CORPUS/libvirt-domains\n");
        return 0;
    }
    topo = g_build_filename(g_getenv("VN_TEST_DATA"), "hwloc", "40intel64-2g2n4c+pcilocality.xml",
                            NULL);
    corpus.t = vn_topology_load_hwloc_xml(topo, &error);
    g_assert_no_error(error);
    g_assert_cmpuint(corpus.t->n_nodes, ==, 4);
    /* hwloc XML has no hugepage pools: give each node 32 GiB of 2 MiB
     * pages and 16 x 1 GiB, as a host set up for hugepage VMs */
    for (guint i = 0; i < corpus.t->n_nodes; i++) {
        vn_topology_add_hugepages(corpus.t, i, 2048, 16384, 16384);
        vn_topology_add_hugepages(corpus.t, i, 1048576, 16, 16);
    }
    corpus.load = vn_load_new(corpus.t);
    corpus.policy = vn_policy_new_default(corpus.t);
    for (guint i = 0; i < entries->len; i++) {
        const Entry *e = entries->pdata[i];
        g_autofree gchar *name = g_strdup_printf("/corpus/%s", e->path + strlen(dir) + 1);
        g_test_add_data_func(name, e, run_entry);
    }
    g_test_add_func("/corpus-summary/all", summary);
    g_test_add_data_func("/corpus-mutations/all", entries, run_mutations);
    return g_test_run();
}
