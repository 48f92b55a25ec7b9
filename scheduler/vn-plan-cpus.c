/* vn-plan-cpus.c: from a node set to cells, vCPU pins, emulator and
 * IOThread pins.
 *
 * Shared VMs: each vCPU may run on any usable CPU of its cell's node (host
 * reserved and dedicated CPUs excluded); the kernel balances inside the
 * node.  Dedicated VMs: one host CPU per vCPU, chosen per the SMT policy:
 *   prefer  - whole free cores first, siblings become guest threads;
 *   isolate - one thread of each whole free core, its siblings held idle;
 *   require - whole free cores only.
 * With [placement] cache_domains on, both take their CPUs inside the
 * node's cache domains (vn-plan-domains.c).
 */
#include "vn-plan-private.h"

/* `free_cpus` of `node` grouped by core, in CPU order: returns the chosen
 * CPUs for `want` vCPUs (and the held-idle siblings for isolate). */
static gboolean
pick_dedicated(const VnPlanCtx *c, guint node, guint want, const VnBitmap *free_cpus,
               VnBitmap *taken, GArray *ret_cpus, VnBitmap *isolated)
{
    const VnTopology *t = c->t;
    gboolean whole_first = c->req->smt != VN_SMT_ISOLATE;

    /* pass 0: whole free cores; pass 1 (prefer only): any free thread */
    for (guint pass = 0; pass < 2 && ret_cpus->len < want; pass++) {
        if (pass == 1 && c->req->smt != VN_SMT_PREFER)
            break;
        VN_BITMAP_FOREACH (free_cpus, cpu) {
            const VnCpu *vc = vn_topology_cpu(t, (guint)cpu);
            gboolean whole = TRUE;
            guint n_sib = 0;
            guint sib[64];

            if (ret_cpus->len >= want)
                break;
            if (vn_bitmap_test(taken, (guint)cpu))
                continue;
            /* siblings of this core on this node, in CPU order */
            VN_BITMAP_FOREACH (t->nodes[node].cpus, other) {
                if (vn_topology_cpu(t, (guint)other)->core != vc->core)
                    continue;
                if (!vn_bitmap_test(free_cpus, (guint)other) || vn_bitmap_test(taken, (guint)other))
                    whole = FALSE;
                else if (n_sib < G_N_ELEMENTS(sib))
                    sib[n_sib++] = (guint)other;
            }
            if (pass == 0 && !whole)
                continue;
            if (whole_first) {
                if (c->req->smt == VN_SMT_REQUIRE && want - ret_cpus->len < n_sib)
                    continue; /* require: never a part of a core */
                for (guint s = 0; s < n_sib && ret_cpus->len < want; s++) {
                    g_array_append_val(ret_cpus, sib[s]);
                    vn_bitmap_set(taken, sib[s]);
                }
            } else {
                g_array_append_val(ret_cpus, sib[0]);
                for (guint s = 0; s < n_sib; s++) {
                    vn_bitmap_set(taken, sib[s]);
                    if (s > 0)
                        vn_bitmap_set(isolated, sib[s]);
                }
            }
        }
    }
    return ret_cpus->len == want;
}

/* CPUs for the emulator or an IOThread on `node`, into `b` (cleared
 * first): shared VMs use their own CPUs of the node (its usable CPUs, or
 * their cache domains' ones); dedicated VMs use the node's CPUs nobody
 * owns, else the host-reserved CPUs of the node, else the VM's own. */
static void
fill_helper_cpus(const VnPlanCtx *c, guint node, const VnBitmap *taken, const VnBitmap *own,
                 VnBitmap *b, const gchar **ret_note)
{
    vn_bitmap_clear_all(b);
    vn_bitmap_or(b, vn_plan_free_cpus(c, node));
    *ret_note = NULL;
    if (!c->req->dedicated) {
        if (vn_bitmap_intersects(b, own))
            vn_bitmap_and(b, own);
        return;
    }
    vn_bitmap_and_not(b, taken);
    if (!vn_bitmap_is_empty(b))
        return;
    vn_bitmap_or(b, c->t->nodes[node].cpus);
    vn_bitmap_and(b, c->policy->reserved_cpus);
    if (c->req->allowed_cpus)
        vn_bitmap_and(b, c->req->allowed_cpus);
    if (!vn_bitmap_is_empty(b)) {
        *ret_note = "host-reserved CPUs of the node";
        return;
    }
    vn_bitmap_or(b, own);
    *ret_note = "the VM's own CPUs (no other CPU left on the node)";
}

