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

VnRequest *
vn_test_sized_request(GRand *rand, guint max_cells, guint max_vcpus, guint64 max_gib)
{
    VnRequest *r = vn_request_new();

    r->cells = (guint)g_rand_int_range(rand, 2, (gint)max_cells + 1);
    for (guint i = 0; i < r->cells; i++) {
        guint vcpus = (guint)g_rand_int_range(rand, 1, (gint)max_vcpus + 1);
        guint64 kib = (guint64)g_rand_int_range(rand, 1, (gint)max_gib + 1) * GIB;
        vn_request_add_cell_size(r, vcpus, kib);
        r->vcpus += vcpus;
        r->memory_kib += kib;
    }
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
    if (r->cell_sizes) { /* cell i is the request's cell i, whatever its node */
        g_assert_cmpuint(p->cells->len, ==, r->cell_sizes->len);
        for (guint i = 0; i < p->cells->len; i++) {
            g_assert_cmpuint(g_array_index(p->cells, VnCell, i).n_vcpus, ==,
                             g_array_index(r->cell_sizes, VnCellSize, i).vcpus);
            g_assert_cmpuint(g_array_index(p->cells, VnCell, i).memory_kib, ==,
                             g_array_index(r->cell_sizes, VnCellSize, i).memory_kib);
        }
    }
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
            VN_BITMAP_FOREACH (pin, cpu) {
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
    guint64 mem_cap[64]; /* MiB per node for a k-cell set (overhead/k off) */
    guint64 mem_cap_kib[64];
    guint64 vcpu_cap[64];
} OracleCaps;

/* `per_cpu`: a node takes no more of the VM's shared vCPUs than that many
 * a CPU (1 first; more only as the planner's last resort); 0: any. */
static void
oracle_caps(const VnTestHost *h, const VnRequest *r, guint k, guint per_cpu, OracleCaps *o)
{
    guint64 overhead = vn_policy_overhead_kib(h->policy, r->memory_kib) / k;

    for (guint i = 0; i < h->t->n_nodes; i++) {
        const VnNode *n = &h->t->nodes[i];
        guint64 headroom = n->mem_total_kib / 100 * h->policy->headroom_percent;
        guint64 used = headroom + h->load->nodes[i].committed_memory_kib + overhead;
        guint cpus = vn_bitmap_count(n->cpus);
        guint cap = (guint)(cpus * h->policy->cpu_overcommit);

        o->mem_cap_kib[i] = n->mem_total_kib > used ? n->mem_total_kib - used : 0;
        o->mem_cap[i] = o->mem_cap_kib[i] / 1024;
        o->vcpu_cap[i] =
            cap > h->load->nodes[i].committed_vcpus ? cap - h->load->nodes[i].committed_vcpus : 0;
        if (per_cpu && !r->dedicated)
            o->vcpu_cap[i] = MIN(o->vcpu_cap[i], (guint64)cpus * per_cpu);
    }
}

/* Guest cells of their own sizes on the k nodes of `mask`: tries every map
 * of cells to nodes (k^cells); a map fits when every node holds at least
 * one cell and each node, on its own, the sums of its cells. */
static gboolean
oracle_cells_fit(const VnRequest *r, const OracleCaps *o, guint32 mask, guint k)
{
    guint nodes[32], n = 0, total = 1;

    for (guint i = 0; i < 32; i++)
        if (mask & (1u << i))
            nodes[n++] = i;
    for (guint c = 0; c < r->cells; c++)
        total *= k;
    for (guint code = 0; code < total; code++) {
        guint64 mem[32] = { 0 }, vcpus[32] = { 0 };
        guint used = 0, x = code;
        gboolean ok = TRUE;
        for (guint c = 0; c < r->cells; c++, x /= k) {
            const VnCellSize *cs = &g_array_index(r->cell_sizes, VnCellSize, c);
            mem[x % k] += cs->memory_kib;
            vcpus[x % k] += cs->vcpus;
            used |= 1u << (x % k);
        }
        if (used != (1u << k) - 1)
            continue;
        for (guint m = 0; m < k && ok; m++)
            ok = mem[m] <= o->mem_cap_kib[nodes[m]] && vcpus[m] <= o->vcpu_cap[nodes[m]];
        if (ok)
            return TRUE;
    }
    return FALSE;
}

/* Minimal k and minimal internal distance for it over all k-subsets;
 * returns FALSE when no subset of any size fits. */
static gboolean
oracle_pass(const VnTestHost *h, const VnRequest *r, guint per_cpu, guint *ret_k, guint *ret_dist)
{
    guint n = h->t->n_nodes;

    g_assert_true(!r->cell_sizes || (r->cells <= 6 && r->cell_sizes->len == r->cells));
    for (guint k = 1; k <= MIN(n, r->cell_sizes ? r->cells : r->vcpus); k++) {
        OracleCaps o;
        guint best = G_MAXUINT;
        oracle_caps(h, r, k, per_cpu, &o);
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
            if (r->cell_sizes) {
                if (ok && dist < best && oracle_cells_fit(r, &o, mask, k))
                    best = dist;
            } else if (ok && mem >= r->memory_kib / 1024 && vc >= r->vcpus) {
                best = MIN(best, dist);
            }
        }
        if (best != G_MAXUINT) {
            *ret_k = k;
            *ret_dist = best;
            return TRUE;
        }
    }
    return FALSE;
}

