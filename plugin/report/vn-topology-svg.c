/* vn-topology-svg.c: the host as an SVG picture (contract: the header).
 *
 * Written with GString and g_markup_printf_escaped(): the document is
 * small and flat, and every piece of text that comes from outside (VM
 * names, the topology's source) goes through the escaper.
 */
#include "vn-topology-svg.h"

#include "vn-cpulist.h"

#include <string.h>

#define MARGIN 20
#define GAP 16
#define HEADER 44
#define VM_ROW 38
#define MATRIX_CELL 30
#define MAX_COLUMNS 4
#define NIC_LOOSE_W 300

typedef struct {
    guint w, h; /* box size */
    guint x, y; /* top-left */
} Box;

static const gchar *
locality_colour(gdouble locality)
{
    if (locality < 0)
        return "#c8c8c8";
    if (locality >= 0.9)
        return "#9fd89f";
    if (locality >= 0.7)
        return "#f3d17a";
    return "#ef8f8f";
}

/* The NICs of `nics` (of VnIrqNicStatus, may be NULL) whose device
 * sits on node `node` (-1: on none). */
static guint
nic_rows(const GArray *nics, gint node)
{
    guint rows = 0;

    for (guint i = 0; nics && i < nics->len; i++)
        rows += g_array_index(nics, VnIrqNicStatus, i).nic->node == node;
    return rows;
}

static guint
vm_rows(const VnStatus *s, guint node_os_id)
{
    guint rows = 0;

    for (guint v = 0; s && v < s->vms->len; v++) {
        const VnStatusVm *vm = g_ptr_array_index(s->vms, v);
        for (guint c = 0; c < vm->record->cells->len; c++)
            rows += g_array_index(vm->record->cells, VnLedgerCell, c).node_os_id == node_os_id;
    }
    return rows;
}

/* Box sizes: width from CPUs, height from memory and the VM and NIC rows
 * inside; NICs on no node go in a row below the nodes. */
static Box *
layout(const VnTopology *t, const VnStatus *s, const GArray *nics, guint *ret_w, guint *ret_h)
{
    Box *b = g_new0(Box, MAX(t->n_nodes, 1));
    guint max_cpus = 1, cols = MIN(MAX(t->n_nodes, 1), MAX_COLUMNS), x = MARGIN, y = MARGIN + 30;
    guint64 max_mem = 1;
    guint row_h = 0, width = 0;

    for (guint i = 0; i < t->n_nodes; i++) {
        max_cpus = MAX(max_cpus, vn_topology_node_ncpus(t, i));
        max_mem = MAX(max_mem, t->nodes[i].mem_total_kib);
    }
    for (guint i = 0; i < t->n_nodes; i++) {
        guint mem_h = (guint)(40 + 100.0 * t->nodes[i].mem_total_kib / max_mem);
        b[i].w = 200 + 100 * vn_topology_node_ncpus(t, i) / max_cpus;
        guint rows = vm_rows(s, t->nodes[i].os_id) + nic_rows(nics, (gint)t->nodes[i].os_id);
        b[i].h = HEADER + 20 + MAX(mem_h, rows * VM_ROW + 10);
        if (i % cols == 0 && i) {
            y += row_h + GAP;
            x = MARGIN;
            row_h = 0;
        }
        b[i].x = x;
        b[i].y = y;
        x += b[i].w + GAP;
        width = MAX(width, x);
        row_h = MAX(row_h, b[i].h);
    }
    *ret_w = MAX(width, nic_rows(nics, -1) ? MARGIN + NIC_LOOSE_W + GAP : 0);
    *ret_h = y + row_h + (nic_rows(nics, -1) ? GAP + 20 + nic_rows(nics, -1) * VM_ROW : 0);
    return b;
}

static const gchar *
nic_colour(VnIrqNicState state)
{
    switch (state) {
    case VN_IRQ_NIC_IN_PLACE:
        return "#a9cdee";
    case VN_IRQ_NIC_OFF_PLAN:
        return "#f3d17a";
    default:
        return "#e4e4e4";
    }
}

/* One NIC as a row at (x, y), `w` wide: its name and PCI function, then
 * its queues, its interrupts -> the CPUs the plan gives them, and how
 * they stand against that plan. */
