/* vn-test-schema.c: validate domains against libvirt's schema (tests). */
#include "vn-test-schema.h"

#include <glib/gstdio.h>
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include <libxml/relaxng.h>
#include <unistd.h>

static xmlRelaxNG *schema;
static gboolean tried;

static void
collect_error(void *data, xmlError *e)
{
    GString *s = data;

    if (s->len == 0 && e && e->message)
        g_string_append_printf(s, "line %d: %s", e->line, g_strstrip(e->message));
}

static void
ignore_error(void *data, xmlError *e)
{
}

gboolean
vn_test_schema_available(void)
{
    const gchar *corpus = g_getenv("VN_CORPUS");
    g_autofree gchar *path = NULL;
    xmlRelaxNGParserCtxt *pc;

    if (tried)
        return schema != NULL;
    tried = TRUE;
    if (!corpus)
        return FALSE;
    path = g_build_filename(corpus, "libvirt-schemas", "domain.rng", NULL);
    if (!g_file_test(path, G_FILE_TEST_IS_REGULAR))
        return FALSE;
    pc = xmlRelaxNGNewParserCtxt(path);
    xmlRelaxNGSetParserStructuredErrors(pc, ignore_error, NULL);
    schema = xmlRelaxNGParse(pc);
    xmlRelaxNGFreeParserCtxt(pc);
    return schema != NULL;
}

gboolean
vn_test_schema_validate(xmlDoc *doc, gchar **ret_why)
{
    g_autoptr(GString) why = g_string_new(NULL);
    xmlRelaxNGValidCtxt *vc;
    int rc;

    g_assert_true(vn_test_schema_available());
    vc = xmlRelaxNGNewValidCtxt(schema);
    xmlRelaxNGSetValidStructuredErrors(vc, collect_error, why);
    rc = xmlRelaxNGValidateDoc(vc, doc);
    xmlRelaxNGFreeValidCtxt(vc);
    if (rc != 0 && ret_why)
        *ret_why = g_strdup(why->len ? why->str : "invalid");
    return rc == 0;
}

gint
vn_test_virt_xml_validate(const gchar *xml, gchar **ret_output)
{
    g_autofree gchar *tool = g_find_program_in_path("virt-xml-validate");
    g_autofree gchar *path = NULL;
    g_autofree gchar *out = NULL;
    g_autoptr(GError) error = NULL;
    gint fd, status = 0;

    if (!tool)
        return -1;
    fd = g_file_open_tmp("vn-test-XXXXXX.xml", &path, &error);
    g_assert_no_error(error);
    g_assert_true(g_file_set_contents(path, xml, -1, &error));
    close(fd);
    {
        const gchar *argv[] = { tool, path, "domain", NULL };
        g_assert_true(g_spawn_sync(NULL, (gchar **)argv, NULL, G_SPAWN_STDERR_TO_DEV_NULL, NULL,
                                   NULL, &out, NULL, &status, &error));
    }
    g_unlink(path);
    if (ret_output)
        *ret_output = g_steal_pointer(&out);
    return g_spawn_check_wait_status(status, NULL) ? 0 : 1;
}

static void
quiet(void *data, virErrorPtr e)
{
}

gboolean
vn_test_libvirt_accepts(const gchar *xml, gchar **ret_why)
{
    static virConnectPtr conn;
    virDomainPtr dom;

    if (!conn) {
        virSetErrorFunc(NULL, quiet);
        conn = virConnectOpen("test:///default");
        g_assert_nonnull(conn);
    }
    dom = virDomainDefineXML(conn, xml);
    if (!dom) {
        if (ret_why)
            *ret_why = g_strdup(virGetLastErrorMessage());
        return FALSE;
    }
    virDomainUndefine(dom);
    virDomainFree(dom);
    return TRUE;
}