/* The same, first with no node running more of the VM's shared vCPUs
 * than it has CPUs, then (only when nothing fits so) 2, 4, ... of them a
 * CPU, the last pass without a limit once that reaches the overcommit.
 * *ret_per_cpu (may be NULL): the limit of the pass that fits. */
static gboolean
oracle_passes(const VnTestHost *h, const VnRequest *r, guint *ret_k, guint *ret_dist,
              guint *ret_per_cpu)
{
    for (guint per_cpu = 1;; per_cpu *= 2) {
        guint limit = per_cpu < h->policy->cpu_overcommit ? per_cpu : 0;
        if (ret_per_cpu)
            *ret_per_cpu = limit;
        if (oracle_pass(h, r, limit, ret_k, ret_dist))
            return TRUE;
        if (r->dedicated || limit == 0)
            return FALSE;
    }
}

gboolean
vn_test_oracle(const VnTestHost *h, const VnRequest *r, guint *ret_k, guint *ret_dist)
{
    return oracle_passes(h, r, ret_k, ret_dist, NULL);
}

/* The per-CPU limit the planner applied to `p`: 1 unless it had to let
 * the VM's vCPUs share CPUs, then the first that fits (the planner finds
 * every feasible set of a split request; cells of their own sizes are
 * packed by a heuristic, which may need a later pass: any limit then). */
static guint
placement_per_cpu(const VnTestHost *h, const VnRequest *r, const VnPlacement *p)
{
    guint k, dist, per_cpu = 1;

    if (p->self_overcommitted && r->cell_sizes)
        return 0;
    if (p->self_overcommitted)
        g_assert_true(oracle_passes(h, r, &k, &dist, &per_cpu));
    return per_cpu;
}

void
vn_test_assert_cells_fit(const VnTestHost *h, const VnRequest *r, const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);
    guint64 mem[64] = { 0 }, vcpus[64] = { 0 };
    OracleCaps o;

    g_assert_nonnull(r->cell_sizes);
    g_assert_cmpuint(p->cells->len, ==, r->cells);
    oracle_caps(h, r, nodes->len, placement_per_cpu(h, r, p), &o);
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        mem[c->node] += c->memory_kib;
        vcpus[c->node] += c->n_vcpus;
    }
    for (guint i = 0; i < h->t->n_nodes; i++) {
        g_assert_cmpuint(mem[i], <=, o.mem_cap_kib[i]);
        g_assert_cmpuint(vcpus[i], <=, o.vcpu_cap[i]);
    }
}

