/* vn-rebalance-consolidate.c: split VMs put back on fewer nodes.
 * Contract: vn-rebalance-consolidate.h. */
#include "vn-rebalance-consolidate.h"
#include "vn-load-release.h"
#include "vn-plan.h"

static void
consolidation_clear(gpointer data)
{
    VnConsolidation *c = data;

    g_clear_pointer(&c->placement, vn_placement_free);
}

/* A split VM vnuma may move (the header's list). */
static gboolean
movable(const VnRequest *r, const VnPlacement *p)
{
    return p && !r->dedicated && !r->hugepage_kib && !r->allowed_cpus &&
           vn_placement_has_guest_cells(p) && p->tiers == VN_TIERS_OFF &&
           vn_placement_memory_nodes(p) > 1;
}

/* `req` with the guest cells `p` gave it, cell by cell. */
static VnRequest *
cells_request(const VnRequest *req, const VnPlacement *p)
{
    VnRequest *r = vn_request_new();

    r->vcpus = req->vcpus;
    r->memory_kib = req->memory_kib;
    r->priority = req->priority;
    r->smt = req->smt;
    r->iothreads = req->iothreads;
    r->cells = p->cells->len;
    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        vn_request_add_cell_size(r, cell->n_vcpus, cell->memory_kib);
    }
    vn_request_forget_even_cell_sizes(r);
    return r;
}

/* Memory `from` holds on nodes beyond what `to` keeps there. */
static guint64
moved_kib(const VnTopology *t, const VnPlacement *from, const VnPlacement *to)
{
    g_autofree guint64 *held = g_new0(guint64, MAX(t->n_nodes, 1));
    guint64 moved = 0;

    for (guint c = 0; c < from->cells->len; c++) {
        const VnCell *cell = &g_array_index(from->cells, VnCell, c);
        held[cell->node] += cell->memory_kib;
    }
    for (guint c = 0; c < to->cells->len; c++) {
        const VnCell *cell = &g_array_index(to->cells, VnCell, c);
        held[cell->node] -= MIN(held[cell->node], cell->memory_kib);
    }
    for (guint i = 0; i < t->n_nodes; i++)
        moved += held[i];
    return moved;
}

/* Memory `p` holds outside its node with the most. */
static guint64
remote_kib(const VnTopology *t, const VnPlacement *p)
{
    g_autofree guint64 *held = g_new0(guint64, MAX(t->n_nodes, 1));
    guint64 total = 0, most = 0;

    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        held[cell->node] += cell->memory_kib;
        total += cell->memory_kib;
    }
    for (guint i = 0; i < t->n_nodes; i++)
        most = MAX(most, held[i]);
    return total - most;
}

typedef struct {
    guint vm;
    guint64 remote;
} Candidate;

static gint
remote_desc(gconstpointer pa, gconstpointer pb)
{
    const Candidate *a = pa, *b = pb;

    if (a->remote != b->remote)
        return a->remote < b->remote ? 1 : -1;
    return (a->vm > b->vm) - (a->vm < b->vm);
}

/* `t` as seen by `p`'s own plan: on nodes whose free memory was measured,
 * the memory `p` holds there counted free again.  A running VM's pages
 * are in the measured figure, and putting it on a node it already uses
 * needs room only for what moves in (the ledger's count, in the load,
 * releases it the same way).  A view: it shares everything with `t` but
 * `ret_nodes`, which the caller frees. */
static VnTopology
own_memory_free(const VnTopology *t, const VnPlacement *p, VnNode **ret_nodes)
{
    VnTopology view = *t;
    VnNode *nodes = g_memdup2(t->nodes, sizeof(VnNode) * t->n_nodes);

    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        VnNode *n = &nodes[cell->node];
        if (n->mem_free_kib != G_MAXUINT64)
            n->mem_free_kib = MIN(n->mem_free_kib + cell->memory_kib, n->mem_total_kib);
    }
    view.nodes = nodes;
    *ret_nodes = nodes;
    return view;
}

/* Its consolidation on `load` (committed there), or FALSE with `load`
 * unchanged. */
static gboolean
try_vm(const VnTopology *t, VnLoad *load, const VnPolicy *policy, const VnRequest *req,
       const VnPlacement *p, guint64 budget_kib, VnConsolidation *ret)
{
    g_autoptr(VnRequest) cells = cells_request(req, p);
    guint before = vn_placement_memory_nodes(p);
    g_autofree VnNode *nodes = NULL;
    const VnTopology view = own_memory_free(t, p, &nodes);
    VnPlacement *to;

    vn_load_release(load, t, policy, req, p);
    to = vn_plan(&view, load, policy, cells, NULL, NULL);
    /* fewer nodes never at the price of the VM's vCPUs sharing CPUs */
    if (!to || to->self_overcommitted || vn_placement_memory_nodes(to) >= before ||
        moved_kib(t, p, to) > budget_kib) {
        vn_placement_free(to);
        vn_load_commit(load, t, policy, req, p);
        return FALSE;
    }
    vn_load_commit(load, t, policy, req, to);
    ret->nodes_before = before;
    ret->nodes_after = vn_placement_memory_nodes(to);
    ret->moved_kib = moved_kib(t, p, to);
    ret->placement = to;
    return TRUE;
}

GArray *
vn_rebalance_consolidate(const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
                         GPtrArray *requests, GPtrArray *placements, guint max_vms,
                         guint64 max_memory_kib)
{
    GArray *out = g_array_new(FALSE, TRUE, sizeof(VnConsolidation));
    g_autoptr(GArray) cand = g_array_new(FALSE, FALSE, sizeof(Candidate));
    g_autoptr(VnLoad) work = NULL;
    guint64 spent = 0;

    g_return_val_if_fail(t && load && policy && requests && placements, out);
    g_return_val_if_fail(requests->len == placements->len, out);
    g_array_set_clear_func(out, consolidation_clear);
    for (guint i = 0; i < placements->len; i++) {
        const VnPlacement *p = g_ptr_array_index(placements, i);
        if (movable(g_ptr_array_index(requests, i), p)) {
            Candidate c = { i, remote_kib(t, p) };
            g_array_append_val(cand, c);
        }
    }
    if (!cand->len || !max_vms)
        return out;
    g_array_sort(cand, remote_desc);
    work = vn_load_copy(load);
    for (guint k = 0; k < cand->len && out->len < max_vms && spent < max_memory_kib; k++) {
        guint vm = g_array_index(cand, Candidate, k).vm;
        VnConsolidation c = { .vm = vm };
        if (try_vm(t, work, policy, g_ptr_array_index(requests, vm),
                   g_ptr_array_index(placements, vm), max_memory_kib - spent, &c)) {
            spent += c.moved_kib;
            g_array_append_val(out, c);
        }
    }
    return out;
}
