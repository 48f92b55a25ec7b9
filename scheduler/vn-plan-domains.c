/* vn-plan-domains.c: which cache domains of a node a VM's vCPUs run in
 * ([placement] cache_domains, VnCacheDomains in vn-load.h).
 *
 * A domain's load is what is left of it: its usable CPUs (host-reserved
 * and dedicated ones excluded); its capacity those CPUs x cpu_overcommit
 * for shared vCPUs, less the shared vCPUs already placed in it
 * (VnLoad.domain_vcpus, from the ledger's pins), one dedicated vCPU
 * each.
 * Cost: one pass over the node's domains per domain taken. */
#include "vn-plan-private.h"

typedef struct {
    guint domain;    /* index into t->domains */
    guint usable;    /* usable CPUs in it */
    gdouble room;    /* vCPUs it can still take (shared: capacity less placed) */
    gdouble vm_room; /* of this VM's: room, and no more than its CPUs take
                      * (room_for_vm()) */
} DomainFree;

/* Moves the roomiest of d[k..n-1] (the lowest index on a tie) to d[k]:
 * a selection sort stopped as soon as enough domains are taken, which is
 * mostly after one. */
static void
select_next(DomainFree *d, guint k, guint n)
{
    guint best = k;
    DomainFree tmp;

    for (guint i = k + 1; i < n; i++)
        if (d[i].room > d[best].room + 1e-9 ||
            (d[i].room > d[best].room - 1e-9 && d[i].domain < d[best].domain))
            best = i;
    tmp = d[k];
    d[k] = d[best];
    d[best] = tmp;
}

/* What `usable` CPUs take: x cpu_overcommit for shared vCPUs, one
 * dedicated vCPU each. */
static guint
capacity(const VnPlanCtx *c, guint usable)
{
    if (c->req->dedicated)
        return usable;
    return (guint)(usable * c->policy->cpu_overcommit + 1e-9);
}

/* Shared vCPUs already placed in domain `domain`. */
static gdouble
placed(const VnPlanCtx *c, guint domain)
{
    if (c->req->dedicated || domain >= c->load->n_domains)
        return 0;
    return c->load->domain_vcpus[domain];
}

/* What a domain of `usable` CPUs with `room` left takes of this VM: as a
 * node, no more of the VM's own vCPUs than its CPUs (times the plan's
 * vcpus_per_cpu: 1 unless no node set could give each vCPU a CPU). */
static gdouble
room_for_vm(const VnPlanCtx *c, guint usable, gdouble room)
{
    if (!c->req->dedicated && c->vcpus_per_cpu)
        room = MIN(room, (gdouble)usable * c->vcpus_per_cpu);
    return room;
}

/* Fills d with the node's domains and their CPUs in `avail`, and moves
 * to d[0..] the fewest, roomiest first, that take `need`: returns how
 * many (fewer when all of them do not; 0 when none has a usable CPU). */
static guint
choose(const VnPlanCtx *c, const VnNode *n, const VnBitmap *avail, guint need, DomainFree *d)
{
    guint take = 0;
    gdouble cap = 0;

    for (guint i = 0; i < n->n_domains; i++) {
        guint dom = n->first_domain + i;
        guint usable = vn_bitmap_count_and(c->t->domains[dom].cpus, avail);
        d[i] = (DomainFree){
            .domain = dom,
            .usable = usable,
            .room = capacity(c, usable) - placed(c, dom),
        };
        d[i].vm_room = room_for_vm(c, usable, d[i].room);
    }
    while (take < n->n_domains && cap + 1e-9 < need) {
        select_next(d, take, n->n_domains);
        if (d[take].usable == 0)
            break;
        cap += MAX(d[take].vm_room, 0);
        take++;
    }
    return take;
}

