/* vn-json-parse.c: JSON text to a JsonNode, bounded (see the header).
 *
 * Why a pass before json-glib: json-glib recurses per level and has no
 * depth limit, so the depth has to be known before it starts.  The same
 * pass finds the end of the first value (trailing data), refuses what
 * json-glib would accept but JSON does not have (a comment or a 'quoted'
 * string would also hide brackets from the count), validates UTF-8 where
 * it can occur (in strings), and counts the ':' outside strings: in a
 * document json-glib accepts, each is one object member.  json-glib keeps
 * only the last of two same-named members, so the members of the parsed
 * tree add up to fewer than the colons exactly when a name was given
 * twice; only then is the text parsed again with json-glib's
 * "object-member" signal connected, to name the member.  Measured on a
 * 100-record ledger.json (44 KB, read at every VM start by the hook):
 * json-glib's parse 10.9 M instructions, this pass and the count 0.65 M,
 * the three signals connected for every parse 4.4 M. */
#include "vn-json-parse.h"

#include <string.h>

G_DEFINE_QUARK(vn-json-parse-error-quark, vn_json_parse_error);

/* What a byte means outside a string. */
typedef enum {
    BYTE_REFUSED, /* nothing JSON has ('/', '\'', letters of no literal, >= 0x80) */
    BYTE_SPACE,
    BYTE_OPEN,  /* [ { */
    BYTE_CLOSE, /* ] } */
    BYTE_QUOTE,
    BYTE_COLON,
    BYTE_COMMA,
    BYTE_SCALAR, /* numbers and true / false / null */
} ByteClass;

static const guint8 byte_class[256] = {
    [' '] = BYTE_SPACE,
    ['\t'] = BYTE_SPACE,
    ['\n'] = BYTE_SPACE,
    ['\r'] = BYTE_SPACE,
    ['['] = BYTE_OPEN,
    ['{'] = BYTE_OPEN,
    [']'] = BYTE_CLOSE,
    ['}'] = BYTE_CLOSE,
    ['"'] = BYTE_QUOTE,
    [':'] = BYTE_COLON,
    [','] = BYTE_COMMA,
    ['0' ... '9'] = BYTE_SCALAR,
    ['-'] = BYTE_SCALAR,
    ['+'] = BYTE_SCALAR,
    ['.'] = BYTE_SCALAR,
    ['E'] = BYTE_SCALAR,
    /* the letters of true, false, null (e also for exponents) */
    ['a'] = BYTE_SCALAR,
    ['e'] = BYTE_SCALAR,
    ['f'] = BYTE_SCALAR,
    ['l'] = BYTE_SCALAR,
    ['n'] = BYTE_SCALAR,
    ['r'] = BYTE_SCALAR,
    ['s'] = BYTE_SCALAR,
    ['t'] = BYTE_SCALAR,
    ['u'] = BYTE_SCALAR,
};

/* Error path only: ", line L" for the byte at `at` of a text of several
 * lines; "" for one line (an API body, a history line), where the offset
 * says it all. */
static gchar *
line_of(const gchar *text, gsize len, gsize at)
{
    if (!memchr(text, '\n', len))
        return g_strdup("");
    guint line = 1;
    for (gsize i = 0; i < at && i < len; i++)
        line += text[i] == '\n';
    return g_strdup_printf(", line %u", line);
}

/* "<what> at byte offset N[, line L]" */
static gboolean
refuse(GError **error, VnJsonParseError code, const gchar *text, gsize len, gsize at,
       const gchar *what)
{
    g_autofree gchar *line = line_of(text, len, at);
    g_set_error(error, VN_JSON_PARSE_ERROR, code, "%s at byte offset %" G_GSIZE_FORMAT "%s", what,
                at, line);
    return FALSE;
}

static gboolean
refuse_byte(GError **error, const gchar *text, gsize len, gsize at)
{
    guchar c = (guchar)text[at];
    g_autofree gchar *what = g_ascii_isprint(c) ? g_strdup_printf("unexpected character '%c'", c)
                                                : g_strdup_printf("unexpected byte 0x%02x", c);
    return refuse(error, VN_JSON_PARSE_ERROR_SYNTAX, text, len, at, what);
}

static gboolean
refuse_empty(GError **error)
{
    g_set_error_literal(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_EMPTY,
                        "empty: no JSON value");
    return FALSE;
}

/* Bytes that end the plain run of a string: its quote, an escape, a
 * control character, the start of a multi-byte character. */
static const guint8 string_stop[256] = {
    [0x00 ... 0x1f] = 1,
    ['"'] = 1,
    ['\\'] = 1,
    [0x80 ... 0xff] = 1,
};

/* The escape at `at` (a backslash) is one JSON has: json-glib also takes
 * C's octal and other escapes ("\220" is the byte 0x90, not UTF-8), and
 * cuts a string short at \u0000. */
