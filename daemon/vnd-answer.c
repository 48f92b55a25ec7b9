/* vnd-answer.c: the few answers vnumad writes on a connection itself.
 *
 * libsoup writes every answer it can; these are the ones it cannot: a
 * request refused before libsoup sees it (a head over its limits, a
 * connection over [api] max_connections, a request not read in time),
 * and one refused from its headers, whose body must not be read
 * (libsoup 3.2 reads the whole declared body before it answers unless
 * the client sent Expect: 100-continue).  Each is one status line,
 * headers formatted from a SoupMessageHeaders and a body, and always
 * closes the connection: the rest of that request is never read. */
#include "vnd.h"

#include "vn-config-build.h"
#include "vn-json-build.h"

/* libsoup 3.2's table has no 431 (RFC 6585). */
static const gchar *
phrase(guint status)
{
    return status == VND_ERROR_HEADERS_TOO_LARGE ? "Request Header Fields Too Large"
                                                 : soup_status_get_phrase(status);
}

static void
add_header(const char *name, const char *value, gpointer user_data)
{
    GString *out = user_data;

    /* ours and libsoup's, and those were parsed: never a line break */
    if (g_ascii_strcasecmp(name, "Content-Length") != 0 &&
        g_ascii_strcasecmp(name, "Connection") != 0)
        g_string_append_printf(out, "%s: %s\r\n", name, value);
}

static GBytes *
format(guint status, SoupMessageHeaders *headers, GBytes *body)
{
    GString *out = g_string_new(NULL);
    gsize len = body ? g_bytes_get_size(body) : 0;

    g_string_append_printf(out, "HTTP/1.1 %u %s\r\n", status, phrase(status));
    if (headers)
        soup_message_headers_foreach(headers, add_header, out);
    g_string_append_printf(out, "Content-Length: %" G_GSIZE_FORMAT "\r\nConnection: close\r\n\r\n",
                           len);
    if (len)
        g_string_append_len(out, g_bytes_get_data(body, NULL), (gssize)len);
    return g_string_free_to_bytes(out);
}

GBytes *
vnd_answer_error(guint status, const gchar *message)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(SoupMessageHeaders) h = soup_message_headers_new(SOUP_MESSAGE_HEADERS_RESPONSE);
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    g_autofree gchar *date = soup_date_time_to_string(now, SOUP_DATE_HTTP);
    g_autoptr(GBytes) body = NULL;
    gchar *text;
    gsize len;

    json_builder_begin_object(b);
    vn_json_add_string(b, "error", message);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    text = json_generator_to_data(gen, &len);
    /* newline-terminated like every other answer (vnd_reply_json) */
    text = g_realloc(text, len + 2);
    text[len++] = '\n';
    text[len] = '\0';
    body = g_bytes_new_take(text, len);
    soup_message_headers_append(h, "Server", "vnumad/" VNUMA_VERSION);
    soup_message_headers_append(h, "Date", date);
    soup_message_headers_append(h, "Content-Type", "application/json");
    return format(status, h, body);
}

GBytes *
vnd_answer_message(SoupServerMessage *msg)
{
    g_autoptr(GBytes) body = soup_message_body_flatten(soup_server_message_get_response_body(msg));

    return format(soup_server_message_get_status(msg),
                  soup_server_message_get_response_headers(msg), body);
}
