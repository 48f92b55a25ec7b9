/* vnumactl-plan.c: `vnumactl plan` and `vnumactl explain`.
 *
 * Both plan one VM against a host (live, or any topology source) and its
 * load, with no side effect.  The VM comes from flags, or from a libvirt
 * domain XML file whose rewritten form `plan` then prints.
 */
#include "vnumactl.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-placement-json.h"
#include "vn-plan.h"
#include "vn-size.h"
#include "vn-cpulist.h"

#include <stdio.h>

typedef struct {
    gint vcpus;
    gchar *memory;
    gchar *hugepages;
    gboolean dedicated;
    gchar *smt;
    gint iothreads;
    gchar *priority;
    gint cells;
    gchar **cell_specs;
    gboolean memory_only_nodes;
    gchar *tiers;
    gboolean interleave;
    gchar **device_nodes;
    gint repeat;
    gboolean json;
    gboolean force;
    VnSourceOptions source;
} PlanOptions;

static void
plan_options_clear(PlanOptions *o)
{
    g_free(o->memory);
    g_free(o->hugepages);
    g_free(o->smt);
    g_free(o->priority);
    g_free(o->tiers);
    g_strfreev(o->device_nodes);
    g_strfreev(o->cell_specs);
    vn_source_options_clear(&o->source);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(PlanOptions, plan_options_clear)

static gboolean
parse_uint_option(const gchar *flag, const gchar *text, guint max, guint *ret, GError **error)
{
    guint64 v;

    if (!g_ascii_string_to_unsigned(text, 10, 0, max, &v, NULL)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "%s: '%s' is not a whole number from 0 to %u", flag, text, max);
        return FALSE;
    }
    *ret = (guint)v;
    return TRUE;
}

/* A VM's memory within the request schema's limits. */
static gboolean
check_memory(const gchar *flag, const gchar *text, guint64 kib, GError **error)
{
    if (kib >= VN_REQUEST_MIN_MEMORY_KIB && kib / 1024 <= VN_REQUEST_MAX_MEMORY_MIB)
        return TRUE;
    g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                "%s: '%s' is not from 1 MiB to %" G_GUINT64_FORMAT " MiB (1 PiB)", flag, text,
                VN_REQUEST_MAX_MEMORY_MIB);
    return FALSE;
}

/* --vcpus and --memory: the VM's size when no --cell gives it. */
static gboolean
size_from_options(const PlanOptions *o, VnRequest *r, GError **error)
{
    if (o->vcpus <= 0) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--vcpus: a positive number is required (got %d)", o->vcpus);
        return FALSE;
    }
    if (o->vcpus > VN_REQUEST_MAX_VCPUS) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--vcpus: must be from 1 to %d, the most vCPUs a VM may have (got %d)",
                    VN_REQUEST_MAX_VCPUS, o->vcpus);
        return FALSE;
    }
    r->vcpus = (guint)o->vcpus;
    if (!o->memory) {
        g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "--memory: required (a size such as 8G, or MiB)");
        return FALSE;
    }
    if (!vn_size_parse_kib(o->memory, &r->memory_kib, error)) {
        g_prefix_error(error, "--memory: ");
        return FALSE;
    }
    if (!check_memory("--memory", o->memory, r->memory_kib, error))
        return FALSE;
    if (o->cells < 0 || o->cells > VN_REQUEST_MAX_CELLS) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cells: must be from 0 to %d", VN_REQUEST_MAX_CELLS);
        return FALSE;
    }
    r->cells = (guint)o->cells;
    return TRUE;
}

/* One --cell VCPUS:SIZE, appended to the request's cell sizes. */
static gboolean
add_cell_option(const gchar *text, VnRequest *r, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ":", 2);
    guint64 vcpus, kib;

    if (g_strv_length(parts) != 2) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cell: '%s' is not VCPUS:SIZE (such as 2:4G)", text);
        return FALSE;
    }
    if (!g_ascii_string_to_unsigned(parts[0], 10, 0, VN_REQUEST_MAX_VCPUS, &vcpus, NULL)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cell: '%s': vCPUs must be a whole number from 0 to %d", text,
                    VN_REQUEST_MAX_VCPUS);
        return FALSE;
    }
    if (!vn_size_parse_kib(parts[1], &kib, error)) {
        g_prefix_error(error, "--cell: '%s': ", text);
        return FALSE;
    }
    vn_request_add_cell_size(r, (guint)vcpus, kib);
    r->vcpus += (guint)vcpus;
    r->memory_kib += kib;
    return TRUE;
}

