/* bench-plan.c: median microseconds per vn_plan() on hosts of 2..256
 * nodes, empty and with 200 resident VMs, for 1-node, 2-, 4- and 8-cell VMs
 * and a request that fits nowhere.  Run by `make bench` (tools/bench.sh).
 *
 *   bench-plan                 the table (the default balance, adaptive)
 *   bench-plan --balance NAME  the table with [placement] balance NAME
 *   bench-plan --working-set N set up an N-node host with 200 VMs, then plan
 *                              an 8-cell VM once and print the peak heap the
 *                              plan added (malloc is interposed below to
 *                              count live bytes while the plan runs; glibc
 *                              allows that; the timings do not count)
 */
#include "vn-plan.h"
#include "vn-test-topologies.h"

#include <malloc.h>
#include <stdio.h>
#include <stdlib.h>

#define GIB (1024ull * 1024ull)

/* ---- live-heap accounting (glibc malloc interposition) ---- */
extern void *__libc_malloc(size_t n);
extern void *__libc_calloc(size_t n, size_t size);
extern void *__libc_realloc(void *p, size_t n);
extern void __libc_free(void *p);
static gssize heap_live, heap_peak;
static gboolean heap_counting; /* only while --working-set's plan runs */

static void
heap_add(void *p)
{
    if (p && heap_counting) {
        heap_live += malloc_usable_size(p);
        heap_peak = MAX(heap_peak, heap_live);
    }
}

void *malloc(size_t n);
void *calloc(size_t n, size_t size);
void *realloc(void *p, size_t n);
void free(void *p);

void *
malloc(size_t n)
{
    void *p = __libc_malloc(n);
    heap_add(p);
    return p;
}

void *
calloc(size_t n, size_t size)
{
    void *p = __libc_calloc(n, size);
    heap_add(p);
    return p;
}

void *
realloc(void *p, size_t n)
{
    void *q;
    if (p && heap_counting)
        heap_live -= malloc_usable_size(p);
    q = __libc_realloc(p, n);
    heap_add(q);
    if (!q && p && n && heap_counting)
        heap_live += malloc_usable_size(p); /* failed: the old block lives */
    return q;
}

void
free(void *p)
{
    if (p && heap_counting)
        heap_live -= malloc_usable_size(p);
    __libc_free(p);
}
#define NODE_CORES 16
#define NODE_THREADS 2
#define NODE_GIB 256

typedef struct {
    const gchar *name;
    gdouble mem_nodes; /* memory as a multiple of one node's */
    guint vcpus;
    guint min_nodes; /* host must have at least this many nodes */
} Case;

static const Case cases[] = {
    { "1-node", 0.25, 8, 1 }, { "2-cell", 1.5, 24, 2 }, { "4-cell", 3.5, 48, 4 },
    { "8-cell", 7.5, 96, 8 }, { "no-fit", 0.0, 8, 1 }, /* memory: the whole host plus one node */
};

/* --cache-domains: 4 L3 caches a node and [placement] cache_domains =
 * prefer, to price the choice of domains. */
static gboolean cache_domains;

static VnTopology *
host(guint nodes)
{
    return vn_test_topology_l3(nodes == 2 ? VN_SHAPE_INTEL_2S : VN_SHAPE_HIER, nodes, NODE_CORES,
                               NODE_THREADS, NODE_GIB, cache_domains ? 4 : 0);
}

static VnPolicy *
host_policy(const VnTopology *t)
{
    VnPolicy *p = vn_policy_new_default(t);

    p->cache_domains = cache_domains ? VN_CACHE_DOMAINS_PREFER : VN_CACHE_DOMAINS_OFF;
    return p;
}

/* Fills the host with up to `n` resident 1..2-vCPU VMs taking about 30 %
 * of the host's memory together (sizes vary by a factor of 4). */
static guint
add_residents(const VnTopology *t, VnLoad *load, const VnPolicy *policy, guint n)
{
    guint placed = 0;
    guint64 unit = (guint64)t->n_nodes * NODE_GIB * GIB * 3 / 10 / (n ? n : 1) / 5 * 2;

    for (guint i = 0; i < n; i++) {
        g_autoptr(VnRequest) r = vn_request_new();
        g_autoptr(VnPlacement) p = NULL;
        r->vcpus = 1 + i % 2;
        r->memory_kib = MAX(unit * (1 + i % 4) / 1024 * 1024, 1024);
        p = vn_plan(t, load, policy, r, NULL, NULL);
        if (!p)
            continue;
        vn_load_commit(load, t, policy, r, p);
        placed++;
    }
    return placed;
}

