/* bench-api: a keep-alive load generator for vnumad's unix socket.
 *
 *   bench-api --socket PATH [--requests N] [--connections C] [--pid PID]
 *             [--path /v1/plan] [--body JSON]
 *
 * C threads, each with one HTTP/1.1 connection kept alive, send POSTs
 * back to back (closed loop) until N requests are answered in all; every
 * answer must be 200.  Prints requests/s, latency percentiles and, with
 * --pid, the daemon's RSS before, every 10 % of the run, and after.
 * The client is deliberately raw (GSocket, no HTTP library) so that it
 * costs the machine as little as possible next to the daemon.
 */
#include <gio/gio.h>
#include <gio/gunixsocketaddress.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct {
    const gchar *socket_path;
    gchar *request; /* the full HTTP request, sent as is */
    gsize request_len;
    gint total;
    gint *next;         /* shared request counter (atomic) */
    GArray *latency_us; /* of gint64, this thread's */
    gint errors;
    gchar *first_error;
} Worker;

static gint64 *rss_marks; /* RSS KiB at each 10 % (from --pid) */
static gint bench_pid;

static gint64
rss_kib(gint pid)
{
    g_autofree gchar *path = g_strdup_printf("/proc/%d/status", pid);
    g_autofree gchar *text = NULL;
    const gchar *line;

    if (!g_file_get_contents(path, &text, NULL, NULL) || !(line = strstr(text, "VmRSS:")))
        return -1;
    return g_ascii_strtoll(line + 6, NULL, 10);
}

/* Reads one response: headers up to the blank line, then Content-Length
 * bytes.  Returns the status code, or -1. */
static gint
read_response(GSocket *s, GString *buf)
{
    gchar chunk[16384];
    const gchar *end, *cl;
    gsize need;

    g_string_truncate(buf, 0);
    while (!(end = strstr(buf->str, "\r\n\r\n"))) {
        gssize n = g_socket_receive(s, chunk, sizeof(chunk), NULL, NULL);
        if (n <= 0)
            return -1;
        g_string_append_len(buf, chunk, n);
    }
    cl = g_strstr_len(buf->str, end - buf->str, "Content-Length: ");
    need = (gsize)(end - buf->str) + 4 + (cl ? strtoul(cl + 16, NULL, 10) : 0);
    while (buf->len < need) {
        gssize n = g_socket_receive(s, chunk, sizeof(chunk), NULL, NULL);
        if (n <= 0)
            return -1;
        g_string_append_len(buf, chunk, n);
    }
    return buf->len >= 12 ? atoi(buf->str + 9) : -1;
}

static GSocket *
connect_unix(const gchar *path, GError **error)
{
    g_autoptr(GSocket) s =
        g_socket_new(G_SOCKET_FAMILY_UNIX, G_SOCKET_TYPE_STREAM, G_SOCKET_PROTOCOL_DEFAULT, error);
    g_autoptr(GSocketAddress) a = g_unix_socket_address_new(path);

    if (!s || !g_socket_connect(s, a, NULL, error))
        return NULL;
    return g_steal_pointer(&s);
}

static gpointer
work(gpointer data)
{
    Worker *w = data;
    g_autoptr(GError) error = NULL;
    g_autoptr(GSocket) s = connect_unix(w->socket_path, &error);
    g_autoptr(GString) buf = g_string_sized_new(8192);
    gint i;

    if (!s) {
        w->errors++;
        w->first_error = g_strdup(error->message);
        return NULL;
    }
    while ((i = g_atomic_int_add(w->next, 1)) < w->total) {
        gint64 t0 = g_get_monotonic_time(), dt;
        gint status;
        if (g_socket_send_with_blocking(s, w->request, w->request_len, TRUE, NULL, NULL) !=
                (gssize)w->request_len ||
            (status = read_response(s, buf)) < 0) {
            w->errors++;
            w->first_error = w->first_error ? w->first_error : g_strdup("connection lost");
            return NULL;
        }
        dt = g_get_monotonic_time() - t0;
        g_array_append_val(w->latency_us, dt);
        if (status != 200 && w->errors++ == 0)
            w->first_error = g_strdup_printf("status %d: %.200s", status, buf->str);
        if (bench_pid && w->total >= 10 && (i + 1) % (w->total / 10) == 0)
            rss_marks[(i + 1) / (w->total / 10)] = rss_kib(bench_pid);
    }
    return NULL;
}

