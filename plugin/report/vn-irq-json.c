/* vn-irq-json.c: see vn-irq-json.h. */
#include "vn-irq-json.h"

#include "vn-cpulist.h"
#include "vn-json-build.h"

static void
add_list(JsonBuilder *b, const gchar *name, const VnBitmap *cpus)
{
    g_autofree gchar *s = cpus ? vn_cpulist_format(cpus) : NULL;

    vn_json_add_string(b, name, s);
}

static void
add_strings(JsonBuilder *b, const gchar *name, const GPtrArray *strings)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (guint i = 0; strings && i < strings->len; i++)
        json_builder_add_string_value(b, strings->pdata[i]);
    json_builder_end_array(b);
}

static void
add_irqs(JsonBuilder *b, const VnNic *n, const VnIrqNicPlan *p)
{
    json_builder_set_member_name(b, "irqs");
    json_builder_begin_array(b);
    for (guint k = 0; k < n->irqs->len; k++) {
        const VnNicIrq *irq = n->irqs->pdata[k];
        const VnIrqTarget *t =
            k < p->targets->len ? &g_array_index(p->targets, VnIrqTarget, k) : NULL;

        json_builder_begin_object(b);
        vn_json_add_int(b, "irq", irq->irq);
        vn_json_add_string(b, "name", irq->name);
        vn_json_add_int(b, "node", irq->node);
        vn_json_add_string(b, "now", irq->affinity);
        add_list(b, "planned", t ? t->cpus : NULL);
        vn_json_add_bool(b, "left", t && t->left);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void
add_queues(JsonBuilder *b, const gchar *name, const GPtrArray *queues, const GPtrArray *masks,
           guint n_cpus)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (guint i = 0; i < queues->len; i++) {
        const VnNicQueue *q = queues->pdata[i];
        g_autofree gchar *planned =
            i < masks->len ? vn_cpumask_format(masks->pdata[i], n_cpus) : NULL;

        json_builder_begin_object(b);
        vn_json_add_string(b, "queue", q->name);
        vn_json_add_string(b, "now", q->mask);
        vn_json_add_string(b, "planned", planned);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static void
add_explain(JsonBuilder *b, const VnIrqNicPlan *p)
{
    json_builder_set_member_name(b, "explain");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->rows->len; i++) {
        const VnIrqRow *r = &g_array_index(p->rows, VnIrqRow, i);

        json_builder_begin_object(b);
        vn_json_add_int(b, "cpu", r->cpu);
        vn_json_add_int(b, "core", r->core);
        vn_json_add_string(b, "state", vn_irq_cpu_state_to_string(r->state));
        vn_json_add_string(b, "vm", r->vm);
        json_builder_set_member_name(b, "irqs");
        json_builder_begin_array(b);
        for (guint k = 0; k < r->irqs->len; k++)
            json_builder_add_int_value(b, g_array_index(r->irqs, guint, k));
        json_builder_end_array(b);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

static gchar *
nodes_text(const VnBitmap *nodes)
{
    GString *s = g_string_new(NULL);

    VN_BITMAP_FOREACH (nodes, i)
        g_string_append_printf(s, "%s%d", s->len ? "," : "", i);
    return g_string_free(s, FALSE);
}

static void
add_nic(JsonBuilder *b, const VnNic *n, const VnIrqNic *in, const VnIrqNicPlan *p, guint n_cpus)
{
    g_autofree gchar *nodes = nodes_text(p->nodes);

    json_builder_begin_object(b);
    vn_json_add_string(b, "name", p->name);
    vn_json_add_string(b, "kind", vn_irq_nic_kind_to_string(p->kind));
    vn_json_add_string(b, "pci", n->pci_address);
    vn_json_add_string(b, "pf", n->pf_address);
    vn_json_add_int(b, "device_node", n->node);
    add_strings(b, "users", in->users);
    vn_json_add_string(b, "nodes", nodes);
    add_list(b, "cpus", p->cpus);
    add_irqs(b, n, p);
    add_queues(b, "rps", n->rx, p->rps, n_cpus);
    add_queues(b, "xps", n->tx, p->xps, n_cpus);
    add_strings(b, "reasons", p->reasons);
    add_explain(b, p);
    json_builder_end_object(b);
}

static void
add_irqbalance(JsonBuilder *b, const VnIrqbalance *ib)
{
    json_builder_set_member_name(b, "irqbalance");
    json_builder_begin_object(b);
    vn_json_add_string(b, "mode", vn_irqbalance_mode_to_string(ib->mode));
    vn_json_add_int(b, "pid", ib->pid);
    vn_json_add_string(b, "policyscript", ib->policyscript);
    vn_json_add_string(b, "banned_cpus", ib->banned_cpus);
    json_builder_end_object(b);
}

void
vn_irq_json_add(JsonBuilder *b, const VnIrqHost *h, const VnIrqPlan *p, const VnIrqbalance *ib,
                guint n_cpus)
{
    if (ib)
        add_irqbalance(b, ib);
    json_builder_set_member_name(b, "nics");
    json_builder_begin_array(b);
    for (guint i = 0; i < h->nics->len && i < p->nics->len; i++)
        add_nic(b, h->nics->pdata[i], h->inputs->pdata[i], p->nics->pdata[i], n_cpus);
    json_builder_end_array(b);
    add_strings(b, "problems", h->problems);
}

static void
add_nic_status(JsonBuilder *b, const VnIrqNicStatus *s, const VnIrqNic *in)
{
    g_autofree gchar *nodes = nodes_text(s->plan->nodes);

    json_builder_begin_object(b);
    vn_json_add_string(b, "name", s->plan->name);
    vn_json_add_string(b, "kind", vn_irq_nic_kind_to_string(s->plan->kind));
    vn_json_add_string(b, "pci", s->nic->pci_address);
    vn_json_add_int(b, "device_node", s->nic->node);
    add_strings(b, "users", in->users);
    vn_json_add_string(b, "nodes", nodes);
    add_list(b, "cpus", s->plan->cpus);
    vn_json_add_int(b, "rx_queues", s->nic->rx->len);
    vn_json_add_int(b, "tx_queues", s->nic->tx->len);
    vn_json_add_int(b, "irqs", s->drift.irqs);
    vn_json_add_int(b, "irqs_off_plan", s->drift.irqs_off);
    vn_json_add_int(b, "irqs_left", s->irqs_left);
    vn_json_add_int(b, "rps_off_plan", s->drift.rps_off);
    vn_json_add_int(b, "xps_off_plan", s->drift.xps_off);
    vn_json_add_bool(b, "steered", s->steered);
    vn_json_add_string(b, "state", vn_irq_nic_state_to_string(s->state));
    json_builder_end_object(b);
}

void
vn_irq_json_add_status(JsonBuilder *b, const VnIrqView *v, const GArray *status)
{
    add_irqbalance(b, v->irqbalance);
    json_builder_set_member_name(b, "nics");
    json_builder_begin_array(b);
    for (guint i = 0; i < status->len; i++)
        add_nic_status(b, &g_array_index(status, VnIrqNicStatus, i), v->host->inputs->pdata[i]);
    json_builder_end_array(b);
}
