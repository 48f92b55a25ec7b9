/* vnumactl status / log: the operator's view of the host.
 *
 *   vnumactl status [SOURCE OPTIONS] [--state-dir DIR] [--sample SECONDS] [--json]
 *   vnumactl log [--state-dir DIR] [--lines N] [--json]
 *
 * status: a row per VM in the ledger (vCPUs, guest cells -> host nodes,
 * CPUs, priority, last move, memory per node measured from the QEMU
 * process's numa_maps, locality) and a row per node (committed vs
 * capacity, measured busy, free memory, numa_miss share with its warning
 * level), and a row per host NIC serving a running VM (its node, queues,
 * interrupts, whether vnuma steered them and whether they are where the
 * plan of `vnumactl irq` puts them) with irqbalance's mode; then AutoNUMA:
 * kernel.numa_balancing, the host's counters since boot, with --sample the
 * rates (promoted, demoted, hint faults, pages migrated per second) between
 * two reads of /proc/vmstat SECONDS apart (vnumad's GET /v1/host has them
 * from its own samples) and a row per VM (memory mode, bound or not,
 * numa_faults and pages migrated of its QEMU threads), with a warning when
 * normal balancing runs beside restrictive VMs (vn-autonuma-report.h).  The
 * committed load is the ledger's, whatever the source (so
 * --load does not apply).  --sysroot replays a captured host, including
 * /proc/<pid>/numa_maps and libvirt's <run_dir>/<name>.pid.
 * log: the last N lines of the decision history (vn-history.h).
 */
#include "vnumactl.h"

#include <errno.h>
#include <stdio.h>

#include "vn-autonuma-report.h"
#include "vn-cpulist.h"
#include "vn-history.h"
#include "vn-irq-json.h"
#include "vn-irq.h"
#include "vn-json-build.h"
#include "vn-ledger-domain.h"
#include "vn-status.h"
#include "vn-topology-svg.h"
#include "vn-size.h"

/* The ledger's commitments replace whatever the source counted (the live
 * host's source already adds the same ledger: counting it once). */
static void
load_from_ledger(VnLoad *load, const VnTopology *t, const VnPolicy *policy, const VnLedger *ledger)
{
    for (guint i = 0; i < load->n_nodes; i++) {
        load->nodes[i].committed_vcpus = 0;
        load->nodes[i].committed_high_vcpus = 0;
        load->nodes[i].committed_memory_kib = 0;
    }
    for (guint i = 0; i < load->n_domains; i++)
        load->domain_vcpus[i] = 0;
    vn_bitmap_clear_all(load->dedicated_cpus);
    g_hash_table_remove_all(load->committed_hugepages);
    vn_ledger_to_load(ledger, t, policy, NULL, load);
}

static gchar *
mib_text(guint64 kib)
{
    return kib == G_MAXUINT64 ? g_strdup("-")
                              : g_strdup_printf("%" G_GUINT64_FORMAT, vn_size_kib_to_mib(kib));
}

static gchar *
share_text(gdouble v)
{
    return v < 0 ? g_strdup("-") : g_strdup_printf("%.1f%%", v * 100.0);
}

static gchar *
time_text(gint64 t)
{
    g_autoptr(GDateTime) dt = t > 0 ? g_date_time_new_from_unix_utc(t) : NULL;

    return dt ? g_date_time_format(dt, "%Y-%m-%dT%H:%M:%SZ") : g_strdup("-");
}

static gchar *
cells_text(const VnLedgerRecord *r, gboolean cpus)
{
    GString *s = g_string_new(NULL);

    for (guint c = 0; c < r->cells->len; c++) {
        const VnLedgerCell *cell = &g_array_index(r->cells, VnLedgerCell, c);
        if (cpus)
            g_string_append_printf(s, "%s%s", c ? ";" : "", cell->cpus);
        else
            g_string_append_printf(s, "%s%u->%u", c ? "," : "", cell->id, cell->node_os_id);
    }
    return g_string_free(s, FALSE);
}