/* --vcpus, --memory and --cells next to --cell: each must say what the
 * cells say (scripts may pass both), never something else. */
static gboolean
check_cells_consistent(const PlanOptions *o, const VnRequest *r, GError **error)
{
    guint64 kib;

    if (o->vcpus != 0 && (o->vcpus < 0 || (guint)o->vcpus != r->vcpus)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--vcpus: %d, but the --cell options hold %u vCPUs", o->vcpus, r->vcpus);
        return FALSE;
    }
    if (o->memory && !vn_size_parse_kib(o->memory, &kib, error)) {
        g_prefix_error(error, "--memory: ");
        return FALSE;
    }
    if (o->memory && kib != r->memory_kib) {
        g_autofree gchar *sum =
            r->memory_kib % 1024
                ? g_strdup_printf("%" G_GUINT64_FORMAT " KiB", r->memory_kib)
                : g_strdup_printf("%" G_GUINT64_FORMAT " MiB", r->memory_kib / 1024);
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--memory: '%s', but the --cell options hold %s", o->memory, sum);
        return FALSE;
    }
    if (o->cells != 0 && (o->cells < 0 || (guint)o->cells != r->cells)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cells: %d, but %u --cell options are given", o->cells, r->cells);
        return FALSE;
    }
    return TRUE;
}

/* --cell VCPUS:SIZE, repeated: guest cell i has exactly the i-th size, and
 * the VM is their sum.  Cells all of one size are the even split, as
 * --cells K (and a domain's identical guest cells) would be. */
static gboolean
cells_from_options(const PlanOptions *o, VnRequest *r, GError **error)
{
    guint n = g_strv_length(o->cell_specs);

    if (n > VN_REQUEST_MAX_CELL_SIZES) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cell: at most %d guest cells of their own sizes (got %u)",
                    VN_REQUEST_MAX_CELL_SIZES, n);
        return FALSE;
    }
    for (guint i = 0; i < n; i++)
        if (!add_cell_option(o->cell_specs[i], r, error))
            return FALSE;
    r->cells = n;
    if (r->vcpus == 0) {
        g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "--cell: no cell has vCPUs (at least one needs some)");
        return FALSE;
    }
    if (r->vcpus > VN_REQUEST_MAX_VCPUS) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--cell: the cells hold %u vCPUs, more than the %d a VM may have", r->vcpus,
                    VN_REQUEST_MAX_VCPUS);
        return FALSE;
    }
    {
        g_autofree gchar *sum = g_strdup_printf("%" G_GUINT64_FORMAT "K", r->memory_kib);
        if (!check_memory("--cell", sum, r->memory_kib, error))
            return FALSE;
    }
    if (!check_cells_consistent(o, r, error))
        return FALSE;
    vn_request_forget_even_cell_sizes(r);
    return TRUE;
}

/* The first flag given that describes the VM's shape, or NULL: with a
 * DOMAIN.xml the domain gives the shape, and a flag that would be ignored
 * is refused instead. */
static const gchar *
shape_flag(const PlanOptions *o)
{
    if (o->vcpus)
        return "--vcpus";
    if (o->memory)
        return "--memory";
    if (o->cell_specs)
        return "--cell";
    if (o->cells)
        return "--cells";
    if (o->hugepages)
        return "--hugepages";
    if (o->dedicated)
        return "--dedicated";
    if (o->smt)
        return "--smt";
    if (o->iothreads)
        return "--iothreads";
    if (o->priority)
        return "--priority";
    if (o->memory_only_nodes)
        return "--memory-only-nodes";
    if (o->tiers)
        return "--tiers";
    if (o->interleave)
        return "--interleave";
    if (o->device_nodes)
        return "--device-node";
    if (o->repeat)
        return "--repeat";
    return NULL;
}

