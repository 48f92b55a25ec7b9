/* vn-json-parse.h: the one way vnuma reads JSON text (API bodies,
 * ledger.json, --load files, history lines, the topology cache, vnumactl's
 * answers to vnumad).
 *
 * json-glib 1.6 is used for the parsing itself, but on its own it recurses
 * once per nesting level without a limit (400,000 '[' overflow any stack),
 * takes a second top-level value after the first and drops it, lets the
 * last of two same-named members win, and accepts comments, 'single
 * quoted' strings, raw control characters in strings and "var x = ..."
 * assignments.  These loaders refuse all of that:
 *  - nesting deeper than VN_JSON_MAX_DEPTH, found by one pass over the
 *    text before json-glib sees it (strings and escapes tracked, so
 *    brackets inside strings do not count; no allocation);
 *  - anything but whitespace after the first value;
 *  - characters outside strings that JSON does not have ('/', '\'', ...);
 *  - control characters in strings, invalid UTF-8;
 *  - an object member given twice;
 *  - text that holds no value at all.
 */
#pragma once

#include <json-glib/json-glib.h>

/* Open arrays and objects at any point ("[]" is 1, {"a":[1]} is 2).  Our
 * own documents stay under 6 (ledger.json: top, domains, a record, its
 * cells, a cell = 5); 64 leaves room for any request a client may build
 * and keeps json-glib's recursion to a few kilobytes of stack. */
#define VN_JSON_MAX_DEPTH 64

#define VN_JSON_PARSE_ERROR (vn_json_parse_error_quark())
GQuark vn_json_parse_error_quark(void);
typedef enum {
    VN_JSON_PARSE_ERROR_EMPTY,     /* no value: empty or only whitespace */
    VN_JSON_PARSE_ERROR_SYNTAX,    /* not JSON (json-glib's message, or a
                                     * character JSON does not have) */
    VN_JSON_PARSE_ERROR_DEPTH,     /* nested deeper than VN_JSON_MAX_DEPTH */
    VN_JSON_PARSE_ERROR_TRAILING,  /* more after the first value */
    VN_JSON_PARSE_ERROR_DUPLICATE, /* an object member given twice */
    VN_JSON_PARSE_ERROR_ENCODING,  /* invalid UTF-8, control character */
    VN_JSON_PARSE_ERROR_MAX
} VnJsonParseError;

/* Parses the `len` bytes at `text` (no NUL needed) as one JSON document.
 * Returns its root (transfer full, mutable), or NULL with a
 * VN_JSON_PARSE_ERROR whose one-line message says what is wrong and
 * where (the line only when the text has several), without naming the
 * input (callers prefix it):
 *   "nesting deeper than 64 levels at byte offset 64"
 *   "trailing data after the JSON value at byte offset 29"
 *   "member \"memory_mib\" given twice in one object, line 3"
 *   "invalid UTF-8 at byte offset 812, line 40"
 *   "not JSON: <json-glib's message>". */
JsonNode *vn_json_parse(const gchar *text, gsize len, GError **error);

/* Reads and parses the file at `path`.  Every error message starts with
 * "<path>: ".  A file that cannot be read keeps g_file_get_contents()'s
 * G_FILE_ERROR (so G_FILE_ERROR_NOENT can be told apart); a document
 * refused as above is VN_JSON_PARSE_ERROR. */
JsonNode *vn_json_parse_file(const gchar *path, GError **error);

/* `s` as a JSON string literal, quotes included ("a\nb" for a name
 * holding a newline), for messages that quote a member name or value on
 * one line.  `s` may be any bytes: what is not UTF-8 shows as U+FFFD. */
gchar *vn_json_quote(const gchar *s);
/* vn_json_quote() without the quotes: a plain name comes back as it is,
 * one holding a newline, a quote or a control character escaped, so a
 * message naming it stays one line. */
gchar *vn_json_escape(const gchar *s);