/* "0 and 1 (12 usable CPUs)", "0, 1 and 2 (...)": domains by index. */
static gchar *
domains_text(const DomainFree *chosen, guint n)
{
    g_autoptr(GString) s = g_string_new(NULL);
    guint usable = 0;

    for (guint i = 0; i < n; i++) {
        g_string_append_printf(s, "%s%u",
                               i == 0       ? ""
                               : i + 1 == n ? " and "
                                            : ", ",
                               chosen[i].domain);
        usable += chosen[i].usable;
    }
    g_string_append_printf(s, " (%u usable CPUs)", usable);
    return g_string_free(g_steal_pointer(&s), FALSE);
}

/* The member's one reason: the domains taken and, over several that
 * the vCPUs do not split `even`ly over, that they float over them. */
static void
add_reason(const VnPlanCtx *c, VnPlacement *p, const VnNode *n, guint vcpus, const DomainFree *d,
           guint take, gboolean even)
{
    const gchar *floats = even ? ""
                               : "; they do not split evenly over them: they float over the "
                                 "domains' CPUs and the guest sees one die";
    g_autofree gchar *text = NULL;

    /* one formatted string a member (a plan may have a dozen); a whole
     * count as an integer (formatting a double costs more than the rest) */
    if (take == 1) {
        gdouble already = placed(c, d[0].domain);
        if (already <= 0)
            vn_placement_add_reason(p,
                                    "node %u: %u vCPUs in cache domain %u (%u usable CPUs), the "
                                    "least loaded of the node's %u",
                                    n->os_id, vcpus, d[0].domain, d[0].usable, n->n_domains);
        else if (already < 1000 && already == (gdouble)(guint)already)
            vn_placement_add_reason(p,
                                    "node %u: %u vCPUs in cache domain %u (%u usable CPUs, %u "
                                    "shared vCPUs placed), the least loaded of the node's %u",
                                    n->os_id, vcpus, d[0].domain, d[0].usable, (guint)already,
                                    n->n_domains);
        else
            vn_placement_add_reason(p,
                                    "node %u: %u vCPUs in cache domain %u (%u usable CPUs, %.3g "
                                    "shared vCPUs placed), the least loaded of the node's %u",
                                    n->os_id, vcpus, d[0].domain, d[0].usable, already,
                                    n->n_domains);
        return;
    }
    if (take == 2) {
        vn_placement_add_reason(p,
                                "node %u: %u vCPUs over 2 whole cache domains %u and %u (%u usable "
                                "CPUs), the fewest that hold them (no one domain does)%s",
                                n->os_id, vcpus, d[0].domain, d[1].domain,
                                d[0].usable + d[1].usable, floats);
        return;
    }
    text = domains_text(d, take);
    vn_placement_add_reason(p,
                            "node %u: %u vCPUs over %u whole cache domains %s, the fewest "
                            "that hold them (no one domain does)%s",
                            n->os_id, vcpus, take, text, floats);
}

/* Whether `vcpus` split evenly over the `take` chosen domains, each
 * holding its share. */
static gboolean
splits_evenly(const VnPlanCtx *c, const DomainFree *d, guint take, guint vcpus)
{
    if (vcpus % take != 0)
        return FALSE;
    for (guint i = 0; i < take; i++)
        if (d[i].vm_room + 1e-9 < vcpus / take)
            return FALSE;
    return TRUE;
}

/* The chosen domains' CPUs in `free_cpus`, one bitmap each, in choice
 * order. */
static GPtrArray *
domain_parts(const VnPlanCtx *c, const DomainFree *d, guint take, const VnBitmap *free_cpus)
{
    GPtrArray *parts = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);

    for (guint i = 0; i < take; i++) {
        VnBitmap *cpus = vn_bitmap_copy(c->t->domains[d[i].domain].cpus);
        vn_bitmap_and(cpus, free_cpus);
        g_ptr_array_add(parts, cpus);
    }
    return parts;
}