gdouble
vn_test_remote_share(const VnRequest *r, const VnPlacement *p)
{
    gdouble local = 0;

    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        local += (gdouble)c->n_vcpus / r->vcpus * (gdouble)c->memory_kib / (gdouble)r->memory_kib;
    }
    return 1.0 - local;
}

/* Split fill keeps each member's vCPUs under half its CPUs when the
 * members have that room for the whole VM (every member at least one):
 * then that room is the vCPU cap the fill works within.  Otherwise the
 * vCPUs level the crowding: each in turn (after one a member) to the
 * member whose CPUs it would crowd least ((committed + given) / CPUs, the
 * earlier cell on a tie), within its capacity; those counts are the
 * caps. */
static void
uncrowded_caps(const VnTestHost *h, const VnRequest *r, const VnPlacement *p, OracleCaps *o)
{
    guint room[64], cpus[64], have[64], sum = 0;
    gboolean short_member = FALSE;

    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        guint half;
        cpus[i] = vn_bitmap_count(h->t->nodes[c->node].cpus);
        half = cpus[i] / 2;
        have[i] = h->load->nodes[c->node].committed_vcpus;
        room[i] = MIN(half > have[i] ? half - have[i] : 0, o->vcpu_cap[c->node]);
        short_member |= room[i] < 1;
        sum += room[i];
    }
    if (r->dedicated)
        return;
    if (short_member || sum < r->vcpus) {
        for (guint i = 0; i < p->cells->len; i++)
            room[i] = 1;
        for (guint v = p->cells->len; v < r->vcpus; v++) {
            gint best = -1;
            for (guint i = 0; i < p->cells->len; i++) {
                guint node = g_array_index(p->cells, VnCell, i).node;
                if (room[i] >= o->vcpu_cap[node])
                    continue;
                /* (have + room + 1) / cpus, compared without division */
                if (best < 0 || (guint64)(have[i] + room[i] + 1) * cpus[best] <
                                    (guint64)(have[best] + room[best] + 1) * cpus[i])
                    best = (gint)i;
            }
            g_assert_cmpint(best, >=, 0);
            room[best]++;
        }
    }
    for (guint i = 0; i < p->cells->len; i++)
        o->vcpu_cap[g_array_index(p->cells, VnCell, i).node] = room[i];
}

gboolean
vn_test_has_reason(const VnPlacement *p, const gchar *prefix)
{
    return g_ptr_array_find_with_equal_func(p->reasons, prefix, (GEqualFunc)g_str_has_prefix, NULL);
}

/* An even split (VN_SPLIT_EVEN's, or split fill's fallback): every cell
 * below its capacity holds at least an even share of the vCPUs (rounded
 * down) and of the memory (within 1 MiB); a capped cell's shortfall goes
 * to the others. */
static void
assert_even(const VnTestHost *h, const VnRequest *r, const VnPlacement *p)
{
    guint k = p->cells->len;
    OracleCaps o;

    oracle_caps(h, r, k, placement_per_cpu(h, r, p), &o);
    for (guint i = 0; i < k; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        if (c->n_vcpus < o.vcpu_cap[c->node])
            g_assert_cmpuint(c->n_vcpus, >=, r->vcpus / k);
        if (c->memory_kib / 1024 < o.mem_cap[c->node])
            g_assert_cmpuint(c->memory_kib + 1024, >=, r->memory_kib / k);
    }
}

