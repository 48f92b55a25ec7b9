/* vn-trace-file.c: the CSV form of a VM trace (format: vn-trace-file.h). */
#include "vn-trace-file.h"
#include "vn-request.h"

#include <math.h>
#include <string.h>

G_DEFINE_QUARK(vn-trace-file-error-quark, vn_trace_file_error);

#define N_FIELDS 5

/* One line being parsed: where errors point. */
typedef struct {
    const gchar *file;
    guint line;
    gchar *fields[N_FIELDS]; /* stripped copies */
    guint column[N_FIELDS];  /* 1-based column where each field starts */
} Row;

static void
row_clear(Row *r)
{
    for (guint i = 0; i < N_FIELDS; i++)
        g_clear_pointer(&r->fields[i], g_free);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Row, row_clear)

static gboolean G_GNUC_PRINTF(4, 5)
    row_fail(GError **error, const Row *r, gint field, const gchar *fmt, ...)
{
    g_autofree gchar *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    if (field >= 0)
        g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_SYNTAX, "%s:%u:%u: %s", r->file,
                    r->line, r->column[field], msg);
    else
        g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_SYNTAX, "%s:%u: %s", r->file,
                    r->line, msg);
    return FALSE;
}

/* Splits `line` at commas, keeping each field's column. */
static gboolean
row_split(Row *r, const gchar *line, GError **error)
{
    const gchar *start = line;
    guint n = 0;

    for (const gchar *p = line;; p++) {
        if (*p != ',' && *p)
            continue;
        if (n == N_FIELDS)
            return row_fail(error, r, -1, "more than %u fields (expected %s)", N_FIELDS,
                            VN_TRACE_CSV_HEADER);
        r->column[n] = (guint)(start - line) + 1;
        r->fields[n++] = g_strstrip(g_strndup(start, p - start));
        if (!*p)
            break;
        start = p + 1;
    }
    if (n < N_FIELDS)
        return row_fail(error, r, -1, "%u field%s, expected %u (%s)", n, n == 1 ? "" : "s",
                        N_FIELDS, VN_TRACE_CSV_HEADER);
    return TRUE;
}

static gboolean
row_seconds(const Row *r, guint i, gboolean zero_ok, gdouble *ret, GError **error)
{
    const gchar *s = r->fields[i];
    gchar *end = NULL;
    gdouble v = *s ? g_ascii_strtod(s, &end) : NAN;

    if (!*s || *end || !isfinite(v) || v < 0 || (!zero_ok && v == 0))
        return row_fail(error, r, (gint)i, "%s: '%s' is not a number of seconds %s",
                        i == 0 ? "time_s" : "duration_s", s, zero_ok ? ">= 0" : "> 0");
    if (v > VN_TRACE_MAX_SECONDS)
        return row_fail(error, r, (gint)i, "%s: '%s' seconds is more than %.0e",
                        i == 0 ? "time_s" : "duration_s", s, VN_TRACE_MAX_SECONDS);
    *ret = v;
    return TRUE;
}

static gboolean
row_uint(const Row *r, guint i, const gchar *what, guint64 max, guint64 *ret, GError **error)
{
    if (!g_ascii_string_to_unsigned(r->fields[i], 10, 1, max, ret, NULL))
        return row_fail(error, r, (gint)i,
                        "%s: '%s' is not a whole number from 1 to %" G_GUINT64_FORMAT, what,
                        r->fields[i], max);
    return TRUE;
}

static gboolean
parse_row(VnTrace *trace, GHashTable *names, Row *r, const gchar *line, GError **error)
{
    gdouble time_s = 0, duration_s = 0;
    guint64 vcpus, memory_mib;

    if (!row_split(r, line, error) || !row_seconds(r, 0, TRUE, &time_s, error))
        return FALSE;
    if (!*r->fields[1])
        return row_fail(error, r, 1, "vm: a name is required");
    if (g_hash_table_contains(names, r->fields[1]))
        return row_fail(error, r, 1, "vm: '%s' appears twice", r->fields[1]);
    if (!row_uint(r, 2, "vcpus", VN_REQUEST_MAX_VCPUS, &vcpus, error) ||
        !row_uint(r, 3, "memory_mib", VN_REQUEST_MAX_MEMORY_MIB, &memory_mib, error) ||
        !row_seconds(r, 4, FALSE, &duration_s, error))
        return FALSE;
    g_hash_table_add(names, g_strdup(r->fields[1]));
    vn_trace_add(trace, r->fields[1], time_s, (guint)vcpus, memory_mib * 1024, duration_s);
    return TRUE;
}