static void
draw_nic(GString *svg, const VnIrqNicStatus *s, guint x, guint y, guint w)
{
    g_autofree gchar *cpus = s->plan->cpus ? vn_cpulist_format(s->plan->cpus) : NULL;
    g_autofree gchar *where =
        cpus ? g_strdup_printf("\xe2\x86\x92 %s", cpus) : g_strdup("left as they are");
    /* a VF's name is its PCI address already */
    g_autofree gchar *title =
        strstr(s->plan->name, s->nic->pci_address)
            ? g_strdup(s->plan->name)
            : g_strdup_printf("%s \xc2\xb7 %s", s->plan->name, s->nic->pci_address);
    g_autofree gchar *row = g_markup_printf_escaped(
        "<g class=\"nic\"><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"3\" "
        "fill=\"%s\" stroke=\"#35506b\" stroke-dasharray=\"4 2\"/>"
        "<text x=\"%u\" y=\"%u\" font-size=\"11\" font-weight=\"bold\">NIC %s</text>"
        "<text x=\"%u\" y=\"%u\" font-size=\"10\">%u/%u queues \xc2\xb7 %u irqs %s \xc2\xb7 "
        "%s%s</text></g>\n",
        x, y, w, VM_ROW - 6, nic_colour(s->state), x + 6, y + 13, title, x + 6, y + 27,
        s->nic->rx->len, s->nic->tx->len, s->drift.irqs, where,
        vn_irq_nic_state_to_string(s->state), s->steered ? ", steered" : "");

    g_string_append(svg, row);
}

/* The NICs on no node, in a row below the nodes at `y`. */
static void
draw_loose_nics(GString *svg, const GArray *nics, guint y)
{
    guint row = 0;

    if (!nic_rows(nics, -1))
        return;
    g_string_append_printf(svg,
                           "<text x=\"%u\" y=\"%u\" font-weight=\"bold\">NICs on no NUMA "
                           "node</text>\n",
                           MARGIN, y + 14);
    for (guint i = 0; i < nics->len; i++) {
        const VnIrqNicStatus *s = &g_array_index(nics, VnIrqNicStatus, i);
        if (s->nic->node == -1)
            draw_nic(svg, s, MARGIN, y + 20 + row++ * VM_ROW, NIC_LOOSE_W);
    }
}

