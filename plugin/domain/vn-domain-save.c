/* vn-domain-save.c: the document back to text, in the input's own style.
 *
 * libxml2 always writes attributes in double quotes; libvirt (and most
 * hand-written domains) use single quotes.  So that every part vnuma does
 * not own stays byte-for-byte, the input's quote style is noted at load
 * (vn_domain_quote_style) and libxml2's output is requoted: inside start
 * tags only, where libxml2 has already escaped '<', '>', '&' and '"', so
 * a '"' is always a delimiter.  Comments, CDATA, processing instructions
 * and the DOCTYPE are copied as they are.
 */
#include "vn-domain-private.h"

#include <libxml/xmlsave.h>

gboolean
vn_domain_quote_style(const gchar *buf, gsize len)
{
    gsize single = 0, dbl = 0;

    for (gsize i = 0; i + 1 < len; i++)
        if (buf[i] == '=') {
            single += buf[i + 1] == '\'';
            dbl += buf[i + 1] == '"';
        }
    return single > dbl;
}

/* Copies from `p` through the end of `until`; returns the position after. */
static const gchar *
copy_through(GString *out, const gchar *p, const gchar *until)
{
    const gchar *end = strstr(p, until);
    gsize n = end ? (gsize)(end - p) + strlen(until) : strlen(p);

    g_string_append_len(out, p, (gssize)n);
    return p + n;
}

/* A start or end tag, from '<' through '>', attributes requoted. */
static const gchar *
requote_tag(GString *out, const gchar *p)
{
    gboolean in_value = FALSE;

    for (; *p && (in_value || *p != '>'); p++) {
        if (*p == '"') {
            g_string_append_c(out, '\'');
            in_value = !in_value;
        } else if (in_value && *p == '\'') {
            g_string_append(out, "&apos;");
        } else if (in_value && g_str_has_prefix(p, "&quot;")) {
            g_string_append_c(out, '"');
            p += strlen("&quot;") - 1;
        } else {
            g_string_append_c(out, *p);
        }
    }
    if (*p)
        g_string_append_c(out, *p++);
    return p;
}

static gchar *
requote(const gchar *text)
{
    GString *out = g_string_sized_new(strlen(text) + 16);
    const gchar *p = text;

    while (*p) {
        if (g_str_has_prefix(p, "<!--"))
            p = copy_through(out, p, "-->");
        else if (g_str_has_prefix(p, "<![CDATA["))
            p = copy_through(out, p, "]]>");
        else if (g_str_has_prefix(p, "<?"))
            p = copy_through(out, p, "?>");
        else if (g_str_has_prefix(p, "<!")) /* DOCTYPE (no entities: refused at load) */
            p = copy_through(out, p,
                             strchr(p, '[') && strchr(p, '[') < strchr(p, '>') ? "]>" : ">");
        else if (*p == '<')
            p = requote_tag(out, p);
        else
            g_string_append_c(out, *p++);
    }
    return g_string_free(out, FALSE);
}

gchar *
vn_domain_to_string(const VnDomain *d)
{
    xmlBuffer *buf = xmlBufferCreate();
    xmlSaveCtxt *save;
    gchar *ret;
    int opts = d->had_declaration ? 0 : XML_SAVE_NO_DECL;

    save = xmlSaveToBuffer(buf, "UTF-8", opts);
    xmlSaveDoc(save, d->doc);
    xmlSaveClose(save);
    ret = d->single_quotes ? requote((const gchar *)xmlBufferContent(buf))
                           : g_strdup((const gchar *)xmlBufferContent(buf));
    xmlBufferFree(buf);
    return ret;
}