/* fill_helper_cpus() into a new bitmap. */
static VnBitmap *
helper_cpus(const VnPlanCtx *c, guint node, const VnBitmap *taken, const VnBitmap *own,
            const gchar **ret_note)
{
    VnBitmap *b = vn_bitmap_new(c->t->n_cpu_ids);

    fill_helper_cpus(c, node, taken, own, b, ret_note);
    return b;
}

static guint
nearest_set_node(const VnPlanCtx *c, const VnNodeSet *set, gint dev_node)
{
    guint best = 0;

    while (best < set->k && c->cap[set->nodes[best]].memory_only)
        best++;
    if (dev_node < 0)
        return best;
    for (guint i = best + 1; i < set->k; i++)
        if (!c->cap[set->nodes[i]].memory_only &&
            vn_topology_distance(c->t, (guint)dev_node, set->nodes[i]) <
                vn_topology_distance(c->t, (guint)dev_node, set->nodes[best]))
            best = i;
    return best;
}

/* The set member nearest to all the VM's devices (sum of distances). */
static guint
emulator_member(const VnPlanCtx *c, const VnNodeSet *set)
{
    guint best = 0, best_sum = G_MAXUINT;

    for (guint i = 0; i < set->k; i++) {
        guint sum = 0;
        if (c->cap[set->nodes[i]].memory_only)
            continue; /* no CPU to run the emulator on */
        for (guint d = 0; d < c->n_dev; d++)
            if (c->dev_node[d] >= 0)
                sum += vn_topology_distance(c->t, (guint)c->dev_node[d], set->nodes[i]);
        if (sum < best_sum) {
            best_sum = sum;
            best = i;
        }
    }
    return best;
}

/* The pin of the v-th of a cell's `nv` shared vCPUs: its run's domain of
 * the member's cache domains when they split evenly (`parts`), else all
 * the member's CPUs; held, not copied (no one changes them any more). */
static VnBitmap *
shared_pin(VnBitmap *shared, const GPtrArray *parts, guint nv, guint v)
{
    if (parts && nv % parts->len == 0)
        return vn_bitmap_ref(g_ptr_array_index(parts, v / (nv / parts->len)));
    return vn_bitmap_ref(shared);
}

/* The pins of `cell`'s vCPUs, appended to the placement's, and the cell's
 * CPUs (their union): dedicated, the next of the CPUs picked on the node
 * (`*used` of them taken so far); shared, shared_pin()'s, each distinct
 * one ORed once. */
static void
add_cell_pins(const VnPlanCtx *c, VnCell *cell, GArray *cpus_on_node, guint *used, VnBitmap *shared,
              const GPtrArray *parts, VnPlacement *p)
{
    VnBitmap *last = NULL;

    cell->cpus = vn_bitmap_new(c->t->n_cpu_ids);
    for (guint v = 0; v < cell->n_vcpus; v++) {
        VnBitmap *pin;
        if (c->req->dedicated) {
            pin = vn_bitmap_new(c->t->n_cpu_ids);
            vn_bitmap_set(pin, g_array_index(cpus_on_node, guint, (*used)++));
        } else {
            pin = shared_pin(shared, parts, cell->n_vcpus, v);
        }
        if (pin != last)
            vn_bitmap_or(cell->cpus, pin);
        last = pin;
        g_ptr_array_add(p->vcpu_pins, pin);
    }
}

static void
add_cells(const VnPlanCtx *c, const VnNodeSet *set, guint member, GArray *cpus_on_node,
          VnBitmap *shared, const GPtrArray *parts, guint *vcpu_next, VnPlacement *p)
{
    guint node = set->nodes[member];
    guint v_left = set->vcpus[member], cells = set->cells[member], used = 0;
    guint64 m_left = set->mem_kib[member];

    for (guint ci = 0; ci < cells; ci++) {
        VnCell cell = { 0 };
        guint nv = v_left / (cells - ci);
        guint64 mu = c->mem_unit_kib, nm = (m_left / mu) / (cells - ci) * mu;

        cell.id = p->cells->len;
        cell.node = node;
        cell.node_os_id = c->t->nodes[node].os_id;
        cell.vcpu_first = *vcpu_next;
        cell.n_vcpus = nv;
        cell.memory_kib = nm;
        add_cell_pins(c, &cell, cpus_on_node, &used, shared, parts, p);
        *vcpu_next += nv;
        v_left -= nv;
        m_left -= nm;
        g_array_append_val(p->cells, cell);
    }
}

/* One guest cell of its own size on member `member`, its vCPUs taking the
 * next of the CPUs picked on that node (dedicated) or the node's CPUs. */