/* Flags -> request.  Every bad value names its flag. */
static VnRequest *
request_from_options(const PlanOptions *o, GError **error)
{
    g_autoptr(VnRequest) r = vn_request_new();

    if (o->cell_specs ? !cells_from_options(o, r, error) : !size_from_options(o, r, error))
        return NULL;
    if (o->hugepages && !vn_size_parse_kib(o->hugepages, &r->hugepage_kib, error)) {
        g_prefix_error(error, "--hugepages: ");
        return NULL;
    }
    if (o->hugepages && r->hugepage_kib != VN_REQUEST_HUGEPAGE_2M_KIB &&
        r->hugepage_kib != VN_REQUEST_HUGEPAGE_1G_KIB) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--hugepages: '%s' is not a hugepage size (2M or 1G)", o->hugepages);
        return NULL;
    }
    r->dedicated = o->dedicated;
    if (o->smt && !vn_smt_policy_from_string(o->smt, &r->smt)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--smt: '%s' is not one of prefer, isolate, require", o->smt);
        return NULL;
    }
    if (o->smt && !o->dedicated) {
        g_set_error_literal(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                            "--smt: only meaningful with --dedicated");
        return NULL;
    }
    if (o->priority && !vn_priority_from_string(o->priority, &r->priority)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--priority: '%s' is not one of high, normal, low", o->priority);
        return NULL;
    }
    if (o->iothreads < 0 || o->iothreads > VN_REQUEST_MAX_IOTHREADS) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--iothreads: must be from 0 to %d", VN_REQUEST_MAX_IOTHREADS);
        return NULL;
    }
    if (o->device_nodes && g_strv_length(o->device_nodes) > VN_REQUEST_MAX_DEVICES) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--device-node: at most %d devices (got %u)", VN_REQUEST_MAX_DEVICES,
                    g_strv_length(o->device_nodes));
        return NULL;
    }
    r->iothreads = (guint)o->iothreads;
    r->allow_memory_only = o->memory_only_nodes;
    if (o->tiers && !vn_tiers_from_string(o->tiers, &r->tiers)) {
        g_set_error(error, G_OPTION_ERROR, G_OPTION_ERROR_BAD_VALUE,
                    "--tiers: '%s' is not one of off, spill, guest", o->tiers);
        return NULL;
    }
    r->tiers_set = o->tiers != NULL;
    r->interleave = o->interleave ? VN_INTERLEAVE_WISH : VN_INTERLEAVE_NONE;
    for (guint i = 0; o->device_nodes && o->device_nodes[i]; i++) {
        guint node;
        g_autofree gchar *name = g_strdup_printf("device %u", i + 1);
        if (!parse_uint_option("--device-node", o->device_nodes[i], VN_REQUEST_MAX_NODE_ID, &node,
                               error))
            return NULL;
        vn_request_add_device(r, node, 0, name);
    }
    return g_steal_pointer(&r);
}

static GOptionContext *
plan_context(PlanOptions *o, gboolean explain)
{
    const GOptionEntry entries[] = {
        { "vcpus", 0, 0, G_OPTION_ARG_INT, &o->vcpus, "Guest vCPUs", "N" },
        { "memory", 0, 0, G_OPTION_ARG_STRING, &o->memory,
          "Guest memory (K/M/G/T suffix; plain number = MiB)", "SIZE" },
        { "hugepages", 0, 0, G_OPTION_ARG_STRING, &o->hugepages,
          "Back memory with hugepages of this size", "2M|1G" },
        { "dedicated", 0, 0, G_OPTION_ARG_NONE, &o->dedicated,
          "Pin each vCPU 1:1 to a host CPU nobody else uses", NULL },
        { "smt", 0, 0, G_OPTION_ARG_STRING, &o->smt,
          "SMT policy for dedicated VMs (default prefer)", "prefer|isolate|require" },
        { "iothreads", 0, 0, G_OPTION_ARG_INT, &o->iothreads, "IOThreads to place", "N" },
        { "priority", 0, 0, G_OPTION_ARG_STRING, &o->priority,
          "Contention priority (default normal)", "high|normal|low" },
        { "cells", 0, 0, G_OPTION_ARG_INT, &o->cells,
          "Fixed guest NUMA cell count (default: vnuma chooses)", "K" },
        { "cell", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->cell_specs,
          "A guest cell of its own size, in order (repeatable; the VM is their sum)",
          "VCPUS:SIZE" },
        { "memory-only-nodes", 0, 0, G_OPTION_ARG_NONE, &o->memory_only_nodes,
          "May use memory-only nodes (HBM, CXL) as CPU-less guest cells", NULL },
        { "tiers", 0, 0, G_OPTION_ARG_STRING, &o->tiers,
          "Memory its CPU node's DRAM cannot hold, on a slow tier (default: [placement] tiers)",
          "off|spill|guest" },
        { "interleave", 0, 0, G_OPTION_ARG_NONE, &o->interleave,
          "Memory interleaved over several nodes instead of guest cells", NULL },
        { "device-node", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o->device_nodes,
          "Host NUMA node of a device the VM uses (repeatable)", "NODE" },
        { "repeat", 0, 0, G_OPTION_ARG_INT, &o->repeat,
          "Plan N times; print the median time on stderr", "N" },
        { "force", 0, 0, G_OPTION_ARG_NONE, &o->force,
          "With DOMAIN.xml: replace hand-written pins and numatune", NULL },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o->json, "Print JSON", NULL },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &o->source.state_dir,
          "The ledger whose VMs the host holds, and defragmentation may move, on any topology "
          "source (default: this host's, for this host only)",
          "DIR" },
        { NULL },
    };
    GOptionContext *ctx = vn_cli_context_new(
        explain
            ? "Plan a VM and show every candidate node set with its score"
            : "Plan a VM's placement (no side effect). With DOMAIN.xml, print the rewritten XML",
        entries, &o->source);

    g_option_context_set_description(
        ctx, "The VM comes from the flags, or from DOMAIN.xml (then no shape flag is allowed).\n"
             "--cell VCPUS:SIZE, once per guest cell (--cell 2:12G --cell 6:4G), gives each cell\n"
             "its own size; vCPUs, memory and cell count are then the cells' (--vcpus, --memory\n"
             "and --cells may be left out, and when given must say the same).\n"
             "Exit status: 0 placed, 1 bad input, 2 no placement fits this host now.");
    return ctx;
}

