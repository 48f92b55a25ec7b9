/* vnumactl simulate / trace-gen: what-if replays of VM traces.
 *
 *   vnumactl simulate [SOURCE OPTIONS] --trace FILE [--policy NAME]... [--matched-to NAME]
 *                     [--json]
 *   vnumactl trace-gen --vms N --seed S [--hours H | --rate R] [--size-mix MIX]
 *                      [--lifetime-mix MIX] [--max-memory SIZE] [--output FILE]
 *
 * simulate replays the trace on the host from the topology source options
 * (starting from its committed load: the live host's ledger, --load; not
 * from measured free memory or CPU busy) with the host policy from
 * vnuma.conf, once per policy, and prints the metrics of
 * vn-simulate.h.  --matched-to NAME replays NAME first and then every
 * policy on only the VMs NAME admitted (vn_trace_subset()): the figures
 * at equal admitted work, so a policy that turns VMs away is compared
 * with the others on the same work.  --json: {"trace": {"file", "vms",
 * "offered_gib_hours", "matched_to" (NAME or null)},
 * "policies": {"vnuma": {...}, "first-fit": {...}, ...}}; the means of
 * split distances are null when the policy split nothing.
 */
#include "vnumactl.h"

#include <math.h>
#include <stdio.h>

#include "vn-simulate.h"
#include "vn-size.h"
#include "vn-trace-file.h"

typedef struct {
    gchar *trace;
    gchar **policies;
    gboolean json;
    gdouble guest_locality;
    gchar *matched_to;
    VnSourceOptions source;
} SimOptions;