static void
draw_node(GString *svg, const VnTopology *t, const VnStatus *s, const GArray *nics, guint i,
          const Box *b)
{
    const VnNode *n = &t->nodes[i];
    const VnStatusNode *sn = s ? &g_array_index(s->nodes, VnStatusNode, i) : NULL;
    g_autofree gchar *cpus = vn_cpulist_format(n->cpus);
    gdouble fill = sn && sn->mem_usable_kib
                       ? MIN(1.0, (gdouble)sn->committed_memory_kib / sn->mem_usable_kib)
                       : 0;
    guint row = 0;

    g_string_append_printf(
        svg,
        "<g class=\"node\"><rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"6\" "
        "fill=\"#f4f7fb\" stroke=\"#35506b\" stroke-width=\"1.5\"/>\n",
        b->x, b->y, b->w, b->h);
    g_string_append_printf(svg, "<text x=\"%u\" y=\"%u\" font-weight=\"bold\">node %u</text>\n",
                           b->x + 8, b->y + 18, n->os_id);
    {
        g_autofree gchar *line = g_markup_printf_escaped(
            "<text x=\"%u\" y=\"%u\" font-size=\"11\">%u CPUs (%s) &#183; %.1f GiB%s%s</text>\n",
            b->x + 8, b->y + 34, vn_topology_node_ncpus(t, i), *cpus ? cpus : "none",
            n->mem_total_kib / 1048576.0, n->subtype ? " " : "", n->subtype ? n->subtype : "");
        g_string_append(svg, line);
    }
    /* committed memory bar */
    g_string_append_printf(
        svg,
        "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"8\" fill=\"#dde3ea\"/>"
        "<rect x=\"%u\" y=\"%u\" width=\"%.0f\" height=\"8\" fill=\"#5b84b1\"/>\n",
        b->x + 8, b->y + HEADER, b->w - 16, b->x + 8, b->y + HEADER, (b->w - 16) * fill);
    g_string_append_printf(svg,
                           "<text x=\"%u\" y=\"%u\" font-size=\"10\" fill=\"#35506b\">%.0f%% "
                           "memory committed</text>\n",
                           b->x + 8, b->y + HEADER + 20, fill * 100.0);
    for (guint v = 0; s && v < s->vms->len; v++) {
        const VnStatusVm *vm = g_ptr_array_index(s->vms, v);
        for (guint c = 0; c < vm->record->cells->len; c++) {
            const VnLedgerCell *cell = &g_array_index(vm->record->cells, VnLedgerCell, c);
            g_autofree gchar *label = NULL;
            g_autofree gchar *name = NULL;
            g_autofree gchar *local = vm->locality < 0
                                          ? g_strdup("not measured")
                                          : g_strdup_printf("local %.0f%%", vm->locality * 100.0);
            guint y = b->y + HEADER + 28 + row * VM_ROW;
            if (cell->node_os_id != n->os_id)
                continue;
            /* long names are cut so the label stays inside the box */
            if (g_utf8_strlen(vm->record->name, -1) > 22) {
                g_autofree gchar *head = g_utf8_substring(vm->record->name, 0, 21);
                name = g_strconcat(head, "\xe2\x80\xa6", NULL); /* an ellipsis */
            } else {
                name = g_strdup(vm->record->name);
            }
            label = g_markup_printf_escaped(
                "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" rx=\"3\" fill=\"%s\" "
                "stroke=\"#555\"/>"
                "<text x=\"%u\" y=\"%u\" font-size=\"11\" font-weight=\"bold\">%s, cell %u</text>"
                "<text x=\"%u\" y=\"%u\" font-size=\"10\">%u vCPUs \xc2\xb7 %.1f GiB \xc2\xb7 "
                "%s</text>\n",
                b->x + 8, y, b->w - 16, VM_ROW - 6, locality_colour(vm->locality), b->x + 14,
                y + 13, name, cell->id, b->x + 14, y + 27, cell->vcpus,
                cell->memory_kib / 1048576.0, local);
            g_string_append(svg, label);
            row++;
        }
    }
    for (guint k = 0; nics && k < nics->len; k++) {
        const VnIrqNicStatus *ns = &g_array_index(nics, VnIrqNicStatus, k);
        if (ns->nic->node == (gint)n->os_id)
            draw_nic(svg, ns, b->x + 8, b->y + HEADER + 28 + row++ * VM_ROW, b->w - 16);
    }
    g_string_append(svg, "</g>\n");
}

/* Distance matrix at (x, y): header row and column of node numbers. */
static void
draw_matrix(GString *svg, const VnTopology *t, guint x, guint y)
{
    guint lo = G_MAXUINT, hi = 0;

    for (guint a = 0; a < t->n_nodes; a++)
        for (guint b = 0; b < t->n_nodes; b++)
            if (a != b) {
                lo = MIN(lo, vn_topology_distance(t, a, b));
                hi = MAX(hi, vn_topology_distance(t, a, b));
            }
    g_string_append_printf(svg,
                           "<g class=\"distances\"><text x=\"%u\" y=\"%u\" font-weight=\"bold\">"
                           "node distances%s</text>\n",
                           x, y - 8, t->distances_assumed ? " (assumed)" : "");
    for (guint a = 0; a < t->n_nodes; a++) {
        g_string_append_printf(
            svg,
            "<text x=\"%u\" y=\"%u\" font-size=\"11\" text-anchor=\"middle\">%u</text>"
            "<text x=\"%u\" y=\"%u\" font-size=\"11\" text-anchor=\"end\">%u</text>\n",
            x + (a + 1) * MATRIX_CELL + MATRIX_CELL / 2, y + 18, t->nodes[a].os_id,
            x + MATRIX_CELL - 6, y + (a + 2) * MATRIX_CELL - 10, t->nodes[a].os_id);
        for (guint b = 0; b < t->n_nodes; b++) {
            guint d = vn_topology_distance(t, a, b);
            gdouble shade = a == b || hi == lo ? 0.0 : 0.25 + 0.75 * (d - lo) / (gdouble)(hi - lo);
            guint light = (guint)(245 - 120 * shade);
            g_string_append_printf(
                svg,
                "<rect x=\"%u\" y=\"%u\" width=\"%u\" height=\"%u\" "
                "fill=\"rgb(%u,%u,255)\" stroke=\"#fff\"/>"
                "<text x=\"%u\" y=\"%u\" font-size=\"11\" text-anchor=\"middle\">%u</text>\n",
                x + (b + 1) * MATRIX_CELL, y + (a + 1) * MATRIX_CELL, MATRIX_CELL, MATRIX_CELL,
                light, light, x + (b + 1) * MATRIX_CELL + MATRIX_CELL / 2,
                y + (a + 2) * MATRIX_CELL - 10, d);
        }
    }
    g_string_append(svg, "</g>\n");
}