static gboolean
check_escape(const gchar *text, gsize len, gsize at, GError **error)
{
    if (at + 1 < len && strchr("\"\\/bfnrt", text[at + 1]) && text[at + 1])
        return TRUE;
    if (at + 1 < len && text[at + 1] == 'u') {
        gboolean hex = at + 5 < len;
        for (gsize k = at + 2; hex && k < at + 6; k++)
            hex = g_ascii_isxdigit(text[k]);
        if (hex && g_ascii_strncasecmp(text + at + 2, "0000", 4) == 0)
            return refuse(error, VN_JSON_PARSE_ERROR_SYNTAX, text, len, at, "\\u0000 in a string");
        if (hex)
            return TRUE;
    }
    return refuse(error, VN_JSON_PARSE_ERROR_SYNTAX, text, len, at,
                  "an escape JSON does not have in a string");
}

/* The string whose opening quote is at `*at`: moves `*at` past its closing
 * quote (or to `len` when there is none: json-glib reports that). */
static gboolean
skip_string(const gchar *text, gsize len, gsize *at, GError **error)
{
    gsize i = *at + 1;
    for (;;) {
        while (i < len && !string_stop[(guchar)text[i]])
            i++;
        if (i >= len || text[i] == '"')
            break;
        guchar c = (guchar)text[i];
        if (c == '\\') {
            if (!check_escape(text, len, i, error))
                return FALSE;
            i += text[i + 1] == 'u' ? 6 : 2;
        } else if (c < 0x20) {
            g_autofree gchar *what = g_strdup_printf("control character 0x%02x in a string", c);
            return refuse(error, VN_JSON_PARSE_ERROR_ENCODING, text, len, i, what);
        } else {
            gunichar u = g_utf8_get_char_validated(text + i, (gssize)(len - i));
            if (u == (gunichar)-1 || u == (gunichar)-2)
                return refuse(error, VN_JSON_PARSE_ERROR_ENCODING, text, len, i, "invalid UTF-8");
            i += g_utf8_skip[c];
        }
    }
    *at = MIN(i + 1, len);
    return TRUE;
}

/* One pass over the text: TRUE when json-glib may have it, with the
 * number of ':' outside strings in `ret_colons`. */
static gboolean
prescan(const gchar *text, gsize len, gsize *ret_colons, GError **error)
{
    guint depth = 0;
    gboolean complete = FALSE; /* the first value has ended */
    gboolean any = FALSE;      /* anything but whitespace */
    gsize colons = 0;
    gsize i = 0;

    while (i < len) {
        ByteClass k = byte_class[(guchar)text[i]];
        if (k == BYTE_SPACE) {
            i++;
            continue;
        }
        if (complete)
            return refuse(error, VN_JSON_PARSE_ERROR_TRAILING, text, len, i,
                          "trailing data after the JSON value");
        switch (k) {
        case BYTE_QUOTE:
            if (!skip_string(text, len, &i, error))
                return FALSE;
            complete = depth == 0;
            break;
        case BYTE_OPEN:
            if (++depth > VN_JSON_MAX_DEPTH)
                return refuse(error, VN_JSON_PARSE_ERROR_DEPTH, text, len, i,
                              "nesting deeper than " G_STRINGIFY(VN_JSON_MAX_DEPTH) " levels");
            i++;
            break;
        case BYTE_CLOSE:
            if (depth == 0)
                return refuse_byte(error, text, len, i);
            complete = --depth == 0;
            i++;
            break;
        case BYTE_SCALAR:
            while (i < len && byte_class[(guchar)text[i]] == BYTE_SCALAR)
                i++;
            complete = depth == 0;
            break;
        case BYTE_COLON:
            colons++;
            i++;
            break;
        case BYTE_COMMA:
            i++;
            break;
        default:
            return refuse_byte(error, text, len, i);
        }
        any = TRUE;
    }
    if (!any)
        return refuse_empty(error);
    *ret_colons = colons;
    return TRUE;
}

static gboolean
is_container(JsonNode *node)
{
    JsonNodeType t = json_node_get_node_type(node);
    return t == JSON_NODE_OBJECT || t == JSON_NODE_ARRAY;
}

/* Members of all objects in the container `node` (depth bounded by the
 * prescan); scalars are not called for. */
static gsize
count_members(JsonNode *node)
{
    gsize n = 0;
    if (JSON_NODE_HOLDS_OBJECT(node)) {
        JsonObjectIter iter;
        JsonNode *member;
        json_object_iter_init(&iter, json_node_get_object(node));
        while (json_object_iter_next(&iter, NULL, &member))
            n += 1 + (is_container(member) ? count_members(member) : 0);
    } else {
        JsonArray *a = json_node_get_array(node);
        guint len = json_array_get_length(a);
        for (guint i = 0; i < len; i++) {
            JsonNode *element = json_array_get_element(a, i);
            n += is_container(element) ? count_members(element) : 0;
        }
    }
    return n;
}

