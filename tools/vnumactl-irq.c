/* vnumactl irq plan|apply|reset: the placed VMs' NIC interrupts and
 * RPS/XPS masks on their node (vn-irq-plan.h decides, vn-irq.h writes).
 *
 *   plan   what apply would do (a dry run): per NIC, every vector and
 *          queue mask now and planned, the reasons, each CPU's role;
 *   apply  writes what differs, all or nothing per NIC; the values
 *          before are saved in the state directory;
 *   reset  writes the saved values back.
 * --device NAME|PCI (repeatable) plans only those, whether a VM uses
 * them or not. */
#include "vnumactl.h"

#include "vn-cpulist.h"
#include "vn-irq-json.h"
#include "vn-irq.h"
#include "vn-irqbalance.h"
#include "vn-ledger-domain.h"

typedef struct {
    gboolean json;
    gchar *state_dir;
    gchar **devices;
    VnSourceOptions source;
} IrqOptions;

static void
irq_options_clear(IrqOptions *o)
{
    g_free(o->state_dir);
    g_strfreev(o->devices);
    vn_source_options_clear(&o->source);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(IrqOptions, irq_options_clear)

static void
print_lines(const gchar *prefix, const GPtrArray *lines, gboolean to_stderr)
{
    for (guint i = 0; lines && i < lines->len; i++) {
        if (to_stderr)
            g_printerr("%s: %s%s\n", g_get_prgname(), prefix, (const gchar *)lines->pdata[i]);
        else
            g_print("%s%s\n", prefix, (const gchar *)lines->pdata[i]);
    }
}

static void
print_nic_text(const VnNic *n, const VnIrqNicPlan *p, guint n_cpus)
{
    g_autofree gchar *cpus = p->cpus ? vn_cpulist_format(p->cpus) : g_strdup("(left as it is)");

    g_print("%s (%s%s%s, %s, device node %d): CPUs %s\n", p->name, n->pci_address,
            n->pf_address ? ", VF of " : "", n->pf_address ? n->pf_address : "",
            vn_irq_nic_kind_to_string(p->kind), n->node, cpus);
    for (guint k = 0; k < n->irqs->len && k < p->targets->len; k++) {
        const VnNicIrq *irq = n->irqs->pdata[k];
        const VnIrqTarget *t = &g_array_index(p->targets, VnIrqTarget, k);
        g_autofree gchar *to = t->cpus ? vn_cpulist_format(t->cpus) : g_strdup("(left)");
        g_print("  irq %u %s: %s -> %s\n", irq->irq, irq->name, irq->affinity ? irq->affinity : "?",
                to);
    }
    for (guint i = 0; i < n->rx->len && i < p->rps->len; i++) {
        const VnNicQueue *q = n->rx->pdata[i];
        g_autofree gchar *to = vn_cpumask_format(p->rps->pdata[i], n_cpus);
        g_print("  %s RPS: %s -> %s\n", q->name, q->mask ? q->mask : "?", to);
    }
    for (guint i = 0; i < n->tx->len && i < p->xps->len; i++) {
        const VnNicQueue *q = n->tx->pdata[i];
        g_autofree gchar *to = vn_cpumask_format(p->xps->pdata[i], n_cpus);
        g_print("  %s XPS: %s -> %s\n", q->name, q->mask ? q->mask : "(not readable)",
                q->mask ? to : "(left)");
    }
    print_lines("  reason: ", p->reasons, FALSE);
    for (guint i = 0; i < p->rows->len; i++) {
        const VnIrqRow *r = &g_array_index(p->rows, VnIrqRow, i);
        g_autoptr(GString) irqs = g_string_new(NULL);
        for (guint k = 0; k < r->irqs->len; k++)
            g_string_append_printf(irqs, "%s%u", k ? "," : ", irqs ",
                                   g_array_index(r->irqs, guint, k));
        g_print("  cpu %u (core %u): %s%s%s%s\n", r->cpu, r->core,
                vn_irq_cpu_state_to_string(r->state), r->vm ? " to " : "", r->vm ? r->vm : "",
                irqs->str);
    }
}

static void
print_plan_text(const VnIrqHost *h, const VnIrqPlan *p, const VnIrqbalance *ib, guint n_cpus)
{
    g_autofree gchar *ibline = vn_irqbalance_describe(ib);

    if (!h->nics->len)
        g_print("no NIC serves a placed VM\n");
    for (guint i = 0; i < h->nics->len; i++)
        print_nic_text(h->nics->pdata[i], p->nics->pdata[i], n_cpus);
    g_print("irqbalance: %s\n", ibline);
}

static void
print_json(const VnIrqHost *h, const VnIrqPlan *p, const VnIrqbalance *ib, guint n_cpus,
           const GPtrArray *changed, const GPtrArray *left, const GPtrArray *failed)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;
    const GPtrArray *lists[] = { changed, left, failed };
    const gchar *names[] = { "changed", "left", "failed" };

    json_builder_begin_object(b);
    vn_irq_json_add(b, h, p, ib, n_cpus);
    for (guint i = 0; i < G_N_ELEMENTS(lists); i++) {
        if (!lists[i])
            continue;
        json_builder_set_member_name(b, names[i]);
        json_builder_begin_array(b);
        for (guint k = 0; k < lists[i]->len; k++)
            json_builder_add_string_value(b, lists[i]->pdata[k]);
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    vn_cli_print_json(root);
}

static int
irq_reset(const IrqOptions *o)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *state_dir = vn_cli_state_dir(o->state_dir, NULL, &error);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    gboolean ok;

    if (!state_dir)
        return vn_cli_fail(error);
    ok = vn_irq_reset(o->source.sysroot, state_dir, log, &error);
    if (!log->len && ok)
        g_print("nothing saved: nothing to restore\n");
    print_lines("", log, FALSE);
    return ok ? VN_EXIT_OK : vn_cli_fail(error);
}