static gint
u64_cmp(gconstpointer a, gconstpointer b)
{
    gint64 x = *(const gint64 *)a, y = *(const gint64 *)b;
    return (x > y) - (x < y);
}

/* --repeat: the median of N timed plans, on stderr. */
static void
report_repeat(const VnTopology *t, const VnLoad *load, const VnPolicy *policy, const VnRequest *req,
              guint n)
{
    g_autofree gint64 *us = g_new(gint64, n);

    for (guint i = 0; i < n; i++) {
        gint64 t0 = g_get_monotonic_time();
        VnPlacement *p = vn_plan(t, load, policy, req, NULL, NULL);
        us[i] = g_get_monotonic_time() - t0; /* the free is not timed */
        vn_placement_free(p);
    }
    qsort(us, n, sizeof(gint64), u64_cmp);
    fprintf(stderr, "plan: median %" G_GINT64_FORMAT " us over %u runs\n", us[n / 2], n);
}

static void
print_text(const VnPlacement *p)
{
    /* the cells are host shares when the guest sees one node */
    if (p->interleave)
        printf("memory: interleaved over the cells' nodes, no guest cells\n");
    else if (p->tiers == VN_TIERS_SPILL)
        printf("memory: spill, one guest node; each cell is what is expected on its node\n");
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        g_autofree gchar *cpus = vn_cpulist_format(c->cpus);
        if (c->n_vcpus == 0)
            printf("cell %u: node %u, no vCPUs (memory only), %" G_GUINT64_FORMAT " MiB\n", c->id,
                   c->node_os_id, vn_size_kib_to_mib(c->memory_kib));
        else
            printf("cell %u: node %u, vCPUs %u-%u, host CPUs %s, %" G_GUINT64_FORMAT " MiB\n",
                   c->id, c->node_os_id, c->vcpu_first, c->vcpu_first + c->n_vcpus - 1, cpus,
                   vn_size_kib_to_mib(c->memory_kib));
    }
    {
        g_autofree gchar *emu = vn_cpulist_format(p->emulator_cpus);
        printf("emulator: %s\n", emu);
    }
    for (guint i = 0; i < p->iothreads->len; i++) {
        const VnIOThreadPin *io = &g_array_index(p->iothreads, VnIOThreadPin, i);
        g_autofree gchar *cpus = vn_cpulist_format(io->cpus);
        printf("iothread %u: cell %u, host CPUs %s\n", io->id, io->cell, cpus);
    }
    for (guint i = 0; i < p->reasons->len; i++)
        printf("reason: %s\n", (const gchar *)g_ptr_array_index(p->reasons, i));
}

static void
print_candidates(const VnTopology *t, const VnPlacement *p)
{
    printf("\n%-6s %-16s %-8s %-9s %-7s %-9s %s\n", "rank", "nodes", "feasible", "distance",
           "device", "load", "note");
    for (guint i = 0; i < p->candidates->len; i++) {
        const VnCandidate *c = g_ptr_array_index(p->candidates, i);
        g_autoptr(GString) nodes = g_string_new(NULL);
        for (guint n = 0; n < c->nodes->len; n++)
            g_string_append_printf(nodes, "%s%u", n ? "," : "",
                                   t->nodes[g_array_index(c->nodes, guint, n)].os_id);
        if (c->feasible) {
            g_autofree gchar *load = g_strdup_printf("%.0f%%", c->load_after * 100.0);
            printf("%-6u %-16s %-8s %-9u %-7u %-9s %s\n", i + 1, nodes->str,
                   c->chosen ? "chosen" : "yes", c->internal_distance, c->device_distance, load,
                   c->note ? c->note : "");
        } else
            printf("%-6s %-16s %-8s %-9s %-7s %-9s %s\n", "-", nodes->str, "no", "-", "-", "-",
                   c->note ? c->note : "");
    }
}