static void
add_sized_cell(const VnPlanCtx *c, const VnNodeSet *set, guint cell_index, GArray *cpus_on_node,
               VnBitmap *shared, const GPtrArray *parts, guint *used, guint *vcpu_next,
               VnPlacement *p)
{
    guint member = set->cell_member[cell_index], node = set->nodes[member];
    VnCell cell = { .id = cell_index,
                    .node = node,
                    .node_os_id = c->t->nodes[node].os_id,
                    .vcpu_first = *vcpu_next,
                    .n_vcpus = c->sizes[cell_index].vcpus,
                    .memory_kib = c->sizes[cell_index].memory_kib };

    add_cell_pins(c, &cell, cpus_on_node, used, shared, parts, p);
    *vcpu_next += cell.n_vcpus;
    g_array_append_val(p->cells, cell);
}

/* With cache domains on, dedicated CPUs from the fewest domains first
 * (on copies, kept only when that succeeds); FALSE when it did not. */
static gboolean
pick_dedicated_in_domains(const VnPlanCtx *c, guint node, guint want, VnBitmap *taken, GArray *cpus,
                          VnPlacement *p, guint *ret_domains)
{
    g_autoptr(GPtrArray) in = vn_plan_domain_dedicated_cpus(c, node, want, taken);
    g_autoptr(VnBitmap) taken2 = NULL, isolated2 = NULL;
    g_autoptr(GArray) got = NULL;

    *ret_domains = in ? in->len : 0;
    if (!in)
        return FALSE;
    taken2 = vn_bitmap_copy(taken);
    isolated2 = vn_bitmap_copy(p->isolated_cpus);
    got = g_array_new(FALSE, FALSE, sizeof(guint));
    /* one domain filled before the next */
    for (guint i = 0; i < in->len && got->len < want; i++)
        pick_dedicated(c, node, want, in->pdata[i], taken2, got, isolated2);
    if (got->len < want)
        return FALSE;
    vn_bitmap_or(taken, taken2);
    vn_bitmap_or(p->isolated_cpus, isolated2);
    g_array_append_vals(cpus, got->data, got->len);
    vn_plan_domain_reason_dedicated(c, node, cpus, p);
    return TRUE;
}

/* Dedicated: the CPUs of member i, one a vCPU, into `cpus`.  Shared: the
 * CPUs its vCPUs share, into *ret_shared, and with them split evenly
 * over cache domains each domain's, into *ret_parts. */
static gboolean
pick_member_cpus(const VnPlanCtx *c, const VnNodeSet *set, guint i, VnBitmap *taken, GArray *cpus,
                 VnBitmap **ret_shared, GPtrArray **ret_parts, VnPlacement *p, GError **error)
{
    guint node = set->nodes[i], domains = 0;

    *ret_parts = NULL;
    if (!c->req->dedicated) {
        *ret_shared = vn_plan_domain_cpus(c, node, set->vcpus[i], p, ret_parts, error);
        return *ret_shared != NULL;
    }
    *ret_shared = NULL;
    if (pick_dedicated_in_domains(c, node, set->vcpus[i], taken, cpus, p, &domains) &&
        (domains <= 1 || c->policy->cache_domains != VN_CACHE_DOMAINS_REQUIRE))
        return TRUE;
    if (c->policy->cache_domains == VN_CACHE_DOMAINS_REQUIRE && c->t->nodes[node].n_domains > 1) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT,
                    "node %u: no cache domain has %u free %s for the dedicated vCPUs "
                    "([placement] cache_domains = require)",
                    c->t->nodes[node].os_id, set->vcpus[i],
                    c->req->smt == VN_SMT_PREFER ? "CPUs" : "whole cores");
        return FALSE;
    }
    if (cpus->len == 0 && pick_dedicated(c, node, set->vcpus[i], vn_plan_free_cpus(c, node), taken,
                                         cpus, p->isolated_cpus))
        return TRUE;
    g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT,
                "node %u: not enough free %s for %u dedicated vCPUs",
                c->t->nodes[set->nodes[i]].os_id,
                c->req->smt == VN_SMT_PREFER ? "CPUs" : "whole cores", set->vcpus[i]);
    return FALSE;
}

static void
free_parts(gpointer parts)
{
    if (parts)
        g_ptr_array_unref(parts);
}

/* Guest cells of their own sizes, in the user's order (cell i stays cell
 * i, whatever node holds it); CPUs are picked node by node first, as for
 * even cells, so a node's cells share its cores the same way. */
