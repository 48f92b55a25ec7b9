/* vnd-http.c: JSON in and out of a SoupServerMessage. */
#include "vnd.h"
#include "vn-json-build.h"
#include "vn-json-parse.h"
#include "vnd-spec.h"

G_DEFINE_QUARK(vnd-error-quark, vnd_error);

#define BODY_KEY "vnd-bounded-body"

static void
on_chunk(SoupServerMessage *msg, GBytes *chunk, gpointer user_data)
{
    GByteArray *buf = g_object_get_data(G_OBJECT(msg), BODY_KEY);
    gsize room = VND_MAX_BODY + 1 - buf->len;

    g_byte_array_append(buf, g_bytes_get_data(chunk, NULL),
                        (guint)MIN(room, g_bytes_get_size(chunk)));
}

void
vnd_body_bound(SoupServerMessage *msg)
{
    soup_message_body_set_accumulate(soup_server_message_get_request_body(msg), FALSE);
    g_object_set_data_full(G_OBJECT(msg), BODY_KEY, g_byte_array_new(),
                           (GDestroyNotify)g_byte_array_unref);
    g_signal_connect(msg, "got-chunk", G_CALLBACK(on_chunk), NULL);
}

/* The body read, whichever way it was kept. */
static GBytes *
body_bytes(SoupServerMessage *msg)
{
    GByteArray *bounded = g_object_get_data(G_OBJECT(msg), BODY_KEY);

    if (bounded)
        return g_bytes_new(bounded->data, bounded->len);
    return soup_message_body_flatten(soup_server_message_get_request_body(msg));
}

void
vnd_reply_json(SoupServerMessage *msg, guint status, JsonNode *node)
{
    g_autoptr(JsonGenerator) gen = json_generator_new();
    gsize len;
    gchar *text;

    json_generator_set_root(gen, node);
    text = json_generator_to_data(gen, &len);
    /* one line per answer, newline-terminated like the CLI's */
    text = g_realloc(text, len + 2);
    text[len++] = '\n';
    text[len] = '\0';
    soup_server_message_set_status(msg, status, NULL);
    soup_server_message_set_response(msg, "application/json", SOUP_MEMORY_TAKE, text, len);
}

void
vnd_reply_error(SoupServerMessage *msg, const GError *error)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) node = NULL;
    guint status =
        error->domain == VND_ERROR ? (guint)error->code : SOUP_STATUS_INTERNAL_SERVER_ERROR;

    json_builder_begin_object(b);
    vn_json_add_string(b, "error", error->message);
    json_builder_end_object(b);
    node = json_builder_get_root(b);
    vnd_reply_json(msg, status, node);
}

/* Only JSON bodies: a form post or text is a client bug worth naming. */
static gboolean
check_content_type(SoupServerMessage *msg, GError **error)
{
    SoupMessageHeaders *h = soup_server_message_get_request_headers(msg);
    const gchar *type = soup_message_headers_get_content_type(h, NULL);

    if (!type || g_ascii_strcasecmp(type, "application/json") == 0)
        return TRUE;
    g_set_error(error, VND_ERROR, VND_ERROR_UNSUPPORTED_TYPE,
                "Content-Type must be application/json (got %s)", type);
    return FALSE;
}

static gboolean
check_members(JsonObject *o, const gchar *const *allowed, GError **error)
{
    g_autoptr(GList) names = json_object_get_members(o);

    for (GList *l = names; l; l = l->next) {
        if (!g_strv_contains(allowed, l->data)) {
            g_autofree gchar *shown = vn_json_escape(l->data);
            g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "%s: unknown member", shown);
            return FALSE;
        }
    }
    return TRUE;
}

JsonNode *
vnd_body_parse(const gchar *data, gsize len, const gchar *const *allowed, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = NULL;

    if (len > VND_MAX_BODY) {
        g_set_error(error, VND_ERROR, VND_ERROR_TOO_LARGE, "body over %d bytes", VND_MAX_BODY);
        return NULL;
    }
    if (len == 0 || !data) {
        g_set_error_literal(error, VND_ERROR, VND_ERROR_BAD_REQUEST,
                            "body: a JSON object is required");
        return NULL;
    }
    /* deep nesting, a second value, a member given twice: all 400 */
    if (!(root = vn_json_parse(data, len, &local))) {
        g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "body: %s", local->message);
        return NULL;
    }
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error_literal(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "body: must be a JSON object");
        return NULL;
    }
    if (!check_members(json_node_get_object(root), allowed, error))
        return NULL;
    return g_steal_pointer(&root);
}

JsonNode *
vnd_body_object(SoupServerMessage *msg, const gchar *const *allowed, GError **error)
{
    g_autoptr(GBytes) bytes = body_bytes(msg);
    gsize len;
    const gchar *data = g_bytes_get_data(bytes, &len);

    /* a chunked body has no Content-Length for the early check (and was
     * kept to VND_MAX_BODY + 1 bytes by vnd_body_bound); too large is
     * said before a wrong Content-Type */
    if (len <= VND_MAX_BODY && !check_content_type(msg, error))
        return NULL;
    return vnd_body_parse(data, len, allowed, error);
}

gboolean
vnd_query_bool(SoupServerMessage *msg, const gchar *name, gboolean def, gboolean *ret_value,
               GError **error)
{
    GUri *uri = soup_server_message_get_uri(msg);
    const gchar *query = g_uri_get_query(uri);
    g_autoptr(GHashTable) params = NULL;
    const gchar *v;

    if (query && !(params = g_uri_parse_params(query, -1, "&", G_URI_PARAMS_NONE, NULL))) {
        g_set_error_literal(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "query: malformed");
        return FALSE;
    }
    v = params ? g_hash_table_lookup(params, name) : NULL;
    if (!v) {
        *ret_value = def;
        return TRUE;
    }
    if (!g_str_equal(v, "true") && !g_str_equal(v, "false")) {
        g_autofree gchar *shown = vn_json_quote(v);
        g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "%s: must be true or false (got %s)",
                    name, shown);
        return FALSE;
    }
    *ret_value = g_str_equal(v, "true");
    return TRUE;
}