static void
sim_options_clear(SimOptions *o)
{
    g_free(o->trace);
    g_strfreev(o->policies);
    g_free(o->matched_to);
    vn_source_options_clear(&o->source);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(SimOptions, sim_options_clear)

typedef struct {
    VnSimPolicy policy;
    VnSimMetrics m;
} SimResult;

/* Every policy run by default, as printed: vnuma's balances first
 * (vnuma-mirror, a measure of chance rather than a policy, only when
 * named). */
static const VnSimPolicy all_policies[] = {
    VN_SIM_POLICY_VNUMA,         VN_SIM_POLICY_VNUMA_NO_CONSOLIDATE, VN_SIM_POLICY_VNUMA_LOAD,
    VN_SIM_POLICY_VNUMA_PACKING, VN_SIM_POLICY_VNUMA_HOLE,           VN_SIM_POLICY_VNUMA_EVEN,
    VN_SIM_POLICY_VNUMA_DEFRAG,  VN_SIM_POLICY_VNUMA_REBALANCE,      VN_SIM_POLICY_FIRST_FIT,
    VN_SIM_POLICY_MOST_FREE,     VN_SIM_POLICY_ROUND_ROBIN,          VN_SIM_POLICY_NO_PINNING,
};
G_STATIC_ASSERT(G_N_ELEMENTS(all_policies) == VN_SIM_POLICY_MAX - 1);

/* A policy named on the command line; FALSE (message printed) on an
 * unknown name. */
static gboolean
policy_from_option(const gchar *option, const gchar *name, VnSimPolicy *ret)
{
    g_autoptr(GString) names = NULL;

    if (vn_sim_policy_from_string(name, ret))
        return TRUE;
    names = g_string_new(NULL);
    for (guint k = 0; k < G_N_ELEMENTS(all_policies); k++)
        g_string_append_printf(names, "%s, ", vn_sim_policy_to_string(all_policies[k]));
    g_string_append(names, vn_sim_policy_to_string(VN_SIM_POLICY_VNUMA_MIRROR));
    vn_cli_fail_printf("--%s: '%s' is not one of %s", option, name, names->str);
    return FALSE;
}

/* The --policy list, or every policy; FALSE (message printed) on an
 * unknown name. */
static gboolean
policies_from_options(const SimOptions *o, GArray *ret)
{
    if (!o->policies || !o->policies[0]) {
        for (guint i = 0; i < G_N_ELEMENTS(all_policies); i++) {
            SimResult r = { .policy = all_policies[i] };
            g_array_append_val(ret, r);
        }
        return TRUE;
    }
    for (guint i = 0; o->policies[i]; i++) {
        SimResult r = { 0 };
        if (!policy_from_option("policy", o->policies[i], &r.policy))
            return FALSE;
        g_array_append_val(ret, r);
    }
    return TRUE;
}

/* Rounded for output: four decimals say all a reader needs and keep the
 * transcripts stable. */
static gdouble
round4(gdouble x)
{
    return round(x * 10000.0) / 10000.0;
}

static void
add_number(JsonBuilder *b, const gchar *name, gdouble v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_double_value(b, round4(v));
}

static void
add_uint(JsonBuilder *b, const gchar *name, guint v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

static void
metrics_to_json(JsonBuilder *b, const VnSimMetrics *m)
{
    json_builder_begin_object(b);
    add_uint(b, "admitted", m->admitted);
    add_uint(b, "rejected", m->rejected);
    add_number(b, "served_gib_hours", m->served_gib_hours);
    add_uint(b, "rejected_feasible", m->rejected_feasible);
    add_uint(b, "split", m->split);
    add_uint(b, "split_unnecessary", m->split_unnecessary);
    add_uint(b, "domain_split", (guint)m->domain_split);
    json_builder_set_member_name(b, "mean_split_distance");
    if (m->split)
        json_builder_add_double_value(b, round4(m->mean_split_distance));
    else
        json_builder_add_null_value(b);
    json_builder_set_member_name(b, "min_split_distance");
    if (m->split)
        json_builder_add_double_value(b, round4(m->min_split_distance));
    else
        json_builder_add_null_value(b);
    add_number(b, "imbalance", m->imbalance);
    add_number(b, "remote_share", m->remote_share);
    add_number(b, "slowdown", m->slowdown);
    add_number(b, "distance_slowdown", m->distance_slowdown);
    add_number(b, "cpu_wait", m->cpu_wait);
    add_number(b, "run_slowdown", m->run_slowdown);
    add_number(b, "effective_gib_hours", m->effective_gib_hours);
    add_number(b, "peak_committed", m->peak_committed);
    add_uint(b, "moves", m->moves);
    add_uint(b, "defragmented", m->defragmented);
    add_number(b, "moved_gib", m->moved_gib);
    add_uint(b, "consolidated", m->consolidated);
    add_number(b, "consolidated_gib", m->consolidated_gib);
    json_builder_end_object(b);
}

static void
print_json(const gchar *file, const gchar *matched_to, const GArray *results)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;
    const VnSimMetrics *first = &g_array_index(results, SimResult, 0).m;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "trace");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "file");
    json_builder_add_string_value(b, file);
    add_uint(b, "vms", first->vms);
    add_number(b, "offered_gib_hours", first->offered_gib_hours);
    json_builder_set_member_name(b, "matched_to");
    if (matched_to)
        json_builder_add_string_value(b, matched_to);
    else
        json_builder_add_null_value(b);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "model");
    json_builder_begin_object(b);
    add_number(b, "distance_weight", VN_SIM_MODEL_DISTANCE_WEIGHT);
    add_number(b, "guest_locality", first->guest_locality);
    add_number(b, "contention_knee", VN_SIM_MODEL_CONTENTION_KNEE);
    add_number(b, "contention_max", VN_SIM_MODEL_CONTENTION_MAX);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "policies");
    json_builder_begin_object(b);
    for (guint i = 0; i < results->len; i++) {
        const SimResult *r = &g_array_index(results, SimResult, i);
        json_builder_set_member_name(b, vn_sim_policy_to_string(r->policy));
        metrics_to_json(b, &r->m);
    }
    json_builder_end_object(b);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    vn_cli_print_json(root);
}

static gchar *
distance_text(const VnSimMetrics *m, gdouble v)
{
    return m->split ? g_strdup_printf("%.1f", v) : g_strdup("-");
}

