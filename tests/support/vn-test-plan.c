/* vn-test-plan.c: see vn-test-plan.h. */
#include "vn-test-plan.h"


void
vn_test_host_init(VnTestHost *h, VnTopology *t)
{
    h->t = t;
    h->load = vn_load_new(t);
    h->policy = vn_policy_new_default(t);
}

void
vn_test_host_clear(VnTestHost *h)
{
    vn_load_free(h->load);
    vn_policy_free(h->policy);
    vn_topology_free(h->t);
}

VnRequest *
vn_test_request(guint vcpus, guint64 mem_gib)
{
    VnRequest *r = vn_request_new();
    r->vcpus = vcpus;
    r->memory_kib = mem_gib * GIB;
    return r;
}

VnPlacement *
vn_test_plan_ok(VnTestHost *h, const VnRequest *r)
{
    g_autoptr(GError) error = NULL;
    VnPlacement *p = vn_plan(h->t, h->load, h->policy, r, NULL, &error);

    g_assert_no_error(error);
    g_assert_nonnull(p);
    return p;
}

/* Every vCPU in exactly one cell; memory sums to the request; pins inside
 * the cell's node and outside the reserved CPUs. */
void
vn_test_assert_invariants(const VnTestHost *h, const VnRequest *r, const VnPlacement *p)
{
    guint next = 0;
    guint64 mem = 0;

    g_assert_cmpuint(p->vcpu_pins->len, ==, r->vcpus);
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        g_assert_cmpuint(c->id, ==, i);
        g_assert_cmpuint(c->vcpu_first, ==, next);
        if (!vn_bitmap_is_empty(h->t->nodes[c->node].cpus))
            g_assert_cmpuint(c->n_vcpus, >=, 1);
        next += c->n_vcpus;
        mem += c->memory_kib;
        for (guint v = c->vcpu_first; v < c->vcpu_first + c->n_vcpus; v++) {
            const VnBitmap *pin = g_ptr_array_index(p->vcpu_pins, v);
            g_assert_false(vn_bitmap_is_empty(pin));
            VN_BITMAP_FOREACH(pin, cpu) {
                g_assert_true(vn_bitmap_test(h->t->nodes[c->node].cpus, (guint)cpu));
                g_assert_false(vn_bitmap_test(h->policy->reserved_cpus, (guint)cpu));
            }
        }
    }
    g_assert_cmpuint(next, ==, r->vcpus);
    g_assert_cmpuint(mem, ==, r->memory_kib);
    g_assert_nonnull(p->emulator_cpus);
    g_assert_false(vn_bitmap_is_empty(p->emulator_cpus));
    g_assert_cmpuint(p->iothreads->len, ==, r->iothreads);
    g_assert_cmpuint(p->reasons->len, >, 0);
}

guint
vn_test_nodes_used(const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);
    return nodes->len;
}

/* ---- the brute-force oracle ---- */

typedef struct {
    guint64 mem_cap[64];   /* MiB per node for a k-cell set (overhead/k off) */
    guint64 vcpu_cap[64];
} OracleCaps;

static void
oracle_caps(const VnTestHost *h, const VnRequest *r, guint k, OracleCaps *o)
{
    guint64 overhead = vn_policy_overhead_kib(h->policy, r->memory_kib) / k;

    for (guint i = 0; i < h->t->n_nodes; i++) {
        const VnNode *n = &h->t->nodes[i];
        guint64 headroom = n->mem_total_kib / 100 * h->policy->headroom_percent;
        guint64 used = headroom + h->load->nodes[i].committed_memory_kib + overhead;
        guint cpus = vn_bitmap_count(n->cpus);
        guint cap = (guint)(cpus * h->policy->cpu_overcommit);

        o->mem_cap[i] = n->mem_total_kib > used ? (n->mem_total_kib - used) / 1024 : 0;
        o->vcpu_cap[i] = cap > h->load->nodes[i].committed_vcpus ? cap - h->load->nodes[i].committed_vcpus : 0;
    }
}

/* Minimal k and minimal internal distance for it over all k-subsets;
 * returns FALSE when no subset of any size fits. */
gboolean
vn_test_oracle(const VnTestHost *h, const VnRequest *r, guint *ret_k, guint *ret_dist)
{
    guint n = h->t->n_nodes;

    for (guint k = 1; k <= MIN(n, r->vcpus); k++) {
        OracleCaps o;
        guint best = G_MAXUINT;
        oracle_caps(h, r, k, &o);
        for (guint32 mask = 0; mask < (1u << n); mask++) {
            guint64 mem = 0, vc = 0;
            guint dist = 0;
            gboolean ok = TRUE;
            if ((guint)__builtin_popcount(mask) != k)
                continue;
            for (guint i = 0; i < n && ok; i++) {
                if (!(mask & (1u << i)))
                    continue;
                ok = o.mem_cap[i] >= 1 && o.vcpu_cap[i] >= 1;
                mem += o.mem_cap[i];
                vc += o.vcpu_cap[i];
                for (guint j = i + 1; j < n; j++)
                    if (mask & (1u << j))
                        dist += vn_topology_distance(h->t, i, j);
            }
            if (ok && mem >= r->memory_kib / 1024 && vc >= r->vcpus)
                best = MIN(best, dist);
        }
        if (best != G_MAXUINT) {
            *ret_k = k;
            *ret_dist = best;
            return TRUE;
        }
    }
    return FALSE;
}

guint
vn_test_placement_distance(const VnTestHost *h, const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);
    guint d = 0;

    for (guint i = 0; i < nodes->len; i++)
        for (guint j = i + 1; j < nodes->len; j++)
            d += vn_topology_distance(h->t, g_array_index(nodes, guint, i), g_array_index(nodes, guint, j));
    return d;
}

