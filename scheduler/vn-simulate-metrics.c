/* vn-simulate-metrics.c: the replay's metrics (definitions: vn-simulate.h). */
#include "vn-simulate-private.h"
#include "vn-plan.h"

#define KIB_PER_GIB (1024.0 * 1024.0)

static gboolean
node_usable(const VnTopology *t, guint i)
{
    return !vn_bitmap_is_empty(t->nodes[i].cpus) && t->nodes[i].mem_total_kib > 0;
}

void
vn_sim_init(VnSim *s, const VnTopology *t, const VnPolicy *policy, const VnTrace *trace,
            VnSimPolicy which, const VnSimModel *model, VnLoad *load, GPtrArray *requests,
            GPtrArray *placed)
{
    guint total = 0;
    guint n = MAX(t->n_nodes, 1);

    s->t = t;
    s->policy = policy;
    s->trace = trace;
    s->which = which;
    s->load = load;
    s->requests = requests;
    s->placed = placed;
    s->m.vms = trace->vms->len;
    s->imbalance_last = 1.0;
    s->now = G_MAXDOUBLE;
    for (guint i = 0; i < trace->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(trace->vms, VnTraceVm, i);
        s->last_arrival = i ? MAX(s->last_arrival, vm->time_s) : vm->time_s;
        s->now = MIN(s->now, vm->time_s);
        s->m.offered_gib_hours += vm->memory_kib / KIB_PER_GIB * vm->duration_s / 3600.0;
    }
    if (model)
        s->model = *model;
    else
        vn_sim_model_init(&s->model);
    s->model_now = s->now;
    s->host_cpu_frac = g_new0(gdouble, n);
    s->node_cpus = g_new0(gdouble, n);
    s->live_latency = g_new0(gdouble, n);
    s->live_demand = g_new0(gdouble, n * n);
    s->scratch_share = g_new0(gdouble, n * n);
    s->rho = g_new0(gdouble, n);
    s->scratch_latency = g_new0(gdouble, n);
    s->live_cost = g_new0(gdouble, n * n);
    s->live_gib_on = g_new0(gdouble, n);
    s->wait = g_new0(gdouble, n);
    s->since = g_new0(gint64, MAX(trace->vms->len, 1));
    for (guint i = 0; i < t->n_nodes; i++) {
        g_autoptr(VnBitmap) cpus = vn_policy_usable_cpus(policy, t, NULL, i);
        s->host_cpu_frac[i] = node_usable(t, i) ? vn_bitmap_count(cpus) : 0;
        s->node_cpus[i] = vn_bitmap_count(cpus);
        total += (guint)s->host_cpu_frac[i];
    }
    for (guint i = 0; i < t->n_nodes; i++)
        s->host_cpu_frac[i] = total ? s->host_cpu_frac[i] / total : 0;
}

void
vn_sim_clear(VnSim *s)
{
    g_clear_pointer(&s->host_cpu_frac, g_free);
    g_clear_pointer(&s->since, g_free);
    g_clear_pointer(&s->node_cpus, g_free);
    g_clear_pointer(&s->live_latency, g_free);
    g_clear_pointer(&s->live_demand, g_free);
    g_clear_pointer(&s->scratch_share, g_free);
    g_clear_pointer(&s->rho, g_free);
    g_clear_pointer(&s->scratch_latency, g_free);
    g_clear_pointer(&s->live_cost, g_free);
    g_clear_pointer(&s->live_gib_on, g_free);
    g_clear_pointer(&s->wait, g_free);
}

/* max / mean of committed memory as a share of node memory; 0 when
 * nothing is committed. */
static gdouble
imbalance_now(const VnSim *s)
{
    gdouble max = 0, sum = 0;
    guint n = 0;

    for (guint i = 0; i < s->t->n_nodes; i++) {
        gdouble u;
        if (!node_usable(s->t, i))
            continue;
        u = (gdouble)s->load->nodes[i].committed_memory_kib / (gdouble)s->t->nodes[i].mem_total_kib;
        max = MAX(max, u);
        sum += u;
        n++;
    }
    return sum > 0 ? max / (sum / n) : 0;
}

/* Committed memory as a share of the usable nodes' memory. */
static gdouble
committed_now(const VnSim *s)
{
    gdouble used = 0, total = 0;

    for (guint i = 0; i < s->t->n_nodes; i++) {
        if (!node_usable(s->t, i))
            continue;
        used += (gdouble)s->load->nodes[i].committed_memory_kib;
        total += (gdouble)s->t->nodes[i].mem_total_kib;
    }
    return total > 0 ? used / total : 0;
}

/* Integrates the model's slowdown over the running VMs from the last
 * event to `time` (the whole replay, not only the arrival window). */