VnBitmap *
vn_plan_domain_cpus(const VnPlanCtx *c, guint node, guint vcpus, VnPlacement *p,
                    GPtrArray **ret_parts, GError **error)
{
    const VnTopology *t = c->t;
    const VnNode *n = &t->nodes[node];
    const VnBitmap *free_cpus = vn_plan_free_cpus(c, node);
    DomainFree stack[64];
    g_autofree DomainFree *heap = NULL;
    DomainFree *d = stack;
    VnBitmap *cpus;
    guint take;
    gboolean even;

    *ret_parts = NULL;
    if (c->policy->cache_domains == VN_CACHE_DOMAINS_OFF || c->req->dedicated || n->n_domains < 2 ||
        vcpus == 0)
        return vn_bitmap_copy(free_cpus);
    if (n->n_domains > G_N_ELEMENTS(stack))
        d = heap = g_new(DomainFree, n->n_domains);
    take = choose(c, n, free_cpus, vcpus, d);
    if (take == 0)
        return vn_bitmap_copy(free_cpus); /* nothing usable: the node's own check refuses */
    if (take > 1 && c->policy->cache_domains == VN_CACHE_DOMAINS_REQUIRE) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT,
                    "node %u: no cache domain holds %u shared vCPUs (the largest takes %u; "
                    "[placement] cache_domains = require)",
                    n->os_id, vcpus, (guint)MAX(d[0].vm_room, 0));
        return NULL;
    }
    cpus = vn_bitmap_new(t->n_cpu_ids);
    for (guint i = 0; i < take; i++)
        vn_bitmap_or(cpus, t->domains[d[i].domain].cpus);
    vn_bitmap_and(cpus, free_cpus);
    even = take == 1 || splits_evenly(c, d, take, vcpus);
    add_reason(c, p, n, vcpus, d, take, even);
    if (take > 1 && even)
        *ret_parts = domain_parts(c, d, take, free_cpus);
    return cpus;
}

GPtrArray *
vn_plan_domain_dedicated_cpus(const VnPlanCtx *c, guint node, guint want, const VnBitmap *taken)
{
    const VnNode *n = &c->t->nodes[node];
    g_autoptr(VnBitmap) avail = NULL;
    g_autofree DomainFree *d = NULL;
    GPtrArray *ret;
    guint take;

    if (c->policy->cache_domains == VN_CACHE_DOMAINS_OFF || n->n_domains < 2 || want == 0)
        return NULL;
    avail = vn_bitmap_copy(vn_plan_free_cpus(c, node));
    vn_bitmap_and_not(avail, taken);
    d = g_new(DomainFree, n->n_domains);
    take = choose(c, n, avail, want, d);
    if (take == 0)
        return NULL;
    ret = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    for (guint i = 0; i < take; i++) {
        VnBitmap *cpus = vn_bitmap_copy(c->t->domains[d[i].domain].cpus);
        vn_bitmap_and(cpus, avail);
        g_ptr_array_add(ret, cpus);
    }
    return ret;
}

void
vn_plan_domain_reason_dedicated(const VnPlanCtx *c, guint node, const GArray *cpus, VnPlacement *p)
{
    const VnTopology *t = c->t;
    g_autoptr(GString) list = g_string_new(NULL);
    g_autoptr(VnBitmap) seen = vn_bitmap_new(MAX(t->n_domains, 1));
    guint n = 0;

    for (guint i = 0; i < cpus->len; i++) {
        gint dom = vn_topology_cpu(t, g_array_index(cpus, guint, i))->domain;
        if (dom < 0 || vn_bitmap_test(seen, (guint)dom))
            continue;
        vn_bitmap_set(seen, (guint)dom);
        g_string_append_printf(list, "%s%d", n++ ? ", " : "", dom);
    }
    vn_placement_add_reason(p,
                            "node %u: %u dedicated vCPUs from %u cache domain%s (%s), the fewest "
                            "with the most free CPUs",
                            t->nodes[node].os_id, cpus->len, n, n == 1 ? "" : "s", list->str);
}