static void
print_text(const gchar *file, const gchar *matched_to, guint trace_vms, const VnTopology *t,
           const GArray *results)
{
    const VnSimMetrics *first = &g_array_index(results, SimResult, 0).m;

    if (matched_to)
        printf("trace: %s: the %u of its %u VMs that %s admitted (equal admitted work), "
               "%.1f GiB-hours offered\n",
               file, first->vms, trace_vms, matched_to, first->offered_gib_hours);
    else
        printf("trace: %s: %u VMs, %.1f GiB-hours offered\n", file, first->vms,
               first->offered_gib_hours);
    printf("host: %s: %u nodes\n\n", t->source, t->n_nodes);
    printf("model: latency 1 + %.1f x (SLIT ratio - 1), guest locality %.2f, contention from "
           "%.0f %% of a node's CPUs to x%.1f at 100 %%\n\n",
           VN_SIM_MODEL_DISTANCE_WEIGHT, first->guest_locality, VN_SIM_MODEL_CONTENTION_KNEE * 100,
           VN_SIM_MODEL_CONTENTION_MAX);
    printf("%-20s %8s %8s %12s %8s %6s %8s %9s %9s %9s %9s %7s %5s %8s %8s %12s %8s %8s\n",
           "policy", "admitted", "rejected", "served_GiBh", "rej_feas", "split", "split_un",
           "dom_split", "split_dst", "min_dst", "imbalance", "remote", "peak", "dist_slw",
           "slowdown", "effect_GiBh", "cpu_wait", "run_slw");
    for (guint i = 0; i < results->len; i++) {
        const SimResult *r = &g_array_index(results, SimResult, i);
        const VnSimMetrics *m = &r->m;
        g_autofree gchar *dist = distance_text(m, m->mean_split_distance);
        g_autofree gchar *min = distance_text(m, m->min_split_distance);

        printf("%-20s %8u %8u %12.1f %8u %6u %8u %9" G_GUINT64_FORMAT
               " %9s %9s %9.3f %6.1f%% %4.0f%% %8.3f %8.3f "
               "%12.1f %8.3f %8.3f\n",
               vn_sim_policy_to_string(r->policy), m->admitted, m->rejected, m->served_gib_hours,
               m->rejected_feasible, m->split, m->split_unnecessary, m->domain_split, dist, min,
               m->imbalance, m->remote_share * 100.0, m->peak_committed * 100.0,
               m->distance_slowdown, m->slowdown, m->effective_gib_hours, m->cpu_wait,
               m->run_slowdown);
    }
    for (guint i = 0; i < results->len; i++) {
        const SimResult *r = &g_array_index(results, SimResult, i);
        if (r->policy == VN_SIM_POLICY_VNUMA_DEFRAG)
            printf("\nvnuma-defrag moved %u VMs (%.1f GiB) live; %u VMs that would have been "
                   "split were placed whole\n",
                   r->m.moves, r->m.moved_gib, r->m.defragmented);
        if (r->policy == VN_SIM_POLICY_VNUMA_REBALANCE)
            printf("\nvnuma-rebalance moved %u guest cells (%.1f GiB) live in its rounds\n",
                   r->m.moves, r->m.moved_gib);
    }
    for (guint i = 0, n = 0; i < results->len; i++) {
        const SimResult *r = &g_array_index(results, SimResult, i);
        if (r->m.consolidated)
            printf("%s%s put %u split VMs on fewer nodes when others left (%.1f GiB moved)\n",
                   n++ ? "" : "\n", vn_sim_policy_to_string(r->policy), r->m.consolidated,
                   r->m.consolidated_gib);
    }
    printf(
        "\nrej_feas: rejected although a placement existed; split_un: split although one node\n"
        "could hold it; dom_split: a guest cell's vCPUs over more than one L3 cache domain;\n"
        "split_dst/min_dst: mean internal distance of split VMs, this policy's and\n"
        "the best vn_plan finds at the same moments; imbalance: max/mean node memory commitment\n"
        "over time; remote: expected share of remote memory accesses (memory x time weighted,\n"
        "uniform model); peak: highest share of host memory committed; dist_slw/slowdown: "
        "expected\n"
        "memory slowdown from distance alone / with bandwidth contention (1 = all local);\n"
        "effect_GiBh: served GiB-hours / slowdown; cpu_wait: how many times slower vCPUs run\n"
        "for sharing their node's CPUs; run_slw: slowdown x cpu_wait.  The model and its\n"
        "sources: vnumactl(8).\n");
}

/* A replay spans hours or months: a free-memory or CPU-busy reading taken
 * now (live host, --sysroot) says nothing about them, so only committed
 * figures (the ledger's, --load) carry into the replay. */
static void
forget_measurements(VnTopology *t, VnLoad *load)
{
    for (guint i = 0; i < t->n_nodes; i++) {
        t->nodes[i].mem_free_kib = G_MAXUINT64;
        load->nodes[i].cpu_busy = -1.0;
    }
}