static void
account_model(VnSim *s, gdouble time)
{
    gdouble hours = (time - s->model_now) / 3600.0;
    gdouble slow = 0, dist = 0, wait = 0, run = 0;
    guint n = s->t->n_nodes;

    s->peak_committed = MAX(s->peak_committed, committed_now(s));
    if (hours <= 0 || s->live_gib <= 0) {
        s->model_now = MAX(s->model_now, time);
        return;
    }
    vn_sim_model_demand(s->t, s->live_demand, s->node_cpus, s->rho);
    vn_sim_model_cpu_wait(s->t, s->live_demand, s->node_cpus, s->wait);
    for (guint i = 0; i < n; i++) {
        gdouble lat = MAX(s->live_latency[i], 0.0);
        dist += lat;
        slow += lat * vn_sim_model_contention(&s->model, s->rho[i]);
    }
    for (guint from = 0; from < n; from++) {
        wait += MAX(s->live_gib_on[from], 0.0) * s->wait[from];
        for (guint to = 0; to < n; to++)
            run += MAX(s->live_cost[from * n + to], 0.0) *
                   vn_sim_model_contention(&s->model, s->rho[to]) * s->wait[from];
    }
    s->distance_integral += hours * dist;
    s->slow_integral += hours * slow;
    s->wait_integral += hours * wait;
    s->run_integral += hours * run;
    s->live_integral += hours * s->live_gib;
    s->model_now = time;
}

/* Adds (sign 1) or removes (-1) a running VM's load on the model's
 * nodes. */
static void
model_add(VnSim *s, const VnRequest *req, const VnPlacement *p, gdouble sign)
{
    gdouble gib = req->memory_kib / KIB_PER_GIB;

    vn_sim_model_profile(&s->model, s->t, p, req->vcpus, req->memory_kib,
                         s->which == VN_SIM_POLICY_NO_PINNING ? s->host_cpu_frac : NULL,
                         s->scratch_share, s->scratch_latency);
    for (guint i = 0; i < s->t->n_nodes; i++)
        s->live_latency[i] += sign * gib * s->scratch_latency[i];
    for (guint i = 0; i < s->t->n_nodes * s->t->n_nodes; i++)
        s->live_demand[i] += sign * req->vcpus * s->scratch_share[i];
    for (guint from = 0; from < s->t->n_nodes; from++)
        for (guint to = 0; to < s->t->n_nodes; to++) {
            gdouble share = s->scratch_share[from * s->t->n_nodes + to];
            if (share == 0)
                continue;
            s->live_gib_on[from] += sign * gib * share;
            s->live_cost[from * s->t->n_nodes + to] +=
                sign * gib * share * vn_sim_model_latency(&s->model, s->t, from, to);
        }
    s->live_gib += sign * gib;
}

void
vn_sim_account_departed(VnSim *s, const VnRequest *req, const VnPlacement *p)
{
    model_add(s, req, p, -1.0);
}

void
vn_sim_account_time(VnSim *s, gdouble time)
{
    gdouble end = MIN(time, s->last_arrival);

    account_model(s, time);
    if (end > s->now) {
        gdouble imb = imbalance_now(s);
        if (imb > 0) {
            s->imbalance_integral += imb * (end - s->now);
            s->imbalance_time += end - s->now;
        }
    }
    s->now = MAX(s->now, time);
}

void
vn_sim_account_last_arrival(VnSim *s)
{
    gdouble imb = imbalance_now(s);

    if (imb > 0)
        s->imbalance_last = imb;
}

/* Sum over pairs of distinct nodes holding memory. */
static guint
memory_distance(const VnTopology *t, const VnPlacement *p, guint *ret_nodes)
{
    g_autofree gboolean *seen = g_new0(gboolean, MAX(t->n_nodes, 1));
    g_autofree guint *nodes = g_new(guint, MAX(t->n_nodes, 1));
    guint n = 0, sum = 0;

    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        if (cell->memory_kib && !seen[cell->node]) {
            seen[cell->node] = TRUE;
            nodes[n++] = cell->node;
        }
    }
    for (guint a = 0; a < n; a++)
        for (guint b = a + 1; b < n; b++)
            sum += vn_topology_distance(t, nodes[a], nodes[b]);
    *ret_nodes = n;
    return sum;
}

/* 1 - sum_n cpu_frac(n) * mem_frac(n) (the model in vn-simulate.h), per
 * host node: guest cells sharing a node (a consolidated VM) are local to
 * each other. */
static gdouble
remote_share(const VnSim *s, const VnRequest *req, const VnPlacement *p)
{
    g_autofree gdouble *cpu = g_new0(gdouble, MAX(s->t->n_nodes, 1));
    g_autofree gdouble *mem = g_new0(gdouble, MAX(s->t->n_nodes, 1));
    gdouble local = 0;

    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        mem[cell->node] += (gdouble)cell->memory_kib / (gdouble)req->memory_kib;
        if (s->which != VN_SIM_POLICY_NO_PINNING)
            cpu[cell->node] += (gdouble)cell->n_vcpus / req->vcpus;
        else
            cpu[cell->node] = s->host_cpu_frac[cell->node];
    }
    /* no-pinning: nodes without a cell still run its vCPUs; they hold no
     * memory of it, so they add nothing local. */
    for (guint i = 0; i < s->t->n_nodes; i++)
        local += cpu[i] * mem[i];
    return CLAMP(1.0 - local, 0.0, 1.0);
}

