/* vnd-head.c: the bounded scan of a request head (see vnd-head.h). */
#include "vnd-head.h"

static const gchar *const result_names[] = {
    "more", "complete", "request line too long", "head too large", "too many header fields", NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(result_names) == VND_HEAD_MAX + 1);

const gchar *
vnd_head_result_to_string(VndHeadResult r)
{
    g_return_val_if_fail(r < VND_HEAD_MAX, NULL);
    return result_names[r];
}

/* A line that is empty but for its end: LF, or CR LF. */
static gboolean
line_empty(const guint8 *data, gsize start, gsize lf)
{
    return lf == start || (lf == start + 1 && data[start] == '\r');
}

/* One byte: the line it ends, or the bound it breaks. */
static VndHeadResult
step(VndHeadScan *s, const guint8 *data, gsize i, const VndHeadLimits *l)
{
    if (!s->started) {
        if (data[i] == '\r' || data[i] == '\n')
            return i + 1 > l->max_head ? VND_HEAD_TOO_LARGE : VND_HEAD_MORE;
        s->started = TRUE;
        s->in_request_line = TRUE;
        s->line_start = i;
    }
    if (s->in_request_line && i + 1 - s->line_start > l->max_line)
        return VND_HEAD_LINE_TOO_LONG;
    if (i + 1 > l->max_head)
        return VND_HEAD_TOO_LARGE;
    if (data[i] != '\n')
        return VND_HEAD_MORE;
    if (s->in_request_line) {
        s->in_request_line = FALSE;
    } else if (line_empty(data, s->line_start, i)) {
        s->length = i + 1;
        return VND_HEAD_COMPLETE;
    } else if (++s->fields > l->max_fields) {
        return VND_HEAD_TOO_MANY_FIELDS;
    }
    s->line_start = i + 1;
    return VND_HEAD_MORE;
}

VndHeadResult
vnd_head_scan(VndHeadScan *scan, const guint8 *data, gsize len, const VndHeadLimits *limits)
{
    g_return_val_if_fail(scan != NULL && limits != NULL, VND_HEAD_TOO_LARGE);
    g_return_val_if_fail(data != NULL || len == 0, VND_HEAD_TOO_LARGE);

    while (scan->result == VND_HEAD_MORE && scan->offset < len)
        scan->result = step(scan, data, scan->offset++, limits);
    return scan->result;
}
