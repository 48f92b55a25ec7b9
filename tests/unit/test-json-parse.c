/* test-json-parse.c: vn_json_parse() and vn_json_parse_file(), the one
 * JSON loader: what json-glib 1.6 alone would take (or crash on) and the
 * loader refuses, and what stays accepted. */
#include <glib/gstdio.h>
#include "vn-json-parse.h"
#include "vn-test-fixture.h"

/* `n` copies of `open`, then `middle`, then `n` copies of `close`. */
static gchar *
nest(guint n, const gchar *open, const gchar *middle, const gchar *close)
{
    GString *s = g_string_sized_new(n * (strlen(open) + strlen(close)) + strlen(middle));
    for (guint i = 0; i < n; i++)
        g_string_append(s, open);
    g_string_append(s, middle);
    for (guint i = 0; i < n; i++)
        g_string_append(s, close);
    return g_string_free(s, FALSE);
}

static gchar *
arrays_at_limit(void)
{
    return nest(VN_JSON_MAX_DEPTH, "[", "", "]");
}
static gchar *
arrays_over_limit(void)
{
    return nest(VN_JSON_MAX_DEPTH + 1, "[", "", "]");
}
static gchar *
objects_at_limit(void)
{
    return nest(VN_JSON_MAX_DEPTH, "{\"a\":", "1", "}");
}
static gchar *
objects_over_limit(void)
{
    return nest(VN_JSON_MAX_DEPTH + 1, "{\"a\":", "1", "}");
}
static gchar *
deep_attack(void)
{
    return nest(400000, "[", "", "");
}
static gchar *
deep_objects(void)
{
    return nest(100000, "{\"a\":", "", "");
}
/* brackets that would be 400,000 deep if strings did not count */
static gchar *
deep_in_string(void)
{
    g_autofree gchar *brackets = g_strnfill(400000, '[');
    return nest(1, "{\"a\":\"", brackets, "\"}");
}

typedef struct {
    const gchar *path;
    const gchar *text;     /* NUL-terminated, or... */
    gchar *(*make)(void);  /* ...built at run time (big inputs) */
    gssize len;            /* -1: strlen */
    gint code;             /* -1: accepted */
    const gchar *message;  /* exact, or prefix when ending in "..." */
    const gchar *member_a; /* accepted: the string member "a" of the root */
} Case;