/* The oracles for a split VM: could one node hold it (its vCPUs not
 * sharing CPUs with each other), and how close would vn_plan() have put
 * it. */
static void
account_split(VnSim *s, const VnRequest *req, guint distance)
{
    g_autoptr(VnRequest) one = vn_request_new();
    g_autoptr(VnPlacement) single = NULL;
    g_autoptr(VnPlacement) best = NULL;
    guint n;

    one->vcpus = req->vcpus;
    one->memory_kib = req->memory_kib;
    one->cells = 1;
    single = vn_plan(s->t, s->load, s->policy, one, NULL, NULL);
    /* one node "holds" it only with a CPU for each of its vCPUs */
    if (single && single->self_overcommitted)
        g_clear_pointer(&single, vn_placement_free);
    best = single ? NULL : vn_plan(s->t, s->load, s->policy, req, NULL, NULL);
    s->m.split++;
    s->split_distance += distance;
    if (single)
        s->m.split_unnecessary++;
    else
        s->min_distance += best ? memory_distance(s->t, best, &n) : distance;
}

/* Whether a guest cell of `p` runs its vCPUs over CPUs of more than one
 * cache domain (the cell's CPUs are the union of its vCPUs' pins);
 * no-pinning's vCPUs float over the whole host. */
static gboolean
domain_split(const VnSim *s, const VnPlacement *p)
{
    const VnTopology *t = s->t;

    if (s->which == VN_SIM_POLICY_NO_PINNING)
        return t->n_domains > 1;
    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        guint touched = 0;
        for (guint d = 0; cell->n_vcpus && cell->cpus && d < t->n_domains && touched < 2; d++)
            touched += vn_bitmap_intersects(cell->cpus, t->domains[d].cpus) ? 1 : 0;
        if (touched > 1)
            return TRUE;
    }
    return FALSE;
}

void
vn_sim_account_admitted(VnSim *s, const VnTraceVm *vm, const VnRequest *req, const VnPlacement *p)
{
    gdouble weight = vm->memory_kib / KIB_PER_GIB * vm->duration_s / 3600.0;
    guint n_nodes;
    guint distance = memory_distance(s->t, p, &n_nodes);

    s->m.admitted++;
    s->m.served_gib_hours += weight;
    s->remote_weighted += weight * remote_share(s, req, p);
    s->remote_weight += weight;
    model_add(s, req, p, 1.0);
    if (n_nodes > 1)
        account_split(s, req, distance);
    if (domain_split(s, p))
        s->m.domain_split++;
}

void
vn_sim_account_moved(VnSim *s, const VnTraceVm *vm, const VnRequest *req, const VnPlacement *from,
                     const VnPlacement *to)
{
    gdouble left_h = MAX(vm->time_s + vm->duration_s - s->now, 0.0) / 3600.0;

    model_add(s, req, from, -1.0);
    model_add(s, req, to, 1.0);
    /* the uniform remote share from now to the VM's departure */
    s->remote_weighted += req->memory_kib / KIB_PER_GIB * left_h *
                          (remote_share(s, req, to) - remote_share(s, req, from));
}

void
vn_sim_account_rejected(VnSim *s, const VnRequest *req)
{
    g_autoptr(VnPlacement) p = vn_plan(s->t, s->load, s->policy, req, NULL, NULL);

    s->m.rejected++;
    if (p)
        s->m.rejected_feasible++;
}

void
vn_sim_finish(VnSim *s, VnSimMetrics *ret)
{
    VnSimMetrics m = s->m;

    if (m.split) {
        m.mean_split_distance = s->split_distance / m.split;
        m.min_split_distance = s->min_distance / m.split;
    }
    m.imbalance =
        s->imbalance_time > 0 ? s->imbalance_integral / s->imbalance_time : s->imbalance_last;
    m.remote_share = s->remote_weight > 0 ? s->remote_weighted / s->remote_weight : 0;
    m.slowdown = s->live_integral > 0 ? s->slow_integral / s->live_integral : 1.0;
    m.distance_slowdown = s->live_integral > 0 ? s->distance_integral / s->live_integral : 1.0;
    m.cpu_wait = s->live_integral > 0 ? s->wait_integral / s->live_integral : 1.0;
    m.run_slowdown = s->live_integral > 0 ? s->run_integral / s->live_integral : 1.0;
    m.effective_gib_hours = m.served_gib_hours / m.slowdown;
    m.peak_committed = s->peak_committed;
    m.guest_locality = s->model.guest_locality;
    *ret = m;
}