void
vn_test_assert_filled(const VnTestHost *h, const VnRequest *r, const VnPlacement *p)
{
    guint k = p->cells->len;
    guint64 munits = r->memory_kib / 1024, best = 0, largest = 0, least = 0;
    guint64 per_vcpu = MAX(MIN(munits / r->vcpus, 1024), 1); /* MiB, at most 1 GiB */
    gboolean forced = FALSE;
    OracleCaps o;

    g_assert_cmpuint(k, >=, 2);
    g_assert_cmpuint(vn_test_nodes_used(p), ==, k);
    if (vn_test_has_reason(p, "split even, not fill")) {
        assert_even(h, r, p);
        return;
    }
    oracle_caps(h, r, k, placement_per_cpu(h, r, p), &o);
    uncrowded_caps(h, r, p, &o);
    for (guint i = 0; i < k; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        gdouble target = (gdouble)r->vcpus * (gdouble)c->memory_kib / (gdouble)r->memory_kib;
        g_assert_cmpuint(c->memory_kib % 1024, ==, 0);
        g_assert_cmpuint(c->memory_kib, <=, o.mem_cap_kib[c->node]);
        g_assert_cmpuint(c->n_vcpus, >=, 1);
        g_assert_cmpuint(c->n_vcpus, <=, o.vcpu_cap[c->node]);
        forced |= c->n_vcpus == o.vcpu_cap[c->node] || (c->n_vcpus == 1 && target < 1.0);
        best = MAX(best, MIN(o.mem_cap[c->node], o.vcpu_cap[c->node] * munits / r->vcpus));
        largest = MAX(largest, c->memory_kib / 1024);
        least += MIN(o.mem_cap[c->node], per_vcpu);
    }
    g_assert_cmpuint(largest, >=, MIN(best, munits - MIN(munits, (k - 1) * per_vcpu)));
    /* no cell below one vCPU's share of the memory (when all can have it) */
    for (guint i = 0; i < k && least <= munits; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        g_assert_cmpuint(c->memory_kib / 1024, >=, MIN(o.mem_cap[c->node], per_vcpu));
    }
    if (forced)
        return;
    for (guint i = 0; i < k; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        gdouble target = (gdouble)r->vcpus * (gdouble)c->memory_kib / (gdouble)r->memory_kib;
        g_assert_cmpfloat(ABS((gdouble)c->n_vcpus - target), <, 1.0);
    }
    g_assert_cmpfloat(vn_test_remote_share(r, p), <=, 1.0 - 1.0 / k + 1e-9);
}

guint
vn_test_placement_distance(const VnTestHost *h, const VnPlacement *p)
{
    g_autoptr(GArray) nodes = vn_placement_nodes(p);
    guint d = 0;

    for (guint i = 0; i < nodes->len; i++)
        for (guint j = i + 1; j < nodes->len; j++)
            d += vn_topology_distance(h->t, g_array_index(nodes, guint, i),
                                      g_array_index(nodes, guint, j));
    return d;
}

void
vn_test_check_sized_plan(VnTestHost *h, const VnRequest *r, VnTestSizedCounts *counts)
{
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GError) error = NULL;
    guint k = 0, dist = 0;
    gboolean fits = vn_test_oracle(h, r, &k, &dist);

    p = vn_plan(h->t, h->load, h->policy, r, NULL, &error);
    if (!fits) {
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        g_assert_null(p);
        counts->refused++;
        return;
    }
    if (p) {
        vn_test_assert_invariants(h, r, p);
        vn_test_assert_cells_fit(h, r, p);
    }
    if (k == 1 || k == r->cells) {
        g_assert_no_error(error);
        g_assert_cmpuint(vn_test_nodes_used(p), ==, k);
        g_assert_cmpuint(vn_test_placement_distance(h, p), ==, dist);
        counts->exact++;
        return;
    }
    counts->packed++;
    if (!p) {
        g_assert_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT);
        counts->worse++;
        return;
    }
    g_assert_cmpuint(vn_test_nodes_used(p), >=, k);
    if (vn_test_nodes_used(p) == k)
        g_assert_cmpuint(vn_test_placement_distance(h, p), >=, dist);
    if (vn_test_nodes_used(p) != k || vn_test_placement_distance(h, p) != dist)
        counts->worse++;
}

void
vn_test_sized_counts_check(const VnTestSizedCounts *counts)
{
    g_test_message("sized cells: %u placed as the oracle, %u refused, %u packed "
                   "(%u on a worse set than the oracle's)",
                   counts->exact, counts->refused, counts->packed, counts->worse);
    g_assert_cmpuint(counts->worse * 10, <=, counts->packed);
}
