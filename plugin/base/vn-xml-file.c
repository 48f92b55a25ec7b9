/* vn-xml-file.c: safe libxml2 parsing of untrusted files. */
#include "vn-xml-file.h"

#include <glib/gstdio.h>
#include <libxml/parser.h>

G_DEFINE_QUARK(vn-xml-file-error-quark, vn_xml_file_error);

G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlParserCtxt, xmlFreeParserCtxt)

/* NONET: never fetch anything.  No XML_PARSE_NOENT (entities stay
 * unexpanded), no DTDLOAD/DTDATTR/DTDVALID (the DOCTYPE of hwloc files names
 * hwloc2.dtd, which must not be opened), no HUGE (libxml2's default limits on
 * depth and text size stay on).  NOERROR/NOWARNING: library code never
 * prints; errors come back through GError instead. */
#define VN_XML_PARSE_OPTIONS (XML_PARSE_NONET | XML_PARSE_NOERROR | XML_PARSE_NOWARNING)

/* The first error libxml2 reports is the one worth showing: later ones
 * ("Premature end of data") are usually consequences of it. */
typedef struct {
    gint line;
    gint code;
    gchar *message;
} FirstError;

static void
keep_first_error(void *data, xmlErrorPtr e)
{
    FirstError *first = ((xmlParserCtxt *)data)->_private;

    if (first->message || e->level < XML_ERR_ERROR)
        return;
    first->line = e->line;
    first->code = e->code;
    first->message = g_strstrip(g_strdup(e->message ? e->message : "parse error"));
    /* one line: some messages go on with a second ("Input is not proper
     * UTF-8, indicate encoding !\nBytes: 0xE9 0x20 ...") */
    g_strdelimit(first->message, "\r\n", ' ');
}

/* What libxml2 stops for a hostile document rather than a broken one. */
static gboolean
is_unsafe(gint code)
{
    return code == XML_ERR_ENTITY_LOOP || code == XML_IO_NETWORK_ATTEMPT;
}

xmlDoc *
vn_xml_file_parse(const gchar *name, const gchar *buf, gsize len, GError **error)
{
    g_autoptr(xmlParserCtxt) ctxt = NULL;
    g_autoptr(xmlDoc) doc = NULL;
    FirstError first = { .message = NULL };

    g_return_val_if_fail(name != NULL && buf != NULL, NULL);
    if (len > VN_XML_FILE_MAX_BYTES) {
        g_set_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_TOO_LARGE,
                    "%s: %" G_GSIZE_FORMAT " bytes, more than the %d allowed for an XML file", name,
                    len, VN_XML_FILE_MAX_BYTES);
        return NULL;
    }
    ctxt = xmlNewParserCtxt();
    if (!ctxt)
        g_error("out of memory creating an XML parser");
    /* The structured handler gets every error of this parse and nothing
     * goes to libxml2's global handlers (which print on stderr). */
    ctxt->_private = &first;
    ctxt->sax->serror = keep_first_error;
    doc = xmlCtxtReadMemory(ctxt, buf, (int)len, name, NULL, VN_XML_PARSE_OPTIONS);
    /* libxml2 may return a partial document after a recoverable error:
     * any error-level report makes the file malformed for us. */
    if (first.message || !doc || !xmlDocGetRootElement(doc)) {
        if (first.message && is_unsafe(first.code))
            g_set_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_UNSAFE,
                        "%s:%d: refused as unsafe XML: %s", name, first.line, first.message);
        else if (first.message)
            g_set_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED,
                        "%s:%d: malformed XML: %s", name, first.line, first.message);
        else
            g_set_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_MALFORMED,
                        "%s: malformed XML: no root element", name);
        g_free(first.message);
        return NULL;
    }
    return g_steal_pointer(&doc);
}

xmlDoc *
vn_xml_file_read(const gchar *path, GError **error)
{
    g_autofree gchar *buf = NULL;
    g_autoptr(GError) local = NULL;
    GStatBuf st;
    gsize len;

    g_return_val_if_fail(path != NULL, NULL);
    /* Check the size before reading so a huge file is never loaded. */
    if (g_stat(path, &st) == 0 && st.st_size > VN_XML_FILE_MAX_BYTES) {
        g_set_error(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_TOO_LARGE,
                    "%s: %lld bytes, more than the %d allowed for an XML file", path,
                    (long long)st.st_size, VN_XML_FILE_MAX_BYTES);
        return NULL;
    }
    if (!g_file_get_contents(path, &buf, &len, &local)) {
        /* GLib's message already names the file. */
        g_set_error_literal(error, VN_XML_FILE_ERROR, VN_XML_FILE_ERROR_IO, local->message);
        return NULL;
    }
    return vn_xml_file_parse(path, buf, len, error);
}