int
vn_cmd_simulate(int argc, char **argv)
{
    g_auto(SimOptions) o = { 0 };
    const GOptionEntry entries[] = {
        { "trace", 0, 0, G_OPTION_ARG_FILENAME, &o.trace,
          "The trace: CSV time_s,vm,vcpus,memory_mib,duration_s", "FILE" },
        { "policy", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.policies,
          "Only this policy: vnuma, vnuma-no-consolidate, vnuma-load, vnuma-packing, vnuma-hole, "
          "vnuma-even, vnuma-defrag, vnuma-rebalance, "
          "first-fit, most-free, round-robin, no-pinning or vnuma-mirror (repeatable; default "
          "all but vnuma-mirror)",
          "NAME" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print JSON", NULL },
        { "guest-locality", 0, 0, G_OPTION_ARG_DOUBLE, &o.guest_locality,
          "Share of a guest cell's memory accesses kept in its own cell, 0 to 1 (default 0.8)",
          "SHARE" },
        { "matched-to", 0, 0, G_OPTION_ARG_STRING, &o.matched_to,
          "Replay every policy on only the VMs this policy admits (equal admitted work)", "NAME" },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "Replay a trace of VM arrivals and departures on a host with vnuma and with baselines",
        entries, &o.source);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnTrace) trace = NULL;
    g_autoptr(VnTrace) replayed = NULL;
    VnSimPolicy matched;

    g_option_context_set_description(
        ctx,
        "Policies: vnuma (this planner, [placement] balance = adaptive, split = fill,\n"
        "consolidate = apply: when a VM leaves, one split VM is put on fewer nodes, at most\n"
        "64 GiB moved), vnuma-no-consolidate (consolidate = off), and vnuma with one key\n"
        "changed: vnuma-load (balance = load), vnuma-packing (balance = memory-packing),\n"
        "vnuma-hole (balance = keep-hole), vnuma-even (split = even), vnuma-defrag (a VM that\n"
        "would be split fits one node after up to 2 live moves of small VMs, 16 GiB),\n"
        "vnuma-rebalance (vnumad's rebalancing rounds, [rebalance] auto = true: after each\n"
        "arrival and departure, guest cells moved live off a node hotter than the mean),\n"
        "first-fit (Nova), most-free (numad), round-robin, no-pinning (an unmanaged VM);\n"
        "vnuma-mirror (only when named: vnuma searching nodes from the last, an equally\n"
        "good policy whose figures differ from vnuma's by chance alone);\n"
        "the vnuma policies set the balance and split whatever\n"
        "vnuma.conf says.\n"
        "The metrics are described in vnumactl(8).\n"
        "'vnumactl trace-gen' writes a trace with the published Azure VM mix.");
    g_autoptr(GArray) results = g_array_new(FALSE, TRUE, sizeof(SimResult));
    VnSimModel model;

    vn_sim_model_init(&model);
    o.guest_locality = model.guest_locality;
    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (!isfinite(o.guest_locality) || o.guest_locality < 0 || o.guest_locality > 1)
        return vn_cli_fail_printf("--guest-locality: a share from 0 to 1 is required (got %g)",
                                  o.guest_locality);
    model.guest_locality = o.guest_locality;
    if (!o.trace)
        return vn_cli_fail_printf("--trace: required (a CSV file, see --help)");
    if (!policies_from_options(&o, results))
        return VN_EXIT_ERROR;
    if (o.matched_to && !policy_from_option("matched-to", o.matched_to, &matched))
        return VN_EXIT_ERROR;
    if (!(trace = vn_trace_load_file(o.trace, &error)) ||
        !vn_source_load(&o.source, &t, &load, &config, &error))
        return vn_cli_fail(error);
    forget_measurements(t, load);
    if (o.matched_to) {
        g_autofree gboolean *admitted = g_new(gboolean, trace->vms->len);
        VnSimMetrics m;
        if (!vn_simulate_admitted(t, load, config->policy, trace, matched, &model, &m, admitted,
                                  &error))
            return vn_cli_fail_printf("%s: %s", o.trace, error->message);
        if (!m.admitted)
            return vn_cli_fail_printf("--matched-to: %s admits none of the %u VM%s of %s",
                                      o.matched_to, m.vms, m.vms == 1 ? "" : "s", o.trace);
        replayed = vn_trace_subset(trace, admitted);
    }
    for (guint i = 0; i < results->len; i++) {
        SimResult *r = &g_array_index(results, SimResult, i);
        if (!vn_simulate(t, load, config->policy, replayed ? replayed : trace, r->policy, &model,
                         &r->m, &error))
            return vn_cli_fail_printf("%s: %s", o.trace, error->message);
    }
    if (o.json)
        print_json(o.trace, o.matched_to, results);
    else
        print_text(o.trace, o.matched_to, trace->vms->len, t, results);
    return VN_EXIT_OK;
}

/* "--NAME: 'VALUE' is not one of a, b, c" */
static int
fail_not_one_of(const gchar *option, const gchar *value, const gchar *const *names)
{
    g_autofree gchar *list = g_strjoinv(", ", (gchar **)names);

    return vn_cli_fail_printf("--%s: '%s' is not one of %s", option, value, list);
}