static gchar *
memory_text(const VnStatusVm *v)
{
    GString *s = g_string_new(NULL);

    if (!v->measured)
        return g_string_free(s, FALSE);
    for (guint i = 0; i < v->memory->len; i++) {
        const VnStatusNodeMemory *m = &g_array_index(v->memory, VnStatusNodeMemory, i);
        g_autofree gchar *mib = mib_text(m->kib);
        g_string_append_printf(s, "%s%u:%s", i ? " " : "", m->node_os_id, mib);
    }
    return g_string_free(s, FALSE);
}

static void
print_vms_text(const VnStatus *s)
{
    printf("%-16s %-8s %5s %-10s %-12s %-8s %-20s %-22s %s\n", "vm", "state", "vcpus", "cells",
           "cpus", "priority", "last_move", "memory_mib_per_node", "locality");
    for (guint i = 0; i < s->vms->len; i++) {
        const VnStatusVm *v = g_ptr_array_index(s->vms, i);
        const VnLedgerRecord *r = v->record;
        g_autofree gchar *cells = cells_text(r, FALSE);
        g_autofree gchar *cpus = cells_text(r, TRUE);
        g_autofree gchar *when = time_text(r->time);
        g_autofree gchar *mem = memory_text(v);
        g_autofree gchar *loc = share_text(v->locality);

        printf("%-16s %-8s %5u %-10s %-12s %-8s %-20s %-22s %s\n", r->name,
               vn_ledger_state_to_string(r->state), vn_ledger_record_vcpus(r), cells, cpus,
               vn_priority_to_string(r->priority), when, v->measured ? mem : "not measured", loc);
    }
    if (!s->vms->len)
        printf("(no VM in the ledger)\n");
    for (guint i = 0; i < s->vms->len; i++) {
        const VnStatusVm *v = g_ptr_array_index(s->vms, i);
        if (!v->measured)
            printf("%s: not measured: %s\n", v->record->name, v->not_measured);
    }
}

static guint
count_tiers(const VnStatus *s)
{
    guint n = 0;

    for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++)
        n += s->has_tier[k];
    return n;
}

/* "dram = node 0 (memory_tier4), slow = node 1 (memory_tier22)" */
static gchar *
tiers_legend(const VnStatus *s, const VnTopology *t)
{
    GString *g = g_string_new(NULL);

    for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++) {
        g_autoptr(GString) nodes = NULL;
        guint n = 0;

        if (!s->has_tier[k])
            continue;
        nodes = g_string_new(NULL);
        for (guint i = 0; i < t->n_nodes; i++)
            if (t->nodes[i].mem_total_kib && t->nodes[i].tier == k)
                g_string_append_printf(nodes, "%s%u", n++ ? "," : "", t->nodes[i].os_id);
        g_string_append_printf(g, "%s%s = node%s %s", g->len ? ", " : "",
                               vn_memory_tier_to_string(k), n > 1 ? "s" : "", nodes->str);
        if (s->kernel_tier[k] >= 0)
            g_string_append_printf(g, " (memory_tier%d)", s->kernel_tier[k]);
    }
    return g_string_free(g, FALSE);
}

/* On a host with more than one tier: each VM's memory by tier. */
static void
print_tiers_text(const VnStatus *s, const VnTopology *t)
{
    g_autofree gchar *legend = NULL;
    gboolean unknown = FALSE;

    if (count_tiers(s) < 2)
        return;
    legend = tiers_legend(s, t);
    for (guint i = 0; i < s->vms->len; i++)
        unknown |= ((const VnStatusVm *)g_ptr_array_index(s->vms, i))->tier_unknown_kib > 0;
    printf("\nmemory tiers: %s\n%-16s", legend, "vm");
    for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++)
        if (s->has_tier[k]) {
            g_autofree gchar *h = g_strdup_printf("%s_mib", vn_memory_tier_to_string(k));
            printf(" %11s", h);
        }
    printf("%s %s\n", unknown ? " unknown_mib" : "", "not_dram");
    for (guint i = 0; i < s->vms->len; i++) {
        const VnStatusVm *v = g_ptr_array_index(s->vms, i);
        guint64 other = v->tier_unknown_kib;

        printf("%-16s", v->record->name);
        for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++) {
            g_autofree gchar *mib = NULL;
            if (!s->has_tier[k])
                continue;
            mib = v->measured ? mib_text(v->tier_kib[k]) : g_strdup("-");
            printf(" %11s", mib);
            other += k == VN_MEMORY_TIER_DRAM ? 0 : v->tier_kib[k];
        }
        if (unknown) {
            g_autofree gchar *mib = v->measured ? mib_text(v->tier_unknown_kib) : g_strdup("-");
            printf(" %11s", mib);
        }
        if (v->measured && v->resident_kib) {
            g_autofree gchar *share = share_text((gdouble)other / (gdouble)v->resident_kib);
            printf(" %s\n", share);
        } else {
            printf(" -\n");
        }
    }
}