static gboolean
add_all_sized_cells(const VnPlanCtx *c, const VnNodeSet *set, VnBitmap *taken, guint *first_cell,
                    VnPlacement *p, GError **error)
{
    g_autoptr(GPtrArray) cpus = g_ptr_array_new_with_free_func((GDestroyNotify)g_array_unref);
    g_autoptr(GPtrArray) shared = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    g_autoptr(GPtrArray) parts = g_ptr_array_new_with_free_func(free_parts);
    g_autofree guint *used = g_new0(guint, set->k);
    guint vcpu_next = 0;

    for (guint i = 0; i < set->k; i++) {
        VnBitmap *mine = NULL;
        GPtrArray *split = NULL;
        g_ptr_array_add(cpus, g_array_new(FALSE, FALSE, sizeof(guint)));
        if (!pick_member_cpus(c, set, i, taken, cpus->pdata[i], &mine, &split, p, error))
            return FALSE;
        g_ptr_array_add(shared, mine);
        g_ptr_array_add(parts, split);
        first_cell[i] = G_MAXUINT;
    }
    for (guint ci = 0; ci < c->fixed_cells; ci++) {
        guint member = set->cell_member[ci];
        first_cell[member] = MIN(first_cell[member], ci);
        add_sized_cell(c, set, ci, cpus->pdata[member], shared->pdata[member], parts->pdata[member],
                       &used[member], &vcpu_next, p);
    }
    return TRUE;
}

gboolean
vn_plan_assign_cpus(const VnPlanCtx *c, const VnNodeSet *set, VnPlacement *p, GError **error)
{
    g_autoptr(VnBitmap) taken = vn_bitmap_new(c->t->n_cpu_ids);
    g_autoptr(VnBitmap) own = vn_bitmap_new(c->t->n_cpu_ids);
    g_autofree guint *first_cell = g_new0(guint, set->k);
    g_autoptr(GArray) cpus = g_array_new(FALSE, FALSE, sizeof(guint));
    guint vcpu_next = 0, emu, cpu_members = 0;
    const gchar *note;

    p->isolated_cpus = vn_bitmap_new(c->t->n_cpu_ids);
    if (c->sizes && !add_all_sized_cells(c, set, taken, first_cell, p, error))
        return FALSE;
    for (guint i = 0; !c->sizes && i < set->k; i++) {
        g_autoptr(VnBitmap) shared = NULL;
        g_autoptr(GPtrArray) parts = NULL;
        g_array_set_size(cpus, 0); /* each member's own (dedicated only) */
        if (!pick_member_cpus(c, set, i, taken, cpus, &shared, &parts, p, error))
            return FALSE;
        first_cell[i] = p->cells->len;
        add_cells(c, set, i, cpus, shared, parts, &vcpu_next, p);
    }
    for (guint i = 0; i < p->cells->len; i++)
        vn_bitmap_or(own, g_array_index(p->cells, VnCell, i).cpus);

    emu = emulator_member(c, set);
    p->emulator_cpus = helper_cpus(c, set->nodes[emu], taken, own, &note);
    if (note)
        vn_placement_add_reason(p, "emulator thread on node %u uses %s",
                                c->t->nodes[set->nodes[emu]].os_id, note);
    /* A VM over several nodes: QEMU preallocates (and libvirt binds) each
     * cell's memory from helper threads pinned to that cell's node, inside
     * the emulator's CPU set — pinned to one node, a split VM with
     * preallocated memory (hugepages) does not start (seen on the emulated
     * NUMA host with libvirt 9.0 / QEMU 7.2: "Setting CPU affinity failed").
     * So the emulator may run on the helper CPUs of every cell's node. */
    for (guint i = 0; i < set->k; i++)
        cpu_members += !c->cap[set->nodes[i]].memory_only;
    if (cpu_members > 1) {
        g_autoptr(VnBitmap) more = vn_bitmap_new(c->t->n_cpu_ids);
        for (guint i = 0; i < set->k; i++) {
            if (i == emu || c->cap[set->nodes[i]].memory_only)
                continue;
            fill_helper_cpus(c, set->nodes[i], taken, own, more, &note);
            vn_bitmap_or(p->emulator_cpus, more);
        }
        vn_placement_add_reason(p,
                                "emulator thread on the CPUs of all the VM's nodes "
                                "(QEMU fills each cell's memory from threads on that cell's node)");
    }

    for (guint id = 1; id <= c->req->iothreads; id++) {
        VnIOThreadPin io = { .id = id };
        guint member = (id - 1) % set->k;
        if (c->cap[set->nodes[member]].memory_only)
            member = nearest_set_node(c, set, -1);
        for (guint d = 0; d < c->n_dev; d++)
            if (g_array_index(c->req->devices, VnDevice, d).iothread == (gint)id)
                member = nearest_set_node(c, set, c->dev_node[d]);
        io.cell = first_cell[member];
        io.cpus = helper_cpus(c, set->nodes[member], taken, own, &note);
        g_array_append_val(p->iothreads, io);
    }
    return TRUE;
}
