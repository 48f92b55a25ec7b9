/* vn-plan-domains.c: which cache domains of a node a shared VM's vCPUs
 * run in ([placement] cache_domains, VnCacheDomains in vn-load.h).
 *
 * A domain's load is what is left of it: its usable CPUs (host-reserved
 * and dedicated ones excluded); its capacity those CPUs x cpu_overcommit.
 * At most a few dozen domains a node: a sort per member node. */
#include "vn-plan-private.h"

#include <stdlib.h>

typedef struct {
    guint domain; /* index into t->domains */
    guint usable; /* usable CPUs in it */
} DomainFree;

static gint
most_usable_first(gconstpointer a, gconstpointer b)
{
    const DomainFree *x = a, *y = b;

    if (x->usable != y->usable)
        return x->usable > y->usable ? -1 : 1;
    return (x->domain > y->domain) - (x->domain < y->domain);
}

static guint
capacity(const VnPlanCtx *c, guint usable)
{
    return (guint)(usable * c->policy->cpu_overcommit + 1e-9);
}

/* "2 (6 usable CPUs)" or "2 and 3 (12 usable CPUs)": domains by index. */
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

VnBitmap *
vn_plan_domain_cpus(const VnPlanCtx *c, guint node, guint vcpus, VnPlacement *p, GError **error)
{
    const VnTopology *t = c->t;
    const VnNode *n = &t->nodes[node];
    const VnBitmap *free_cpus = vn_plan_free_cpus(c, node);
    g_autofree DomainFree *d = NULL;
    g_autofree gchar *text = NULL;
    VnBitmap *cpus;
    guint take = 0, cap = 0;

    if (c->policy->cache_domains == VN_CACHE_DOMAINS_OFF || c->req->dedicated || n->n_domains < 2 ||
        vcpus == 0)
        return vn_bitmap_copy(free_cpus);
    d = g_new(DomainFree, n->n_domains);
    for (guint i = 0; i < n->n_domains; i++) {
        g_autoptr(VnBitmap) b = vn_bitmap_copy(t->domains[n->first_domain + i].cpus);
        vn_bitmap_and(b, free_cpus);
        d[i] = (DomainFree){ .domain = n->first_domain + i, .usable = vn_bitmap_count(b) };
    }
    qsort(d, n->n_domains, sizeof(DomainFree), most_usable_first);
    while (take < n->n_domains && cap < vcpus && d[take].usable > 0)
        cap += capacity(c, d[take++].usable);
    if (take == 0)
        return vn_bitmap_copy(free_cpus); /* nothing usable: the node's own check refuses */
    if (take > 1 && c->policy->cache_domains == VN_CACHE_DOMAINS_REQUIRE) {
        g_set_error(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT,
                    "node %u: no cache domain holds %u shared vCPUs (the largest takes %u; "
                    "[placement] cache_domains = require)",
                    n->os_id, vcpus, capacity(c, d[0].usable));
        return NULL;
    }
    cpus = vn_bitmap_new(t->n_cpu_ids);
    for (guint i = 0; i < take; i++)
        vn_bitmap_or(cpus, t->domains[d[i].domain].cpus);
    vn_bitmap_and(cpus, free_cpus);
    text = domains_text(d, take);
    if (take == 1)
        vn_placement_add_reason(p,
                                "node %u: %u vCPUs in cache domain %s, the least loaded of the "
                                "node's %u",
                                n->os_id, vcpus, text, n->n_domains);
    else
        vn_placement_add_reason(p,
                                "node %u: %u vCPUs over %u whole cache domains %s, the fewest "
                                "that hold them (no one domain does)",
                                n->os_id, vcpus, take, text);
    return cpus;
}