static void
print_nodes_text(const VnStatus *s)
{
    printf("\n%-5s %5s %15s %24s %7s %9s %s\n", "node", "cpus", "vcpus/capacity",
           "committed/usable_mib", "busy", "free_mib", "numa_miss");
    for (guint i = 0; i < s->nodes->len; i++) {
        const VnStatusNode *n = &g_array_index(s->nodes, VnStatusNode, i);
        g_autofree gchar *vcpus = g_strdup_printf("%u/%.0f", n->committed_vcpus, n->vcpu_capacity);
        g_autofree gchar *committed = mib_text(n->committed_memory_kib);
        g_autofree gchar *usable = mib_text(n->mem_usable_kib);
        g_autofree gchar *mem = g_strdup_printf("%s/%s", committed, usable);
        g_autofree gchar *busy = share_text(n->cpu_busy);
        g_autofree gchar *free_mib = mib_text(n->mem_free_kib);
        g_autofree gchar *miss = share_text(n->miss_share);

        printf("%-5u %5u %15s %24s %7s %9s %s %s\n", n->os_id, n->n_cpus, vcpus, mem, busy,
               free_mib, miss, vn_status_level_to_string(n->miss_level));
    }
    for (guint i = 0; i < s->nodes->len; i++) {
        const VnStatusNode *n = &g_array_index(s->nodes, VnStatusNode, i);
        if (n->miss_level == VN_STATUS_LEVEL_LOOK || n->miss_level == VN_STATUS_LEVEL_PROBLEM)
            printf(
                "warning: node %u: %.1f%% of its allocations were numa_miss (%s: above %.0f%%)\n",
                n->os_id, n->miss_share * 100.0,
                n->miss_level == VN_STATUS_LEVEL_PROBLEM ? "a problem" : "worth a look",
                (n->miss_level == VN_STATUS_LEVEL_PROBLEM ? VN_STATUS_MISS_PROBLEM
                                                          : VN_STATUS_MISS_LOOK) *
                    100.0);
    }
}

static gchar *
nic_state_text(const VnIrqNicStatus *s)
{
    GString *t = g_string_new(vn_irq_nic_state_to_string(s->state));

    if (s->state == VN_IRQ_NIC_OFF_PLAN)
        g_string_append_printf(t, " (%u irqs, %u rps, %u xps)", s->drift.irqs_off, s->drift.rps_off,
                               s->drift.xps_off);
    if (s->irqs_left)
        g_string_append_printf(t, ", %u irqs left (the kernel will not move them)", s->irqs_left);
    return g_string_free(t, FALSE);
}

static void
print_nics_text(const VnIrqView *v, const GArray *status)
{
    g_autofree gchar *ib = vn_irqbalance_describe(v->irqbalance);

    printf("\n%-16s %-12s %4s %5s %4s %-7s %-10s %s\n", "nic", "pci", "node", "rx/tx", "irqs",
           "steered", "cpus", "state");
    for (guint i = 0; i < status->len; i++) {
        const VnIrqNicStatus *s = &g_array_index(status, VnIrqNicStatus, i);
        g_autofree gchar *node =
            s->nic->node < 0 ? g_strdup("-") : g_strdup_printf("%d", s->nic->node);
        g_autofree gchar *queues = g_strdup_printf("%u/%u", s->nic->rx->len, s->nic->tx->len);
        g_autofree gchar *cpus = s->plan->cpus ? vn_cpulist_format(s->plan->cpus) : g_strdup("-");
        g_autofree gchar *state = nic_state_text(s);

        printf("%-16s %-12s %4s %5s %4u %-7s %-10s %s\n", s->plan->name, s->nic->pci_address, node,
               queues, s->drift.irqs, s->steered ? "yes" : "no", cpus, state);
    }
    if (!status->len)
        printf("(no NIC serves a running VM)\n");
    for (guint i = 0; i < v->host->problems->len; i++)
        printf("nic: %s\n", (const gchar *)v->host->problems->pdata[i]);
    printf("irqbalance: %s\n", ib);
}