/* The cache domain all CPUs of `pin` are in, or -1 (several, or none). */
static gint
pin_domain(const VnTopology *t, const VnBitmap *pin)
{
    gint first = vn_bitmap_next(pin, -1);
    const VnCpu *cpu = first < 0 ? NULL : vn_topology_cpu(t, (guint)first);

    if (!cpu || cpu->domain < 0 ||
        vn_bitmap_count_and(pin, t->domains[cpu->domain].cpus) != vn_bitmap_count(pin))
        return -1;
    return cpu->domain;
}

/* A cell's vCPUs, in order, as runs pinned inside one cache domain each:
 * how many runs when they are of equal length and each domain has one;
 * 1 when a pin spans domains (the vCPUs float) or all are in one; 0 when
 * they are in several domains but not like that. */
static guint
cell_dies(const VnTopology *t, const VnPlacement *p, const VnCell *cell)
{
    g_autoptr(VnBitmap) seen = NULL;
    guint runs = 0, len = 0, first_len = 0;
    gint prev = -1;

    /* shared vCPUs not split by domain all have their cell's pin (those
     * split have other first and last ones): the common case, at once */
    if (!p->dedicated && cell->n_vcpus > 1 &&
        vn_bitmap_equal(g_ptr_array_index(p->vcpu_pins, cell->vcpu_first),
                        g_ptr_array_index(p->vcpu_pins, cell->vcpu_first + cell->n_vcpus - 1)))
        return 1;
    seen = vn_bitmap_new(MAX(t->n_domains, 1));
    for (guint v = cell->vcpu_first; v < cell->vcpu_first + cell->n_vcpus; v++) {
        gint dom = pin_domain(t, g_ptr_array_index(p->vcpu_pins, v));
        if (dom < 0)
            return 1;
        if (dom == prev) {
            len++;
            continue;
        }
        if (vn_bitmap_test(seen, (guint)dom) || (runs > 1 && len != first_len))
            return 0;
        if (runs == 1)
            first_len = len;
        vn_bitmap_set(seen, (guint)dom);
        prev = dom;
        runs++;
        len = 1;
    }
    if (runs > 1 && len != first_len)
        return 0;
    return MAX(runs, 1);
}

/* Shared vCPUs pinned by domain float over their cell's CPUs again. */
static void
unsplit_shared(const VnPlanCtx *c, VnPlacement *p)
{
    if (c->req->dedicated)
        return;
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        for (guint v = cell->vcpu_first; v < cell->vcpu_first + cell->n_vcpus; v++) {
            vn_bitmap_free(p->vcpu_pins->pdata[v]);
            p->vcpu_pins->pdata[v] = vn_bitmap_copy(cell->cpus);
        }
    }
}

void
vn_plan_domain_guest_dies(const VnPlanCtx *c, VnPlacement *p)
{
    guint threads = MAX(1, p->threads_per_core), dies = 1, vcpus = 0, split = 0;
    const gchar *why = NULL;

    p->dies = 1;
    if (c->policy->cache_domains == VN_CACHE_DOMAINS_OFF || p->cells->len == 0)
        return;
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, i);
        guint d = cell_dies(c->t, p, cell);
        split += d != 1;
        if (d == 0) {
            why = "a cell's vCPUs are not an equal number in each of their cache domains";
        } else if (i == 0) {
            dies = d;
            vcpus = cell->n_vcpus;
        } else if (!why && (d != dies || cell->n_vcpus != vcpus)) {
            why = "the guest cells are not split alike over cache domains";
        }
    }
    if (split == 0)
        return;
    if (!why && (vcpus / dies) % threads != 0)
        why = "a die's vCPUs would not be whole guest cores";
    if (why) {
        vn_placement_add_reason(p, "guest topology: one die a socket (%s)", why);
        unsplit_shared(c, p);
        return;
    }
    p->dies = dies;
    vn_placement_add_reason(p,
                            "guest topology: %u dies a socket, one a host cache domain: each "
                            "die's %u vCPUs pinned to its domain's CPUs",
                            dies, vcpus / dies);
}