static int
irq_plan_or_apply(const IrqOptions *o, gboolean apply)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_autoptr(VnIrqView) v = NULL;
    g_autofree gchar *state_dir = NULL;
    g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) left = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) failed = g_ptr_array_new_with_free_func(g_free);
    guint n_failed = 0;

    if (!vn_source_load(&o->source, &t, NULL, &config, &error) ||
        !(state_dir = vn_cli_state_dir(o->state_dir, config, &error)) ||
        !(ledger = vn_ledger_snapshot(state_dir, &error)) ||
        !(v = vn_irq_view_new(o->source.sysroot, vn_ledger_libvirt_run_dir(),
                              vn_ledger_records(ledger), t, config->policy->reserved_cpus,
                              (const gchar *const *)o->devices, &error)))
        return vn_cli_fail(error);
    const VnIrqHost *h = v->host;
    const VnIrqPlan *p = v->plan;
    const VnIrqbalance *ib = v->irqbalance;
    print_lines("warning: ", h->problems, TRUE);
    if (apply)
        n_failed = vn_irq_apply_all(o->source.sysroot, state_dir, h, p, t->n_cpu_ids, changed, left,
                                    failed);
    if (o->json)
        print_json(h, p, ib, t->n_cpu_ids, apply ? changed : NULL, apply ? left : NULL,
                   apply ? failed : NULL);
    else if (!apply)
        print_plan_text(h, p, ib, t->n_cpu_ids);
    else {
        print_lines("changed: ", changed, FALSE);
        print_lines("left: ", left, FALSE);
        if (!changed->len && !n_failed)
            g_print("every NIC already in place\n");
    }
    if (apply && ib->mode == VN_IRQBALANCE_UNCOORDINATED) {
        g_autofree gchar *line = vn_irqbalance_describe(ib);
        g_printerr("%s: warning: irqbalance %s\n", g_get_prgname(), line);
    }
    print_lines("", failed, TRUE);
    return n_failed ? VN_EXIT_ERROR : VN_EXIT_OK;
}

int
vn_cmd_irq(int argc, char **argv)
{
    g_auto(IrqOptions) o = { 0 };
    const GOptionEntry entries[] = {
        { "device", 0, 0, G_OPTION_ARG_STRING_ARRAY, &o.devices,
          "Only this interface or PCI address (repeatable), used by a VM or not", "DEV" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.state_dir,
          "Ledger and saved values (default: $VNUMA_STATE_DIR, else vnuma.conf)", "DIR" },
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print JSON", NULL },
        { NULL },
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "ACTION is plan (a dry run), apply or reset: the placed VMs' NIC interrupts and "
        "RPS/XPS masks on their node, off dedicated CPUs",
        entries, &o.source);
    const gchar *action = NULL;

    if (!vn_cli_parse_args(ctx, &argc, &argv, 1, &action))
        return VN_EXIT_ERROR;
    if (!action)
        return vn_cli_fail_printf("give an action: plan, apply or reset (see --help)");
    if (g_str_equal(action, "reset"))
        return irq_reset(&o);
    if (g_str_equal(action, "plan") || g_str_equal(action, "apply"))
        return irq_plan_or_apply(&o, g_str_equal(action, "apply"));
    return vn_cli_fail_printf("unknown action \"%s\": plan, apply or reset", action);
}