static void
add_share(JsonBuilder *b, const gchar *name, gdouble v)
{
    json_builder_set_member_name(b, name);
    if (v < 0)
        json_builder_add_null_value(b);
    else /* four decimals: what the counters are worth */
        json_builder_add_double_value(b, (gdouble)(gint64)(v * 10000.0 + 0.5) / 10000.0);
}

static void
vm_to_json(JsonBuilder *b, const VnStatus *s, const VnStatusVm *v)
{
    const VnLedgerRecord *r = v->record;
    g_autofree gchar *when = r->time > 0 ? time_text(r->time) : NULL;

    json_builder_begin_object(b);
    vn_json_add_string(b, "name", r->name);
    vn_json_add_string(b, "state", vn_ledger_state_to_string(r->state));
    vn_json_add_int(b, "vcpus", vn_ledger_record_vcpus(r));
    vn_json_add_string(b, "priority", vn_priority_to_string(r->priority));
    vn_json_add_string(b, "last_move", when);
    json_builder_set_member_name(b, "cells");
    json_builder_begin_array(b);
    for (guint c = 0; c < r->cells->len; c++) {
        const VnLedgerCell *cell = &g_array_index(r->cells, VnLedgerCell, c);
        json_builder_begin_object(b);
        vn_json_add_int(b, "cell", cell->id);
        vn_json_add_int(b, "node", cell->node_os_id);
        vn_json_add_int(b, "vcpus", cell->vcpus);
        vn_json_add_string(b, "cpus", cell->cpus);
        vn_json_add_int(b, "memory_mib", (gint64)vn_size_kib_to_mib(cell->memory_kib));
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "memory_mib_per_node");
    if (v->measured) {
        json_builder_begin_object(b);
        for (guint i = 0; i < v->memory->len; i++) {
            const VnStatusNodeMemory *m = &g_array_index(v->memory, VnStatusNodeMemory, i);
            g_autofree gchar *key = g_strdup_printf("%u", m->node_os_id);
            vn_json_add_int(b, key, (gint64)vn_size_kib_to_mib(m->kib));
        }
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    add_share(b, "locality", v->locality);
    json_builder_set_member_name(b, "memory_mib_per_tier");
    if (v->measured) {
        json_builder_begin_object(b);
        for (guint k = 0; k < VN_MEMORY_TIER_MAX; k++)
            if (s->has_tier[k])
                vn_json_add_int(b, vn_memory_tier_to_string(k),
                                (gint64)vn_size_kib_to_mib(v->tier_kib[k]));
        if (v->tier_unknown_kib)
            vn_json_add_int(b, "unknown", (gint64)vn_size_kib_to_mib(v->tier_unknown_kib));
        json_builder_end_object(b);
    } else {
        json_builder_add_null_value(b);
    }
    vn_json_add_string(b, "not_measured", v->not_measured);
    json_builder_end_object(b);
}

static void
node_to_json(JsonBuilder *b, const VnStatusNode *n)
{
    json_builder_begin_object(b);
    vn_json_add_int(b, "id", n->os_id);
    vn_json_add_int(b, "cpus", n->n_cpus);
    vn_json_add_int(b, "committed_vcpus", n->committed_vcpus);
    vn_json_add_int(b, "vcpu_capacity", (gint64)n->vcpu_capacity);
    vn_json_add_int(b, "committed_memory_mib", (gint64)vn_size_kib_to_mib(n->committed_memory_kib));
    vn_json_add_int(b, "usable_memory_mib", (gint64)vn_size_kib_to_mib(n->mem_usable_kib));
    json_builder_set_member_name(b, "free_memory_mib");
    if (n->mem_free_kib == G_MAXUINT64)
        json_builder_add_null_value(b);
    else
        json_builder_add_int_value(b, (gint64)vn_size_kib_to_mib(n->mem_free_kib));
    add_share(b, "cpu_busy", n->cpu_busy);
    add_share(b, "numa_miss_share", n->miss_share);
    vn_json_add_string(b, "numa_miss_level", vn_status_level_to_string(n->miss_level));
    json_builder_end_object(b);
}

/* AutoNUMA is the kernel's: for a captured host (--sysroot) or the live
 * one, not for a topology file (as `vnumactl topology`). */
static VnAutonumaView *
autonuma_view(const VnSourceOptions *source, GPtrArray *records)
{
    const gchar *env = g_getenv("VNUMA_TOPOLOGY");

    if (!source->sysroot && (!vn_source_is_this_host(source) || (env && *env)))
        return NULL;
    return vn_autonuma_view_new(source->sysroot, vn_ledger_libvirt_run_dir(), records);
}

/* --sample: the host's counters read twice, `seconds` apart. */
typedef struct {
    gdouble seconds; /* 0: not asked */
    gboolean known;
    VnAutonumaRates rates;
    gchar *unknown; /* why not, when asked and !known */
} StatusRates;

static void
status_rates_clear(StatusRates *r)
{
    g_free(r->unknown);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(StatusRates, status_rates_clear)

static void
sample_rates(const gchar *sysroot, StatusRates *r)
{
    g_autoptr(GError) error = NULL;
    VnAutonumaCounters before, after;

    if (!vn_autonuma_vmstat_read(sysroot, &before, &error)) {
        r->unknown = g_strdup(error->message);
        return;
    }
    g_usleep((gulong)(r->seconds * G_USEC_PER_SEC));
    if (!vn_autonuma_vmstat_read(sysroot, &after, &error))
        r->unknown = g_strdup(error->message);
    else if (!(r->known = vn_autonuma_rates(&before, &after, r->seconds, &r->rates)))
        r->unknown = g_strdup("a counter went back between the reads (a reboot?)");
}

static void
print_status_json(const VnStatus *s, const VnIrqView *v, const GArray *nics,
                  const VnAutonumaView *autonuma, const StatusRates *rates)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "vms");
    json_builder_begin_array(b);
    for (guint i = 0; i < s->vms->len; i++)
        vm_to_json(b, s, g_ptr_array_index(s->vms, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "nodes");
    json_builder_begin_array(b);
    for (guint i = 0; i < s->nodes->len; i++)
        node_to_json(b, &g_array_index(s->nodes, VnStatusNode, i));
    json_builder_end_array(b);
    vn_irq_json_add_status(b, v, nics);
    json_builder_set_member_name(b, "nic_problems");
    json_builder_begin_array(b);
    for (guint i = 0; i < v->host->problems->len; i++)
        json_builder_add_string_value(b, v->host->problems->pdata[i]);
    json_builder_end_array(b);
    if (autonuma) {
        JsonNode *a = vn_autonuma_to_json(autonuma, rates->known ? &rates->rates : NULL);
        if (rates->seconds > 0)
            json_object_set_double_member(json_node_get_object(a), "rates_seconds", rates->seconds);
        if (rates->unknown)
            json_object_set_string_member(json_node_get_object(a), "rates_unknown", rates->unknown);
        json_builder_set_member_name(b, "autonuma");
        json_builder_add_value(b, a);
    }
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    vn_cli_print_json(root);
}

typedef struct {
    gboolean json;
    gdouble sample;
    gchar *state_dir;
    VnSourceOptions source;
} StatusOptions;

static void
status_options_clear(StatusOptions *o)
{
    g_free(o->state_dir);
    vn_source_options_clear(&o->source);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(StatusOptions, status_options_clear)

int
vn_cmd_status(int argc, char **argv)
{
    g_auto(StatusOptions) o = { 0 };
    const GOptionEntry entries[] = {
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.state_dir,
          "Ledger directory (default: $VNUMA_STATE_DIR, else vnuma.conf)", "DIR" },
        { "sample", 0, 0, G_OPTION_ARG_DOUBLE, &o.sample,
          "Read the host's AutoNUMA and tiering counters twice, SECONDS apart (0.1-600), and "
          "show their rates",
          "SECONDS" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print JSON", NULL },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "Where every VM lives and whether its memory is local; how each node is doing", entries,
        &o.source);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(VnStatus) status = NULL;
    g_autoptr(VnIrqView) view = NULL;
    g_autoptr(GArray) nics = NULL;
    g_autoptr(VnAutonumaView) autonuma = NULL;
    g_autofree gchar *state_dir = NULL;
    g_autofree gchar *autonuma_text = NULL;
    g_auto(StatusRates) rates = { 0 };

    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (o.source.load_file)
        return vn_cli_fail_printf("--load: status shows the ledger's load, not a load file");
    if (o.sample != 0 && !(o.sample >= 0.1 && o.sample <= 600))
        return vn_cli_fail_printf("--sample: seconds between 0.1 and 600 are required (got %g)",
                                  o.sample);
    if (!vn_source_load(&o.source, &t, &load, &config, &error) ||
        !(state_dir = vn_cli_state_dir(o.state_dir, config, &error)) ||
        !(ledger = vn_ledger_snapshot(state_dir, &error)))
        return vn_cli_fail(error);
    load_from_ledger(load, t, config->policy, ledger);
    status = vn_status_collect(t, load, config->policy, vn_ledger_records(ledger), o.source.sysroot,
                               vn_ledger_libvirt_run_dir());
    /* no device is named, so gathering reports problems, never fails */
    if (!(view = vn_irq_view_new(o.source.sysroot, vn_ledger_libvirt_run_dir(),
                                 vn_ledger_records(ledger), t, config->policy->reserved_cpus, NULL,
                                 &error)))
        return vn_cli_fail(error);
    nics = vn_irq_view_status(view, state_dir);
    autonuma = autonuma_view(&o.source, vn_ledger_records(ledger));
    if (o.sample > 0 && !autonuma)
        return vn_cli_fail_printf("--sample: the counters are the kernel's: this host or a "
                                  "--sysroot, not a topology file");
    rates.seconds = o.sample;
    if (o.sample > 0 && autonuma->counters_known)
        sample_rates(o.source.sysroot, &rates);
    else if (o.sample > 0)
        rates.unknown = g_strdup(autonuma->counters_unknown);
    if (o.json) {
        print_status_json(status, view, nics, autonuma, &rates);
        return VN_EXIT_OK;
    }
    print_vms_text(status);
    print_tiers_text(status, t);
    print_nodes_text(status);
    print_nics_text(view, nics);
    if (autonuma) {
        autonuma_text = vn_autonuma_to_text(autonuma);
        printf("\n%s", autonuma_text);
    }
    if (rates.known) {
        g_autofree gchar *line = vn_autonuma_rates_to_text(&rates.rates, rates.seconds);
        fputs(line, stdout);
    } else if (rates.unknown) {
        printf("rates unknown: %s\n", rates.unknown);
    }
    return VN_EXIT_OK;
}

static void
print_log_json(GPtrArray *entries)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "history");
    json_builder_begin_array(b);
    for (guint i = 0; i < entries->len; i++) {
        const VnHistoryEntry *e = g_ptr_array_index(entries, i);
        json_builder_begin_object(b);
        vn_json_add_string(b, "time", e->time);
        vn_json_add_string(b, "vm", e->vm);
        vn_json_add_string(b, "phase", e->phase);
        vn_json_add_string(b, "decision", e->decision);
        vn_json_add_string(b, "nodes", e->nodes);
        vn_json_add_string(b, "reason", e->reason);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    vn_cli_print_json(root);
}

static void
print_log_text(GPtrArray *entries)
{
    printf("%-25s %-16s %-10s %-12s %-8s %s\n", "time", "vm", "phase", "decision", "nodes",
           "reason");
    for (guint i = 0; i < entries->len; i++) {
        const VnHistoryEntry *e = g_ptr_array_index(entries, i);
        printf("%-25s %-16s %-10s %-12s %-8s %s\n", e->time, e->vm, *e->phase ? e->phase : "-",
               e->decision, *e->nodes ? e->nodes : "-", *e->reason ? e->reason : "-");
    }
    if (!entries->len)
        printf("(no decision recorded yet)\n");
}

int
vn_cmd_log(int argc, char **argv)
{
    gboolean json = FALSE;
    gint lines = 50;
    g_autofree gchar *state_opt = NULL;
    const GOptionEntry entries[] = {
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_opt,
          "State directory holding history.log (default: $VNUMA_STATE_DIR, else vnuma.conf)",
          "DIR" },
        { "lines", 'n', 0, G_OPTION_ARG_INT, &lines,
          "Show the last N decisions (default 50; 0 = all)", "N" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print JSON", NULL },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "Show the history of placement decisions and moves (oldest first)", entries, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(GPtrArray) history = NULL;
    g_autofree gchar *state_dir = NULL;

    if (!vn_cli_parse(ctx, &argc, &argv))
        return VN_EXIT_ERROR;
    if (lines < 0)
        return vn_cli_fail_printf("--lines: a number >= 0 is required (got %d)", lines);
    if (!(state_dir = vn_cli_state_dir(state_opt, NULL, &error)) ||
        !(history = vn_history_read(state_dir, (guint)lines, &error)))
        return vn_cli_fail(error);
    if (json)
        print_log_json(history);
    else
        print_log_text(history);
    return VN_EXIT_OK;
}

/* Writes `text` to `path`; on failure one line naming the flag and file. */
static int
write_file(const gchar *flag, const gchar *path, const gchar *text)
{
    FILE *f = fopen(path, "w");
    gboolean ok;
    int err;

    if (!f) {
        err = errno;
        return vn_cli_fail_printf("%s: cannot write %s: %s", flag, path, g_strerror(err));
    }
    ok = fputs(text, f) != EOF;
    err = errno;
    if (fclose(f) != 0 && ok) {
        ok = FALSE;
        err = errno;
    }
    if (!ok)
        return vn_cli_fail_printf("%s: cannot write %s: %s", flag, path, g_strerror(err));
    return VN_EXIT_OK;
}

/* `vnumactl topology --svg FILE`: the picture of the host.  VMs come from
 * the ledger when the source is this host or --state-dir names one, and
 * with them the NICs serving them, read as `vnumactl status` reads them
 * (under --sysroot when given); a topology from a file is another host,
 * drawn without VMs or NICs. */
int
vn_cli_write_topology_svg(const VnSourceOptions *source, const VnTopology *t, VnLoad *load,
                          const VnConfig *config, const gchar *state_opt, const gchar *path)
{
    gboolean this_host = vn_source_is_this_host(source);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(VnStatus) status = NULL;
    g_autoptr(VnIrqView) view = NULL;
    g_autoptr(GArray) nics = NULL;
    g_autoptr(GPtrArray) none = g_ptr_array_new();
    g_autofree gchar *state_dir = NULL;
    g_autofree gchar *svg = NULL;

    if (this_host || state_opt) {
        if (!(state_dir = vn_cli_state_dir(state_opt, config, &error)) ||
            !(ledger = vn_ledger_snapshot(state_dir, &error)))
            return vn_cli_fail(error);
        load_from_ledger(load, t, config->policy, ledger);
        /* no device is named, so gathering reports problems, never fails */
        if (!(view = vn_irq_view_new(source->sysroot, vn_ledger_libvirt_run_dir(),
                                     vn_ledger_records(ledger), t, config->policy->reserved_cpus,
                                     NULL, &error)))
            return vn_cli_fail(error);
        nics = vn_irq_view_status(view, state_dir);
    }
    status = vn_status_collect(t, load, config->policy, ledger ? vn_ledger_records(ledger) : none,
                               source->sysroot, vn_ledger_libvirt_run_dir());
    svg = vn_topology_svg(t, status, nics);
    if (g_str_equal(path, "-")) {
        fputs(svg, stdout);
        return VN_EXIT_OK;
    }
    return write_file("--svg", path, svg);
}