static const Case cases[] = {
    /* accepted */
    { "/json/accept/object", "{\"a\":\"x\",\"b\":[1,2,{\"c\":null}]}", .code = -1,
      .member_a = "x" },
    { "/json/accept/brackets-in-string", "{\"a\":\"[[[[\" }", .code = -1, .member_a = "[[[[" },
    { "/json/accept/braces-in-string", "{\"a\":\"}}]]{\"}", .code = -1, .member_a = "}}]]{" },
    { "/json/accept/escaped-quote", "{\"a\":\"\\\"[\"}", .code = -1, .member_a = "\"[" },
    { "/json/accept/escaped-backslash", "{\"a\":\"\\\\\",\"b\":[]}", .code = -1, .member_a = "\\" },
    { "/json/accept/escaped-quote-scalar", "\"\\\"[\"", .code = -1 },
    { "/json/accept/trailing-whitespace", "{\"a\":\"x\"} \n\t\r\n", .code = -1, .member_a = "x" },
    { "/json/accept/leading-whitespace", "\n  {\"a\":\"x\"}", .code = -1, .member_a = "x" },
    { "/json/accept/utf8", "{\"a\":\"Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80\"}", .code = -1,
      .member_a = "Z\xc3\xbcrich \xe2\x82\xac \xf0\x9f\x98\x80" },
    { "/json/accept/same-name-other-objects",
      "{\"a\":\"x\",\"b\":{\"a\":1},\"c\":[{\"a\":2},{\"a\":3}]}", .code = -1, .member_a = "x" },
    { "/json/accept/scalar", "42", .code = -1 },
    { "/json/accept/escapes", "{\"a\":\"\\u00e9\\n\\t\\/\"}", .code = -1,
      .member_a = "\xc3\xa9\n\t/" },
    { "/json/accept/depth-at-limit", .make = arrays_at_limit, .code = -1 },
    { "/json/accept/depth-at-limit-objects", .make = objects_at_limit, .code = -1 },
    { "/json/accept/deep-brackets-in-string", .make = deep_in_string, .code = -1 },

    /* nesting */
    { "/json/depth/limit-plus-one", .make = arrays_over_limit, .code = VN_JSON_PARSE_ERROR_DEPTH,
      .message = "nesting deeper than 64 levels at byte offset 64" },
    { "/json/depth/limit-plus-one-objects", .make = objects_over_limit,
      .code = VN_JSON_PARSE_ERROR_DEPTH,
      .message = "nesting deeper than 64 levels at byte offset 320" },
    { "/json/depth/400000-brackets", .make = deep_attack, .code = VN_JSON_PARSE_ERROR_DEPTH,
      .message = "nesting deeper than 64 levels at byte offset 64" },
    { "/json/depth/100000-objects", .make = deep_objects, .code = VN_JSON_PARSE_ERROR_DEPTH,
      .message = "nesting deeper than 64 levels at byte offset 320" },
    { "/json/depth/on-line-3",
      "{\n\"a\":\n"
      "[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[[",
      .code = VN_JSON_PARSE_ERROR_DEPTH,
      .message = "nesting deeper than 64 levels at byte offset 70, line 3" },

    /* one value per document */
    { "/json/trailing/second-object", "{\"vcpus\":2,\"memory_mib\":1024}{\"x\":1}",
      .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 29" },
    { "/json/trailing/next-line", "{}\n{}\n", .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 3, line 2" },
    { "/json/trailing/arrays", "[1] [2]", .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 4" },
    { "/json/trailing/strings", "\"a\"\"b\"", .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 3" },
    { "/json/trailing/numbers", "1 2", .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 2" },
    { "/json/trailing/close", "{\"a\":1}}", .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 7" },
    { "/json/trailing/nul", "{}\0", .len = 3, .code = VN_JSON_PARSE_ERROR_TRAILING,
      .message = "trailing data after the JSON value at byte offset 2" },

    /* duplicate members */
    { "/json/duplicate/top-level", "{\"a\":1,\"a\":2}", .code = VN_JSON_PARSE_ERROR_DUPLICATE,
      .message = "member \"a\" given twice in one object" },
    { "/json/duplicate/nested", "{\"b\":{\"x\":1,\n\"x\":[1]},\"c\":2}",
      .code = VN_JSON_PARSE_ERROR_DUPLICATE,
      .message = "member \"x\" given twice in one object, line 2" },
    { "/json/duplicate/in-array", "[{\"a\":1},{\"b\":1,\"c\":0,\"b\":2}]",
      .code = VN_JSON_PARSE_ERROR_DUPLICATE, .message = "member \"b\" given twice in one object" },
    { "/json/duplicate/after-nested", "{\"memory_mib\":{\"k\":1},\"vcpus\":1,\"memory_mib\":2}",
      .code = VN_JSON_PARSE_ERROR_DUPLICATE,
      .message = "member \"memory_mib\" given twice in one object" },
    /* found by fuzz-api-request: the name is quoted as JSON, on one line */
    { "/json/duplicate/name-with-newline", "{\"a\\nb\":1,\"a\\nb\":2}",
      .code = VN_JSON_PARSE_ERROR_DUPLICATE,
      .message = "member \"a\\nb\" given twice in one object" },

    /* empty */
    { "/json/empty/nothing", "", .code = VN_JSON_PARSE_ERROR_EMPTY,
      .message = "empty: no JSON value" },
    { "/json/empty/whitespace", " \n\t ", .code = VN_JSON_PARSE_ERROR_EMPTY,
      .message = "empty: no JSON value" },

    /* encoding */
    { "/json/encoding/invalid-byte", "{\"a\":\"\xff\"}", .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "invalid UTF-8 at byte offset 6" },
    { "/json/encoding/overlong", "{\"a\":\"\xc0\x80\"}", .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "invalid UTF-8 at byte offset 6" },
    { "/json/encoding/surrogate", "{\"a\":\"\xed\xa0\x80\"}", .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "invalid UTF-8 at byte offset 6" },
    { "/json/encoding/truncated", "{\"a\":\"\xe2\x82", .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "invalid UTF-8 at byte offset 6" },
    { "/json/encoding/control-char", "{\"a\":\"x\ny\"}", .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "control character 0x0a in a string at byte offset 7, line 1" },
    { "/json/encoding/nul-in-string", "{\"a\":\"\0\"}", .len = 9,
      .code = VN_JSON_PARSE_ERROR_ENCODING,
      .message = "control character 0x00 in a string at byte offset 6" },

    /* not JSON: json-glib's own extensions, and what it reports itself */
    { "/json/syntax/comment", "{\"a\":1 /* c */}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "unexpected character '/' at byte offset 7" },
    { "/json/syntax/single-quotes", "{'a':1}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "unexpected character ''' at byte offset 1" },
    { "/json/syntax/assignment", "var x = {\"a\":1};", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "unexpected character 'v' at byte offset 0" },
    { "/json/syntax/byte-outside-string", "[\xc3\xbc]", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "unexpected byte 0xc3 at byte offset 1" },
    { "/json/syntax/close-first", "]", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "unexpected character ']' at byte offset 0" },
    { "/json/syntax/truncated", "{\"vcpus\": 4, \"memory_mib\": 4096",
      .code = VN_JSON_PARSE_ERROR_SYNTAX, .message = "not JSON: ..." },
    { "/json/syntax/trailing-comma", "[1,]", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "not JSON: ..." },
    { "/json/syntax/unterminated-string", "{\"a\":\"abc", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "not JSON: ..." },
    /* json-glib quotes the token with "\n" decoded (found by fuzzing):
     * the message stays one line */
    { "/json/syntax/escaped-newline-quoted", "{\"\\n\"", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "not JSON: 1:5: Parse error: unexpected string constant \" \"..." },
    { "/json/syntax/escape-at-end", "\"\\", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "an escape JSON does not have in a string at byte offset 1" },
    /* json-glib takes C's octal escapes: "\220" would be the byte 0x90 */
    { "/json/syntax/octal-escape", "{\"a\":\"a\\220\"}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "an escape JSON does not have in a string at byte offset 7" },
    { "/json/syntax/hex-escape", "{\"a\":\"\\x41\"}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "an escape JSON does not have in a string at byte offset 6" },
    { "/json/syntax/short-unicode-escape", "{\"a\":\"\\u12\"}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "an escape JSON does not have in a string at byte offset 6" },
    /* json-glib would cut the string short there */
    { "/json/syntax/unicode-nul", "{\"a\":\"x\\u0000y\"}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "\\u0000 in a string at byte offset 7" },
    { "/json/syntax/bareword", "{\"a\":tru}", .code = VN_JSON_PARSE_ERROR_SYNTAX,
      .message = "not JSON: ..." },
};

static void
assert_message(const gchar *actual, const gchar *expected)
{
    if (g_str_has_suffix(expected, "...")) {
        g_autofree gchar *prefix = g_strndup(expected, strlen(expected) - 3);
        if (!g_str_has_prefix(actual, prefix))
            g_error("message \"%s\" does not start with \"%s\"", actual, prefix);
    } else {
        g_assert_cmpstr(actual, ==, expected);
    }
}

static void
test_case(gconstpointer data)
{
    const Case *c = data;
    g_autofree gchar *made = c->make ? c->make() : NULL;
    const gchar *text = made ? made : c->text;
    gsize len = c->len > 0 ? (gsize)c->len : strlen(text);
    g_autoptr(GError) error = NULL;
    g_autoptr(JsonNode) root = vn_json_parse(text, len, &error);

    if (c->code < 0) {
        g_assert_no_error(error);
        g_assert_nonnull(root);
        if (c->member_a) {
            g_assert_true(JSON_NODE_HOLDS_OBJECT(root));
            g_assert_cmpstr(json_object_get_string_member(json_node_get_object(root), "a"), ==,
                            c->member_a);
        }
        return;
    }
    g_assert_null(root);
    g_assert_error(error, VN_JSON_PARSE_ERROR, c->code);
    g_assert_null(strchr(error->message, '\n'));
    assert_message(error->message, c->message);
}

/* The file variant names the file in a refusal and keeps GLib's error
 * (and its code) for a file it cannot read. */
static void
test_file(void)
{
    g_autofree gchar *dir = g_dir_make_tmp("vn-json-XXXXXX", NULL);
    g_autofree gchar *text = nest(100000, "[", "", "]");
    g_autofree gchar *deep = vn_test_write_file(dir, "deep.json", text);
    g_autofree gchar *good = vn_test_write_file(dir, "good.json", "{\"a\":\"x\"}\n");
    g_autofree gchar *missing = g_build_filename(dir, "missing.json", NULL);
    g_autoptr(GError) error = NULL;

    g_autoptr(JsonNode) root = vn_json_parse_file(deep, &error);
    g_assert_null(root);
    g_assert_error(error, VN_JSON_PARSE_ERROR, VN_JSON_PARSE_ERROR_DEPTH);
    g_autofree gchar *expected =
        g_strdup_printf("%s: nesting deeper than 64 levels at byte offset 64", deep);
    g_assert_cmpstr(error->message, ==, expected);
    g_clear_error(&error);

    root = vn_json_parse_file(missing, &error);
    g_assert_null(root);
    g_assert_error(error, G_FILE_ERROR, G_FILE_ERROR_NOENT);
    g_autofree gchar *prefix = g_strdup_printf("%s: ", missing);
    g_assert_true(g_str_has_prefix(error->message, prefix));
    g_clear_error(&error);

    root = vn_json_parse_file(good, &error);
    g_assert_no_error(error);
    g_assert_cmpstr(json_object_get_string_member(json_node_get_object(root), "a"), ==, "x");

    vn_test_remove_tree(dir);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
        g_test_add_data_func(cases[i].path, &cases[i], test_case);
    g_test_add_func("/json/file", test_file);
    return g_test_run();
}