static gint
cmp_i64(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

static gdouble
percentile(GArray *all, gdouble p)
{
    guint i = (guint)(p * (all->len - 1) + 0.5);
    return g_array_index(all, gint64, i) / 1000.0;
}

int
main(int argc, char **argv)
{
    gchar *socket_path = NULL, *path = NULL, *body = NULL;
    gint requests = 100000, connections = 4;
    const GOptionEntry entries[] = {
        { "socket", 0, 0, G_OPTION_ARG_FILENAME, &socket_path, "vnumad's socket", "PATH" },
        { "requests", 0, 0, G_OPTION_ARG_INT, &requests, "Requests in all (100000)", "N" },
        { "connections", 0, 0, G_OPTION_ARG_INT, &connections, "Keep-alive connections (4)", "C" },
        { "pid", 0, 0, G_OPTION_ARG_INT, &bench_pid, "Daemon pid, for its RSS", "PID" },
        { "path", 0, 0, G_OPTION_ARG_STRING, &path, "Path to POST (/v1/plan)", "PATH" },
        { "body", 0, 0, G_OPTION_ARG_STRING, &body, "JSON body", "JSON" },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = g_option_context_new(NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) all = g_array_new(FALSE, FALSE, sizeof(gint64));
    g_autofree gchar *request = NULL;
    g_autofree Worker *w = NULL;
    g_autofree GThread **threads = NULL;
    gint next = 0, errors = 0;
    gint64 rss_before, t0, elapsed;

    g_option_context_add_main_entries(ctx, entries, NULL);
    if (!g_option_context_parse(ctx, &argc, &argv, &error) || !socket_path || requests < 1 ||
        connections < 1 || connections > 1024) {
        fprintf(stderr, "bench-api: %s\n", error ? error->message : "--socket PATH is required");
        return 1;
    }
    if (!body)
        body = g_strdup("{\"vcpus\": 4, \"memory_mib\": 8192}");
    request =
        g_strdup_printf("POST %s HTTP/1.1\r\nHost: vnumad\r\nContent-Type: application/json\r\n"
                        "Content-Length: %zu\r\n\r\n%s",
                        path ? path : "/v1/plan", strlen(body), body);
    rss_marks = g_new0(gint64, 11);
    rss_before = bench_pid ? rss_kib(bench_pid) : -1;
    w = g_new0(Worker, connections);
    threads = g_new0(GThread *, connections);
    t0 = g_get_monotonic_time();
    for (gint i = 0; i < connections; i++) {
        w[i] = (Worker){ .socket_path = socket_path,
                         .request = request,
                         .request_len = strlen(request),
                         .total = requests,
                         .next = &next,
                         .latency_us = g_array_new(FALSE, FALSE, sizeof(gint64)) };
        threads[i] = g_thread_new("bench", work, &w[i]);
    }
    for (gint i = 0; i < connections; i++) {
        g_thread_join(threads[i]);
        g_array_append_vals(all, w[i].latency_us->data, w[i].latency_us->len);
        g_array_unref(w[i].latency_us);
        errors += w[i].errors;
        if (w[i].first_error)
            fprintf(stderr, "bench-api: %s\n", w[i].first_error);
        g_free(w[i].first_error);
    }
    elapsed = g_get_monotonic_time() - t0;
    if (all->len == 0) {
        fprintf(stderr, "bench-api: no answers\n");
        return 1;
    }
    g_array_sort(all, cmp_i64);
    printf("requests %u  connections %d  errors %d  seconds %.2f\n", all->len, connections, errors,
           elapsed / 1e6);
    printf("throughput %.0f req/s\n", all->len / (elapsed / 1e6));
    printf("latency ms: p50 %.3f  p90 %.3f  p99 %.3f  p99.9 %.3f  max %.3f\n",
           percentile(all, 0.50), percentile(all, 0.90), percentile(all, 0.99),
           percentile(all, 0.999), percentile(all, 1.0));
    if (bench_pid) {
        printf("rss KiB: before %" G_GINT64_FORMAT "  at each 10 %%:", rss_before);
        for (gint i = 1; i <= 10; i++)
            printf(" %" G_GINT64_FORMAT, rss_marks[i]);
        printf("  after %" G_GINT64_FORMAT "\n", rss_kib(bench_pid));
    }
    g_free(rss_marks);
    g_free(socket_path);
    g_free(path);
    g_free(body);
    return errors ? 1 : 0;
}