static VnRequest *
case_request(const Case *c, guint nodes)
{
    VnRequest *r = vn_request_new();

    r->vcpus = c->vcpus;
    r->memory_kib = c->mem_nodes > 0 ? (guint64)(c->mem_nodes * NODE_GIB) * GIB
                                     : (guint64)(nodes + 1) * NODE_GIB * GIB;
    return r;
}

static gint
i64_cmp(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

/* Median over `runs` plans, in microseconds (to 0.1 us). */
static gdouble
median_us(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const VnRequest *r,
          guint runs, gboolean *ret_placed)
{
    g_autofree gint64 *ns = g_new(gint64, runs);

    for (guint i = 0; i < runs; i++) {
        struct timespec a, b;
        g_autoptr(VnPlacement) p = NULL;
        clock_gettime(CLOCK_MONOTONIC, &a);
        p = vn_plan(t, load, policy, r, NULL, NULL);
        clock_gettime(CLOCK_MONOTONIC, &b);
        ns[i] = (b.tv_sec - a.tv_sec) * 1000000000ll + (b.tv_nsec - a.tv_nsec);
        *ret_placed = p != NULL;
    }
    qsort(ns, runs, sizeof(gint64), i64_cmp);
    return ns[runs / 2] / 1000.0;
}

static int
run_table(VnBalance balance)
{
    static const guint sizes[] = { 2, 4, 8, 16, 24, 64, 256 };

    printf("%-6s %-9s %-8s %12s  %s\n", "nodes", "residents", "case", "median_us", "result");
    for (guint s = 0; s < G_N_ELEMENTS(sizes); s++) {
        for (guint resident = 0; resident <= 200; resident += 200) {
            g_autoptr(VnTopology) t = host(sizes[s]);
            g_autoptr(VnLoad) load = vn_load_new(t);
            g_autoptr(VnPolicy) policy = host_policy(t);
            guint placed;
            guint runs = sizes[s] >= 64 ? 101 : 1001;

            policy->balance = balance;
            placed = add_residents(t, load, policy, resident);

            for (guint c = 0; c < G_N_ELEMENTS(cases); c++) {
                g_autoptr(VnRequest) r = NULL;
                gboolean ok = FALSE;
                gdouble us;
                if (sizes[s] < cases[c].min_nodes)
                    continue;
                r = case_request(&cases[c], sizes[s]);
                us = median_us(t, load, policy, r, runs, &ok);
                printf("%-6u %-9u %-8s %12.1f  %s\n", sizes[s], placed, cases[c].name, us,
                       ok ? "placed" : "no fit");
            }
        }
    }
    return 0;
}

static int
run_working_set(guint nodes)
{
    g_autoptr(VnTopology) t = host(nodes);
    g_autoptr(VnLoad) load = vn_load_new(t);
    g_autoptr(VnPolicy) policy = host_policy(t);
    g_autoptr(VnRequest) r = NULL;
    g_autoptr(VnPlacement) p = NULL;
    guint placed = add_residents(t, load, policy, 200);

    r = case_request(&cases[3], nodes);
    heap_live = heap_peak = 0;
    heap_counting = TRUE;
    p = vn_plan(t, load, policy, r, NULL, NULL);
    heap_counting = FALSE;
    printf("%u nodes, %u resident VMs, 8-cell VM %s: plan working set %zu KiB (peak heap above the "
           "host's own data)\n",
           nodes, placed, p ? "placed" : "not placed", (gsize)heap_peak / 1024);
    return p ? 0 : 1;
}

int
main(int argc, char **argv)
{
    VnBalance balance = VN_BALANCE_ADAPTIVE;

    if (argc >= 2 && g_str_equal(argv[1], "--cache-domains")) {
        cache_domains = TRUE;
        argc--;
        argv++;
    }
    if (argc == 3 && g_str_equal(argv[1], "--working-set"))
        return run_working_set((guint)g_ascii_strtoull(argv[2], NULL, 10));
    if (argc == 3 && g_str_equal(argv[1], "--balance") && vn_balance_from_string(argv[2], &balance))
        return run_table(balance);
    if (argc != 1) {
        fprintf(stderr,
                "usage: bench-plan [--cache-domains] [--working-set NODES | --balance NAME]\n");
        return 1;
    }
    return run_table(balance);
}