static int
report_no_fit(const PlanOptions *o, const GError *error, GPtrArray *reasons)
{
    if (o->json) {
        g_autoptr(JsonNode) node = vn_plan_error_to_json(error, reasons);
        vn_cli_print_json(node);
    }
    fprintf(stderr, "%s: %s\n", g_get_prgname(), error->message);
    if (!o->json)
        for (guint i = 1; reasons && i < reasons->len; i++)
            fprintf(stderr, "  %s\n", (const gchar *)g_ptr_array_index(reasons, i));
    return VN_EXIT_NO_FIT;
}

static int
run_plan(int argc, char **argv, gboolean explain)
{
    g_auto(PlanOptions) o = { .repeat = 0 };
    g_autoptr(GOptionContext) ctx = plan_context(&o, explain);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnRequest) req = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GPtrArray) reasons = NULL;
    g_autofree gchar *xml = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_auto(VnEngineResult) res = { 0 };
    const gchar *domain_path = NULL;

    if (!vn_cli_parse_args(ctx, &argc, &argv, 1, &domain_path))
        return VN_EXIT_ERROR;
    if (o.repeat < 0 || o.repeat > 1000000)
        return vn_cli_fail_printf("--repeat: must be from 1 to 1000000");
    if (domain_path && shape_flag(&o))
        return vn_cli_fail_printf("%s: not with DOMAIN.xml, which gives the VM's shape "
                                  "(edit the domain, or plan from the flags alone)",
                                  shape_flag(&o));
    if (!domain_path && !(req = request_from_options(&o, &error)))
        return vn_cli_fail(error);
    /* one ledger read: the VMs defragmentation may move are those the load counts */
    if (!vn_source_load_with_ledger(&o.source, &t, &load, &config, &ledger, &error))
        return vn_cli_fail(error);
    const VnEngineHost host = { .t = t,
                                .load = load,
                                .policy = config->policy,
                                .sysroot = o.source.sysroot,
                                .defragment = config->defragment,
                                .ledger = ledger };

    if (domain_path) {
        VnDomainWriteOptions wo = { .force = o.force, .memory_mode = config->memory_mode };
        g_autoptr(VnDomain) d = vn_domain_load_file(domain_path, &error);
        if (!d)
            return vn_cli_fail(error);
        if (vn_engine_run(d, &host, VN_ENGINE_PLAN, &wo, &res, &error)) {
            p = g_steal_pointer(&res.placement);
            xml = g_steal_pointer(&res.xml);
        }
        reasons = g_steal_pointer(&res.reasons);
    } else {
        p = vn_plan(t, load, config->policy, req, &reasons, &error);
        /* the engine's defragmentation step, on the request as given */
        res.request = g_steal_pointer(&req);
        res.placement = g_steal_pointer(&p);
        vn_engine_defragment(&host, NULL, &res);
        req = g_steal_pointer(&res.request);
        p = g_steal_pointer(&res.placement);
    }
    /* timed whether it fits or not: a full host is the case that matters */
    if (o.repeat > 0 && req)
        report_repeat(t, load, config->policy, req, (guint)o.repeat);
    if (!p && error && error->domain == VN_PLAN_ERROR && error->code == VN_PLAN_ERROR_NO_FIT)
        return report_no_fit(&o, error, reasons);
    if (!p)
        return vn_cli_fail(error);
    vn_cli_print_warnings(p);

    if (o.json) {
        g_autoptr(JsonNode) node = vn_placement_to_json(t, p, explain);
        if (xml)
            json_object_set_string_member(json_node_get_object(node), "xml", xml);
        vn_engine_defrag_add_json(json_node_get_object(node), t, config->defragment, &res);
        vn_cli_print_json(node);
    } else if (xml && !explain) {
        vn_cli_print_defrag(t, config->defragment, &res, TRUE);
        fputs(xml, stdout);
    } else {
        vn_cli_print_defrag(t, config->defragment, &res, FALSE);
        print_text(p);
        if (explain)
            print_candidates(t, p);
    }
    return VN_EXIT_OK;
}

int
vn_cmd_plan(int argc, char **argv)
{
    return run_plan(argc, argv, FALSE);
}

int
vn_cmd_explain(int argc, char **argv)
{
    return run_plan(argc, argv, TRUE);
}
