/* test-head.c: vnumad's bounded scan of a request head (daemon/vnd-head.c). */
#include <string.h>
#include "vnd-head.h"

/* Small limits, so that each bound is a few bytes away. */
static const VndHeadLimits limits = { .max_line = 32, .max_head = 96, .max_fields = 3 };

static const struct {
    const gchar *name;
    const gchar *head; /* then "NEXT" follows: must not be taken */
    VndHeadResult result;
    gsize length; /* VND_HEAD_COMPLETE */
} cases[] = {
    { "crlf", "GET / HTTP/1.1\r\nHost: x\r\n\r\n", VND_HEAD_COMPLETE, 27 },
    { "lf", "GET / HTTP/1.1\nHost: x\n\n", VND_HEAD_COMPLETE, 24 },
    { "no-fields", "GET / HTTP/1.1\r\n\r\n", VND_HEAD_COMPLETE, 18 },
    { "blank-lines-first", "\r\n\r\nGET / HTTP/1.1\r\n\r\n", VND_HEAD_COMPLETE, 22 },
    { "bare-cr-is-no-line-end", "GET / HTTP/1.1\r\nA: b\r\r\n\r\n", VND_HEAD_COMPLETE, 25 },
    { "not-ended", "GET / HTTP/1.1\r\nHost: x\r\n", VND_HEAD_MORE, 0 },
    { "line-at-limit", "GET /2345678901234567 HTTP/1.1\r\n\r\n", VND_HEAD_COMPLETE, 34 },
    { "line-over-limit", "GET /23456789012345678 HTTP/1.1\r\n\r\n", VND_HEAD_LINE_TOO_LONG, 0 },
    { "line-never-ends", "GET /aaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaaa", VND_HEAD_LINE_TOO_LONG,
      0 },
    { "fields-at-limit", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\n\r\n", VND_HEAD_COMPLETE, 36 },
    { "fields-over-limit", "GET / HTTP/1.1\r\nA: 1\r\nB: 2\r\nC: 3\r\nD: 4\r\n\r\n",
      VND_HEAD_TOO_MANY_FIELDS, 0 },
    { "head-over-limit",
      "GET / HTTP/1.1\r\nA: 012345678901234567890123456789012345678901234567890123456789"
      "0123456789012345\r\n\r\n",
      VND_HEAD_TOO_LARGE, 0 },
    { "blank-lines-count",
      "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
      "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n"
      "\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n\r\n",
      VND_HEAD_TOO_LARGE, 0 },
};

/* One case's scan: its input is the head, then "NEXT"; a scan is given
 * `len` bytes of it (the head alone when more is expected, all of it
 * otherwise). */
typedef struct {
    guint i;
    GByteArray *b;
    gsize len;
    VndHeadScan scan;
} Scan;

static void
scan_setup(Scan *s, gconstpointer data)
{
    s->i = GPOINTER_TO_UINT(data);
    s->b = g_byte_array_new();
    g_byte_array_append(s->b, (const guint8 *)cases[s->i].head, (guint)strlen(cases[s->i].head));
    g_byte_array_append(s->b, (const guint8 *)"NEXT", 4);
    s->len = cases[s->i].result == VND_HEAD_MORE ? strlen(cases[s->i].head) : s->b->len;
}

static void
scan_teardown(Scan *s, gconstpointer data)
{
    g_byte_array_unref(s->b);
}

static void
check(guint i, VndHeadScan *scan, VndHeadResult r)
{
    g_assert_cmpstr(vnd_head_result_to_string(r), ==, vnd_head_result_to_string(cases[i].result));
    if (r == VND_HEAD_COMPLETE)
        g_assert_cmpuint(scan->length, ==, cases[i].length);
}

/* All at once. */
static void
test_whole(Scan *s, gconstpointer data)
{
    check(s->i, &s->scan, vnd_head_scan(&s->scan, s->b->data, s->len, &limits));
}

/* One byte more per call, as a slow client sends it: the same answer,
 * each byte looked at once. */
static void
test_bytewise(Scan *s, gconstpointer data)
{
    VndHeadResult r = VND_HEAD_MORE;

    for (gsize n = 1; n <= s->len && r == VND_HEAD_MORE; n++) {
        r = vnd_head_scan(&s->scan, s->b->data, n, &limits);
        g_assert_cmpuint(s->scan.offset, ==, n);
    }
    check(s->i, &s->scan, r);
    /* settled: more bytes change nothing */
    g_assert_cmpint(vnd_head_scan(&s->scan, s->b->data, s->b->len, &limits), ==, r);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    for (guint i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autofree gchar *whole = g_strdup_printf("/daemon/head/whole/%s", cases[i].name);
        g_autofree gchar *bytewise = g_strdup_printf("/daemon/head/bytewise/%s", cases[i].name);
        g_test_add(whole, Scan, GUINT_TO_POINTER(i), scan_setup, test_whole, scan_teardown);
        g_test_add(bytewise, Scan, GUINT_TO_POINTER(i), scan_setup, test_bytewise, scan_teardown);
    }
    return g_test_run();
}