static gboolean
check_header(const gchar *file, const gchar *line, GError **error)
{
    g_autofree gchar *h = g_strstrip(g_strdup(line));
    g_autofree gchar *compact = NULL;
    g_auto(GStrv) parts = g_strsplit(h, ",", -1);

    for (guint i = 0; parts[i]; i++)
        g_strstrip(parts[i]);
    compact = g_strjoinv(",", parts);
    if (g_str_equal(compact, VN_TRACE_CSV_HEADER))
        return TRUE;
    g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_SYNTAX,
                "%s:1:1: header must be '%s'", file, VN_TRACE_CSV_HEADER);
    return FALSE;
}

/* Refuses text that is not UTF-8 where it stops being so: the messages
 * quote fields, which would carry the bytes on. */
static gboolean
check_utf8(const gchar *text, const gchar *name, GError **error)
{
    const gchar *end, *line = text;
    guint n = 1;

    if (g_utf8_validate(text, -1, &end))
        return TRUE;
    for (const gchar *p = text; p < end; p++)
        if (*p == '\n') {
            n++;
            line = p + 1;
        }
    g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_SYNTAX, "%s:%u:%u: not UTF-8 text",
                name, n, (guint)(end - line) + 1);
    return FALSE;
}

VnTrace *
vn_trace_parse(const gchar *text, const gchar *name, GError **error)
{
    g_autoptr(VnTrace) trace = vn_trace_new();
    g_autoptr(GHashTable) names = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_auto(GStrv) lines = NULL;
    gboolean header = FALSE;

    if (!check_utf8(text, name, error))
        return NULL;
    lines = g_strsplit(text, "\n", -1);

    for (guint i = 0; lines[i]; i++) {
        g_auto(Row) row = { .file = name, .line = i + 1 };
        gchar *line = lines[i];
        gsize len = strlen(line);

        if (len && line[len - 1] == '\r')
            line[len - 1] = '\0';
        if (line[strspn(line, " \t")] == '\0' || line[strspn(line, " \t")] == '#')
            continue;
        if (!header) {
            if (!check_header(name, line, error))
                return NULL;
            header = TRUE;
            continue;
        }
        if (!parse_row(trace, names, &row, line, error))
            return NULL;
    }
    if (!trace->vms->len) {
        g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_EMPTY,
                    "%s: no VMs (expected a header '%s' and one line per VM)", name,
                    VN_TRACE_CSV_HEADER);
        return NULL;
    }
    return g_steal_pointer(&trace);
}

VnTrace *
vn_trace_load_file(const gchar *path, GError **error)
{
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;

    if (!g_file_get_contents(path, &text, NULL, &local)) {
        /* GLib's message quotes the path with characters that the C
         * locale cannot show; the common case gets a plain one. */
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_READ, "%s: no such file",
                        path);
        else
            g_set_error(error, VN_TRACE_FILE_ERROR, VN_TRACE_FILE_ERROR_READ, "%s", local->message);
        return NULL;
    }
    return vn_trace_parse(text, path, error);
}

gchar *
vn_trace_format(const VnTrace *t)
{
    GString *s = g_string_new(VN_TRACE_CSV_HEADER "\n");

    for (guint i = 0; i < t->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(t->vms, VnTraceVm, i);
        gchar time[G_ASCII_DTOSTR_BUF_SIZE], duration[G_ASCII_DTOSTR_BUF_SIZE];

        g_ascii_dtostr(time, sizeof(time), vm->time_s);
        g_ascii_dtostr(duration, sizeof(duration), vm->duration_s);
        g_string_append_printf(s, "%s,%s,%u,%" G_GUINT64_FORMAT ",%s\n", time, vm->name, vm->vcpus,
                               vm->memory_kib / 1024, duration);
    }
    return g_string_free(s, FALSE);
}
