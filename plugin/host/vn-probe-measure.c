/* vn-probe-measure.c: pointer walks and reads on memory bound to a node.
 *
 * The buffer is mapped with mmap() and bound with mbind() rather than
 * numa_alloc_onnode(): libnuma reports a failed bind on stderr, and library
 * code must not print.  The walking thread is bound with numa_run_on_node()
 * and checks with sched_getcpu() that it runs on its node.
 */
#define _GNU_SOURCE
#include "vn-probe-measure.h"

#include <errno.h>
#include <numa.h>
#include <numaif.h>
#include <sched.h>
#include <string.h>
#include <sys/mman.h>
#include <unistd.h>

G_DEFINE_QUARK(vn-probe-measure-error-quark, vn_probe_measure_error);

#define LINE 64 /* bytes a step of the walk: one cache line */

gdouble
vn_probe_default_seconds(const VnTopology *t, gboolean quick)
{
    guint cpu_nodes = 0, mem_nodes = 0;

    for (guint i = 0; i < t->n_nodes; i++) {
        cpu_nodes += vn_topology_node_ncpus(t, i) > 0;
        mem_nodes += t->nodes[i].mem_total_kib > 0;
    }
    return MIN(quick ? 2.0 : 10.0, (quick ? 0.03 : 0.15) * MAX(cpu_nodes * mem_nodes, 1));
}

/* One memory node's buffer. */
typedef struct {
    guint8 *buf;
    gsize bytes;
} Buffer;

static void
buffer_clear(Buffer *b)
{
    if (b->buf)
        munmap(b->buf, b->bytes);
    b->buf = NULL;
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Buffer, buffer_clear)