int
vn_cmd_trace_gen(int argc, char **argv)
{
    gint vms = 0;
    gint64 seed = -1;
    gdouble hours = NAN, rate = NAN;
    g_autofree gchar *output = NULL;
    g_autofree gchar *size_name = NULL;
    g_autofree gchar *lifetime_name = NULL;
    g_autofree gchar *max_memory = NULL;
    guint64 max_kib = 0;
    guint size = VN_TRACE_SIZE_AZURE, lifetime = VN_TRACE_LIFETIME_AZURE;
    const GOptionEntry entries[] = {
        { "vms", 0, 0, G_OPTION_ARG_INT, &vms, "Number of VMs (required)", "N" },
        { "seed", 0, 0, G_OPTION_ARG_INT64, &seed,
          "Random seed: the same seed gives the same trace (required)", "S" },
        { "hours", 0, 0, G_OPTION_ARG_DOUBLE, &hours,
          "Arrivals spread over this many hours (default 720)", "H" },
        { "rate", 0, 0, G_OPTION_ARG_DOUBLE, &rate,
          "Load level: this many arrivals per hour on average (instead of --hours)", "R" },
        { "size-mix", 0, 0, G_OPTION_ARG_STRING, &size_name,
          "VM sizes: azure (published mix, default), small (up to 8 vCPUs) or large (4 to 64 "
          "vCPUs, wide VMs common)",
          "MIX" },
        { "lifetime-mix", 0, 0, G_OPTION_ARG_STRING, &lifetime_name,
          "Lifetimes: azure (published mix, default), short (all under 2 h) or long (2 h to 30 "
          "days)",
          "MIX" },
        { "max-memory", 0, 0, G_OPTION_ARG_STRING, &max_memory,
          "No VM above this size: a larger one is drawn again from the mix (at least 2G, the "
          "smallest VM; a light trace for a small host)",
          "SIZE" },
        { "output", 'o', 0, G_OPTION_ARG_FILENAME, &output, "Write here instead of stdout",
          "FILE" },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "Write a synthetic VM trace (CSV) with the published Azure VM size and lifetime mix",
        entries, NULL);
    g_autoptr(VnTrace) trace = NULL;
    g_autofree gchar *csv = NULL;
    g_autoptr(GError) error = NULL;

    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (vms <= 0 || vms > 10000000)
        return vn_cli_fail_printf("--vms: a number from 1 to 10000000 is required (got %d)", vms);
    if (seed < 0 || seed > G_MAXUINT32)
        return vn_cli_fail_printf("--seed: a number from 0 to %u is required", G_MAXUINT32);
    if (!isnan(hours) && !isnan(rate))
        return vn_cli_fail_printf("--rate: give --rate or --hours, not both");
    if (!isnan(rate)) {
        if (!isfinite(rate) || rate <= 0 || rate > 1e6)
            return vn_cli_fail_printf(
                "--rate: a number of arrivals per hour above 0 and at most 1000000 is required");
        hours = vms / rate;
    }
    if (isnan(hours))
        hours = 720;
    if (!isfinite(hours) || hours <= 0 || hours > 1e6)
        return vn_cli_fail_printf("--hours: a number above 0 and at most 1000000 is required");
    if (size_name && !vn_trace_mix_from_string(vn_trace_size_mix_names(), size_name, &size))
        return fail_not_one_of("size-mix", size_name, vn_trace_size_mix_names());
    if (lifetime_name &&
        !vn_trace_mix_from_string(vn_trace_lifetime_mix_names(), lifetime_name, &lifetime))
        return fail_not_one_of("lifetime-mix", lifetime_name, vn_trace_lifetime_mix_names());
    if (max_memory) {
        if (!vn_size_parse_kib(max_memory, &max_kib, &error)) {
            g_prefix_error(&error, "--max-memory: ");
            return vn_cli_fail(error);
        }
        if (max_kib < vn_trace_smallest_vm_kib())
            return vn_cli_fail_printf("--max-memory: '%s' is below the smallest VM of every mix "
                                      "(2 GiB: 1 vCPU x 2 GiB)",
                                      max_memory);
    }
    trace = vn_trace_generate((guint)vms, (guint32)seed, hours, (VnTraceSizeMix)size,
                              (VnTraceLifetimeMix)lifetime, max_kib);
    csv = vn_trace_format(trace);
    if (!output) {
        fputs(csv, stdout);
        return VN_EXIT_OK;
    }
    if (!g_file_set_contents(output, csv, -1, &error))
        return vn_cli_fail(error);
    return VN_EXIT_OK;
}