/* Finding the duplicate: json-glib emits "object-member" after adding a
 * member, so an object whose size did not grow took a name it had. */
typedef struct {
    guint members[VN_JSON_MAX_DEPTH]; /* signals seen per open object */
    guint open;
    gchar *name; /* the first duplicate */
    guint line;
} Duplicates;

static void
on_object_start(JsonParser *parser, gpointer user_data)
{
    Duplicates *d = user_data;
    if (d->open < G_N_ELEMENTS(d->members))
        d->members[d->open] = 0;
    d->open++;
}

static void
on_object_member(JsonParser *parser, JsonObject *object, const gchar *name, gpointer user_data)
{
    Duplicates *d = user_data;
    if (d->open == 0 || d->open > G_N_ELEMENTS(d->members))
        return;
    guint seen = ++d->members[d->open - 1];
    if (!d->name && json_object_get_size(object) != seen) {
        d->name = g_strdup(name);
        d->line = json_parser_get_current_line(parser);
    }
}

static void
on_object_end(JsonParser *parser, JsonObject *object, gpointer user_data)
{
    Duplicates *d = user_data;
    d->open--;
}

gchar *
vn_json_quote(const gchar *s)
{
    /* any bytes: what is not UTF-8 shows as U+FFFD */
    g_autofree gchar *valid = g_utf8_make_valid(s, -1);
    g_autoptr(JsonNode) n = json_node_init_string(json_node_alloc(), valid);
    return json_to_string(n, FALSE);
}

gchar *
vn_json_escape(const gchar *s)
{
    g_autofree gchar *quoted = vn_json_quote(s);

    return g_strndup(quoted + 1, strlen(quoted) - 2);
}

static gboolean
refuse_duplicate(const gchar *text, gsize len, GError **error)
{
    Duplicates d = { 0 };
    g_autoptr(JsonParser) parser = json_parser_new();
    g_signal_connect(parser, "object-start", G_CALLBACK(on_object_start), &d);
    g_signal_connect(parser, "object-member", G_CALLBACK(on_object_member), &d);
    g_signal_connect(parser, "object-end", G_CALLBACK(on_object_end), &d);
    json_parser_load_from_data(parser, text, (gssize)len, NULL);
    /* quoted as JSON: a name may hold a newline ("a\nb") */
    g_autofree gchar *name = d.name ? vn_json_quote(d.name) : NULL;
    if (name && memchr(text, '\n', len))
        g_set_error(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_DUPLICATE,
                    "member %s given twice in one object, line %u", name, d.line);
    else if (name)
        g_set_error(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_DUPLICATE,
                    "member %s given twice in one object", name);
    else
        g_set_error_literal(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_DUPLICATE,
                            "an object member given twice");
    g_free(d.name);
    return FALSE;
}

JsonNode *
vn_json_parse(const gchar *text, gsize len, GError **error)
{
    g_return_val_if_fail(text != NULL || len == 0, NULL);
    gsize colons = 0;
    if (!prescan(text, len, &colons, error))
        return NULL;
    g_autoptr(JsonParser) parser = json_parser_new();
    g_autoptr(GError) local = NULL;
    if (!json_parser_load_from_data(parser, text, (gssize)len, &local)) {
        /* "<data>:1:5: Parse error: ..." names no input we know of */
        const gchar *m = local->message;
        /* json-glib quotes the token it stopped at, cut at a byte count
         * (a UTF-8 character may be cut in two) and with its escapes
         * decoded: '{"\n"' would make the message two lines */
        g_autofree gchar *shown =
            g_utf8_make_valid(g_str_has_prefix(m, "<data>:") ? m + strlen("<data>:") : m, -1);
        for (gchar *c = shown; *c; c++)
            if ((guchar)*c < 0x20)
                *c = ' ';
        g_set_error(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_SYNTAX, "not JSON: %s", shown);
        return NULL;
    }
    JsonNode *root = json_parser_get_root(parser);
    if (!root) { /* json-glib's answer to whitespace; the prescan took that */
        refuse_empty(error);
        return NULL;
    }
    if ((is_container(root) ? count_members(root) : 0) != colons) {
        refuse_duplicate(text, len, error);
        return NULL;
    }
    return json_parser_steal_root(parser);
}

JsonNode *
vn_json_parse_file(const gchar *path, GError **error)
{
    g_autofree gchar *text = NULL;
    gsize len = 0;
    JsonNode *root = NULL;
    if (g_file_get_contents(path, &text, &len, error))
        root = vn_json_parse(text, len, error);
    if (!root)
        g_prefix_error(error, "%s: ", path);
    return root;
}
