/* vnd-head.h: where a request head ends, and whether it stays in bounds.
 *
 * vnumad reads each request head itself before libsoup parses it
 * (vnd-conn.c), so that a head too long for it is answered 414 or 431
 * instead of libsoup's reset connection (libsoup 3.2 drops a head over
 * 64 KiB without a word).  This is not an HTTP parser: it finds the empty
 * line that ends the head (LF or CRLF, as libsoup does, after any empty
 * lines before the request line, which libsoup skips too), measures the
 * request line and counts the lines after it.  Parsing stays libsoup's.
 *
 * Pure (GLib only) and incremental: fed the same growing buffer again, it
 * resumes where it stopped, so a client sending one byte at a time costs
 * one pass over its head. */
#pragma once

#include <glib.h>

typedef enum {
    VND_HEAD_MORE,            /* not ended yet, within bounds */
    VND_HEAD_COMPLETE,        /* ended: VndHeadScan.length bytes */
    VND_HEAD_LINE_TOO_LONG,   /* request line over its limit (414) */
    VND_HEAD_TOO_LARGE,       /* head over its limit (431) */
    VND_HEAD_TOO_MANY_FIELDS, /* more header lines than allowed (431) */
    VND_HEAD_MAX
} VndHeadResult;

typedef struct {
    gsize max_line;   /* request line, bytes with its line end */
    gsize max_head;   /* whole head, bytes with the empty line */
    guint max_fields; /* header lines (continuations count as lines) */
} VndHeadLimits;

/* The scan so far; zero-initialize before the first call. */
typedef struct {
    gsize offset;     /* bytes looked at */
    gsize line_start; /* where the current line began */
    gboolean in_request_line;
    gboolean started; /* past the empty lines before the request line */
    guint fields;
    gsize length; /* VND_HEAD_COMPLETE: the head's bytes */
    VndHeadResult result;
} VndHeadScan;

/* Continues `scan` over `data` (the head's first `len` bytes, of which
 * the earlier calls saw a prefix).  Once the result is not
 * VND_HEAD_MORE, it stays what it was. */
VndHeadResult vnd_head_scan(VndHeadScan *scan, const guint8 *data, gsize len,
                            const VndHeadLimits *limits);
const gchar *vnd_head_result_to_string(VndHeadResult r);