/* Maps `bytes` bound to node `os_id` and faults every page in. */
static gchar *
buffer_bind(Buffer *b, gsize bytes, guint os_id, gboolean numa)
{
    gsize longs = os_id / (8 * sizeof(unsigned long)) + 2;
    g_autofree unsigned long *mask = g_new0(unsigned long, longs);

    b->bytes = bytes;
    b->buf = mmap(NULL, bytes, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (b->buf == MAP_FAILED) {
        b->buf = NULL;
        return g_strdup_printf("cannot map %" G_GSIZE_FORMAT " MiB: %s", bytes >> 20,
                               g_strerror(errno));
    }
    mask[os_id / (8 * sizeof(unsigned long))] = 1ul << (os_id % (8 * sizeof(unsigned long)));
    if (numa && mbind(b->buf, bytes, MPOL_BIND, mask, longs * 8 * sizeof(unsigned long), 0) < 0)
        return g_strdup_printf("cannot bind memory to it: %s", g_strerror(errno));
    memset(b->buf, 1, bytes);
    return NULL;
}

/* NULL when every page of the buffer is on `os_id` (move_pages(2) with no
 * target nodes only reports where each page is). */
static gchar *
buffer_check(const Buffer *b, guint os_id)
{
    gsize page = (gsize)sysconf(_SC_PAGESIZE), n = b->bytes / page, away = 0;
    g_autofree void **pages = g_new(void *, n);
    g_autofree int *status = g_new(int, n);
    int other = -1;

    for (gsize i = 0; i < n; i++)
        pages[i] = b->buf + i * page;
    if (move_pages(0, n, pages, NULL, status, 0) < 0)
        return g_strdup_printf("move_pages cannot tell where its pages are: %s", g_strerror(errno));
    for (gsize i = 0; i < n; i++)
        if (status[i] != (int)os_id) {
            away++;
            other = status[i];
        }
    if (away == 0)
        return NULL;
    return g_strdup_printf("%" G_GSIZE_FORMAT " of its %" G_GSIZE_FORMAT
                           " pages were elsewhere (%s %d)",
                           away, n, other < 0 ? "status" : "node", other);
}

/* A random cyclic permutation of the buffer's lines (Sattolo's shuffle:
 * one cycle through every line), each line holding the next one's address,
 * so the walk visits every line in an order the prefetcher cannot guess. */
static void
buffer_chain(Buffer *b)
{
    gsize lines = b->bytes / LINE;
    g_autofree guint32 *next = g_new(guint32, lines);
    g_autoptr(GRand) rand = g_rand_new_with_seed(20261202);

    for (gsize i = 0; i < lines; i++)
        next[i] = (guint32)i;
    for (gsize i = lines - 1; i > 0; i--) {
        gsize j = g_rand_int_range(rand, 0, (gint32)i);
        guint32 tmp = next[i];
        next[i] = next[j];
        next[j] = tmp;
    }
    for (gsize i = 0; i < lines; i++)
        *(void **)(b->buf + i * LINE) = b->buf + (gsize)next[i] * LINE;
}

typedef struct {
    const Buffer *b;
    const VnBitmap *cpus; /* the CPU node's */
    guint cpu_os;
    gboolean numa;
    gint64 walk_us, read_us;
    gdouble latency_ns, bandwidth_mbs;
    gchar *error;
} Walk;

static void *volatile sink;

static gdouble
walk_chain(const Buffer *b, gint64 us)
{
    void **p = (void **)b->buf;
    gint64 start = g_get_monotonic_time(), now;
    guint64 steps = 0;

    do {
        for (guint k = 0; k < 1024; k++)
            p = (void **)*p;
        steps += 1024;
        now = g_get_monotonic_time();
    } while (now - start < us);
    sink = p;
    return (gdouble)(now - start) * 1000.0 / (gdouble)steps;
}

/* Sequential 64-bit loads, the clock read every 1 MiB so that a slow
 * machine (an emulated one) stops on time too. */
static gdouble
read_buffer(const Buffer *b, gint64 us)
{
    const guint64 *w = (const guint64 *)b->buf;
    gsize n = b->bytes / sizeof(guint64), chunk = MIN((gsize)(1u << 20) / sizeof(guint64), n);
    gint64 start = g_get_monotonic_time(), now;
    guint64 sum = 0, loads = 0;
    gsize at = 0;

    do {
        for (gsize i = 0; i < chunk; i++)
            sum += w[at + i];
        loads += chunk;
        at = at + 2 * chunk <= n ? at + chunk : 0;
        now = g_get_monotonic_time();
    } while (now - start < us);
    sink = GSIZE_TO_POINTER(sum);
    return (gdouble)(loads * sizeof(guint64)) / (gdouble)MAX(now - start, 1);
}

static gpointer
walk_thread(gpointer data)
{
    Walk *w = data;
    int cpu;

    if (w->numa && numa_run_on_node((int)w->cpu_os) < 0) {
        w->error = g_strdup_printf("cannot run on it: %s", g_strerror(errno));
        return NULL;
    }
    cpu = sched_getcpu();
    if (w->numa && (cpu < 0 || !vn_bitmap_test(w->cpus, (guint)cpu))) {
        w->error = g_strdup_printf("the thread ran on CPU %d, not one of the node's", cpu);
        return NULL;
    }
    w->latency_ns = walk_chain(w->b, w->walk_us);
    w->bandwidth_mbs = read_buffer(w->b, w->read_us);
    return NULL;
}

typedef struct {
    const VnTopology *t;
    VnProbe *probe;
    GPtrArray *notes;
    gboolean numa;
    guint cpu_nodes;
    guint columns_left;  /* memory nodes not measured yet, this one included */
    gint64 deadline;     /* monotonic us */
    gint64 setup_max_us; /* longest map + touch + check + chain so far */
    gint64 walk_us, read_us;
} Run;

/* The time left, less the setups still to come, shared by the pairs left;
 * 2/3 of a pair's share walks, 1/3 reads. */
static void
set_slices(Run *r)
{
    gint64 left = r->deadline - g_get_monotonic_time() - r->setup_max_us * (r->columns_left - 1);
    gint64 slice = left / MAX(r->cpu_nodes * r->columns_left, 1);

    r->walk_us = MAX(slice * 2 / 3, 2000);
    r->read_us = MAX(slice / 3, 1000);
}

static void
measure_pair(Run *r, const Buffer *b, guint i, guint j)
{
    Walk w = { .b = b,
               .cpus = r->t->nodes[i].cpus,
               .cpu_os = r->t->nodes[i].os_id,
               .numa = r->numa,
               .walk_us = r->walk_us,
               .read_us = r->read_us };
    GThread *thread = g_thread_new("vn-probe", walk_thread, &w);

    g_thread_join(thread);
    if (w.error) {
        g_ptr_array_add(r->notes,
                        g_strdup_printf("CPU node %u -> memory node %u: %s", r->t->nodes[i].os_id,
                                        r->t->nodes[j].os_id, w.error));
        g_free(w.error);
        return;
    }
    vn_probe_set(r->probe, i, j, w.latency_ns, w.bandwidth_mbs);
}

/* Every CPU node against memory node j; the column is dropped again when
 * the pages moved meanwhile. */
static void
measure_column(Run *r, guint j, gsize bytes)
{
    g_auto(Buffer) b = { 0 };
    guint os = r->t->nodes[j].os_id;
    gint64 start = g_get_monotonic_time();
    g_autofree gchar *why = buffer_bind(&b, bytes, os, r->numa);

    if (!why && r->numa)
        why = buffer_check(&b, os);
    if (!why) {
        buffer_chain(&b);
        r->setup_max_us = MAX(r->setup_max_us, g_get_monotonic_time() - start);
        set_slices(r);
        for (guint i = 0; i < r->t->n_nodes; i++)
            if (vn_topology_node_ncpus(r->t, i) > 0)
                measure_pair(r, &b, i, j);
        if (r->numa)
            why = buffer_check(&b, os);
        for (guint i = 0; why && i < r->t->n_nodes; i++)
            vn_probe_set(r->probe, i, j, -1.0, -1.0);
    }
    if (why)
        g_ptr_array_add(r->notes, g_strdup_printf("memory node %u: %s", os, why));
    r->columns_left--;
}

VnProbe *
vn_probe_measure(const VnTopology *t, const VnProbeOptions *o, GPtrArray **ret_notes,
                 GError **error)
{
    g_autoptr(VnProbe) probe = vn_probe_new(t->n_nodes);
    g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);
    Run r = { .t = t,
              .probe = probe,
              .notes = notes,
              .numa = numa_available() >= 0,
              .deadline = g_get_monotonic_time() + (gint64)(o->seconds * 1e6) };
    gboolean any = FALSE;

    g_return_val_if_fail(o->buffer_bytes >= (1u << 20) && o->seconds > 0, NULL);
    for (guint i = 0; i < t->n_nodes; i++) {
        r.cpu_nodes += vn_topology_node_ncpus(t, i) > 0;
        r.columns_left += t->nodes[i].mem_total_kib > 0;
    }
    if (!r.numa)
        g_ptr_array_add(notes, g_strdup("the kernel has no NUMA support: memory measured unbound, "
                                        "its pages not checked"));
    for (guint j = 0; j < t->n_nodes; j++)
        if (t->nodes[j].mem_total_kib > 0)
            measure_column(&r, j, (gsize)o->buffer_bytes);
    for (guint i = 0; i < t->n_nodes * t->n_nodes; i++)
        any |= probe->latency_ns[i] > 0;
    if (!any) {
        g_set_error(error, VN_PROBE_MEASURE_ERROR, VN_PROBE_MEASURE_ERROR_NOTHING,
                    "no node pair could be measured%s%s", notes->len ? ": " : "",
                    notes->len ? (const gchar *)notes->pdata[0] : "");
        return NULL;
    }
    if (ret_notes)
        *ret_notes = g_steal_pointer(&notes);
    return g_steal_pointer(&probe);
}