/* The VM colours, and the NICs' when there are some. */
static void
draw_legend(GString *svg, guint x, guint y, gboolean with_nics)
{
    const struct {
        const gchar *colour, *text;
    } items[] = {
        { "#9fd89f", "memory >= 90 % local" },
        { "#f3d17a", "70-90 % local" },
        { "#ef8f8f", "below 70 % local" },
        { "#c8c8c8", "not measured" },
        { "#a9cdee", "NIC (dashed): irqs and queues as planned" },
        { "#f3d17a", "NIC: off the plan" },
        { "#e4e4e4", "NIC: unplanned, left as it is" },
    };

    for (guint i = 0; i < (with_nics ? G_N_ELEMENTS(items) : 4); i++)
        g_string_append_printf(
            svg,
            "<rect x=\"%u\" y=\"%u\" width=\"14\" height=\"14\" fill=\"%s\" stroke=\"#555\"/>"
            "<text x=\"%u\" y=\"%u\" font-size=\"11\">%s</text>\n",
            x, y + i * 20, items[i].colour, x + 20, y + i * 20 + 11, items[i].text);
}

gchar *
vn_topology_svg(const VnTopology *t, const VnStatus *status, const GArray *nics)
{
    g_autoptr(GString) svg = g_string_new(NULL);
    guint nodes_w, nodes_h, matrix_x, matrix_h, width, height;
    gboolean with_nics;
    g_autofree Box *boxes = NULL;
    g_autofree gchar *title = NULL;

    g_return_val_if_fail(t && t->finished, NULL);
    g_return_val_if_fail(!status || status->nodes->len == t->n_nodes, NULL);
    with_nics = nics && nics->len;
    boxes = layout(t, status, nics, &nodes_w, &nodes_h);
    matrix_x = nodes_w + MARGIN;
    matrix_h = (t->n_nodes + 1) * MATRIX_CELL + 30;
    /* the matrix, or its title and the legend when the matrix is narrow */
    width = matrix_x + MAX((t->n_nodes + 1) * MATRIX_CELL, 300) + MARGIN;
    height = MAX(nodes_h, MARGIN + 30 + matrix_h + (with_nics ? 150 : 90)) + MARGIN;
    g_string_append_printf(
        svg,
        "<?xml version=\"1.0\" encoding=\"UTF-8\"?>\n"
        "<svg xmlns=\"http://www.w3.org/2000/svg\" version=\"1.1\" width=\"%u\" height=\"%u\" "
        "viewBox=\"0 0 %u %u\" font-family=\"sans-serif\" font-size=\"13\">\n"
        "<rect width=\"100%%\" height=\"100%%\" fill=\"#ffffff\"/>\n",
        width, height, width, height);
    title = g_markup_printf_escaped(
        "<title>vnuma: %s</title>\n<text x=\"%u\" y=\"%u\" font-size=\"15\" "
        "font-weight=\"bold\">%u NUMA nodes: %s</text>\n",
        t->source ? t->source : "host", MARGIN, MARGIN + 8, t->n_nodes,
        t->source ? t->source : "host");
    g_string_append(svg, title);
    for (guint i = 0; i < t->n_nodes; i++)
        draw_node(svg, t, status, nics, i, &boxes[i]);
    draw_loose_nics(svg, nics, nodes_h - nic_rows(nics, -1) * VM_ROW - 20);
    draw_matrix(svg, t, matrix_x, MARGIN + 30 + 20);
    draw_legend(svg, matrix_x, MARGIN + 30 + matrix_h + 10, with_nics);
    g_string_append(svg, "</svg>\n");
    return g_string_free(g_steal_pointer(&svg), FALSE);
}
