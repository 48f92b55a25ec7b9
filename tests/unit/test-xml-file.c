/* test-xml-file.c: the safe XML reader refuses what it promises to refuse. */
#include <glib.h>
#include <glib/gstdio.h>
#include <libxml/tree.h>
#include <string.h>

#include "vn-test-fixture.h"
#include "vn-xml-file.h"

typedef struct {
    gchar *dir;
} Tmp;

static void
tmp_setup(Tmp *tmp, gconstpointer data)
{
    tmp->dir = g_dir_make_tmp("vn-xml-XXXXXX", NULL);
    g_assert_nonnull(tmp->dir);
}

static void
tmp_teardown(Tmp *tmp, gconstpointer data)
{
    vn_test_remove_tree(tmp->dir);
    g_free(tmp->dir);
}

static gchar *
write_file(Tmp *tmp, const gchar *name, const gchar *text)
{
    gchar *path = g_build_filename(tmp->dir, name, NULL);

    g_assert_true(g_file_set_contents(path, text, -1, NULL));
    return path;
}

static void
test_well_formed(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *path = write_file(tmp, "ok.xml", "<a x='1'><b>text</b></a>\n");
    g_autoptr(GError) error = NULL;
    g_autoptr(xmlDoc) doc = vn_xml_file_read(path, &error);

    g_assert_no_error(error);
    g_assert_cmpstr((const gchar *)xmlDocGetRootElement(doc)->name, ==, "a");
}

static void
test_malformed_line(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *path = write_file(tmp, "bad.xml", "<a>\n<b>\n</c>\n</a>\n");
    g_autofree gchar *expect = g_strdup_printf("%s:3: malformed XML: ", path);
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_xml_file_read(path, &error));
    g_assert_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED);
    /* The first error (mismatched tag on line 3), not a later consequence. */
    g_assert_true(g_str_has_prefix(error->message, expect));
    g_assert_nonnull(strstr(error->message, "mismatch"));
    g_assert_null(strchr(error->message, '\n'));
}

/* libxml2 says this one on two lines ("...indicate encoding !\nBytes:
 * 0xE9 ..."); the message stays one (found by fuzz-domain-xml). */
static void
test_not_utf8_one_line(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *path = write_file(tmp, "latin1.xml", "<a>\n<b>caf\xe9 </b></a>\n");
    g_autofree gchar *expect = g_strdup_printf("%s:2: malformed XML: ", path);
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_xml_file_read(path, &error));
    g_assert_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED);
    g_assert_true(g_str_has_prefix(error->message, expect));
    g_assert_nonnull(strstr(error->message, "UTF-8"));
    g_assert_null(strchr(error->message, '\n'));
}

static void
test_empty_and_missing(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *empty = write_file(tmp, "empty.xml", "");
    g_autofree gchar *missing = g_build_filename(tmp->dir, "missing.xml", NULL);
    g_autoptr(GError) e1 = NULL;
    g_autoptr(GError) e2 = NULL;

    g_assert_null(vn_xml_file_read(empty, &e1));
    g_assert_error(e1, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED);
    g_assert_nonnull(strstr(e1->message, empty));
    g_assert_null(vn_xml_file_read(missing, &e2));
    g_assert_error(e2, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_IO);
    g_assert_nonnull(strstr(e2->message, missing));
}

/* A sparse file over the limit is refused by its size, before reading. */
static void
test_too_large(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *path = g_build_filename(tmp->dir, "huge.xml", NULL);
    g_autoptr(GError) error = NULL;
    FILE *f = fopen(path, "w");

    g_assert_nonnull(f);
    g_assert_cmpint(fseek(f, VN_XML_FILE_MAX_BYTES, SEEK_SET), ==, 0);
    g_assert_cmpint(fputc('x', f), !=, EOF);
    fclose(f);
    g_assert_null(vn_xml_file_read(path, &error));
    g_assert_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_TOO_LARGE);
    g_assert_nonnull(strstr(error->message, path));
}

static void
test_billion_laughs(Tmp *tmp, gconstpointer data)
{
    GString *s = g_string_new("<?xml version='1.0'?>\n<!DOCTYPE a [\n<!ENTITY l0 'lol'>\n");
    g_autofree gchar *path = NULL;
    g_autoptr(GError) error = NULL;
    gint64 start = g_get_monotonic_time();

    for (guint i = 1; i < 10; i++) {
        g_string_append_printf(s, "<!ENTITY l%u '", i);
        for (guint k = 0; k < 10; k++)
            g_string_append_printf(s, "&l%u;", i - 1);
        g_string_append(s, "'>\n");
    }
    g_string_append(s, "]>\n<a>&l9;</a>\n");
    path = write_file(tmp, "laughs.xml", s->str);
    g_string_free(s, TRUE);
    g_assert_null(vn_xml_file_read(path, &error));
    g_assert_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_UNSAFE);
    g_assert_cmpint(g_get_monotonic_time() - start, <, 2 * G_USEC_PER_SEC);
}

/* An external DTD is never opened: the entity it declares stays unknown,
 * so the document is refused instead of reading the DTD's text. */
static void
test_no_dtd_loading(Tmp *tmp, gconstpointer data)
{
    g_autofree gchar *dtd = write_file(tmp, "evil.dtd", "<!ENTITY secret 'LEAKED'>\n");
    g_autofree gchar *xml = g_strdup_printf("<?xml version='1.0'?>\n<!DOCTYPE a SYSTEM '%s'>\n"
                                            "<a>&secret;</a>\n",
                                            dtd);
    g_autofree gchar *path = write_file(tmp, "dtd.xml", xml);
    g_autoptr(GError) error = NULL;

    g_assert_null(vn_xml_file_read(path, &error));
    g_assert_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED);
    g_assert_nonnull(strstr(error->message, "'secret' not defined"));
    g_assert_null(strstr(error->message, "LEAKED"));
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
#define ADD(path, fn) g_test_add(path, Tmp, NULL, tmp_setup, fn, tmp_teardown)
    ADD("/xml-file/well-formed", test_well_formed);
    ADD("/xml-file/malformed-line", test_malformed_line);
    ADD("/xml-file/not-utf8-one-line", test_not_utf8_one_line);
    ADD("/xml-file/empty-and-missing", test_empty_and_missing);
    ADD("/xml-file/too-large", test_too_large);
    ADD("/xml-file/billion-laughs", test_billion_laughs);
    ADD("/xml-file/no-dtd-loading", test_no_dtd_loading);
    return g_test_run();
}
