/* vn-engine-place.c: domain -> request -> vn_plan -> rewritten domain. */
#include "vn-engine.h"
#include "vn-plan.h"

/* Cells vnuma recorded may be re-chosen: the planner first gets a free
 * hand, and its answer is kept when it has the same number of cells (so
 * placing a placed domain again gives the same answer as placing it the
 * first time); otherwise the count stays, as for any existing cells.
 * Cells of their own sizes (the user's, uneven) are never re-chosen. */
static VnPlacement *
plan(const VnDomain *d, const VnTopology *t, const VnLoad *load, const VnPolicy *policy,
     VnRequest *req, GPtrArray **ret_reasons, GError **error)
{
    guint fixed = req->cells;

    if (fixed > 0 && !req->cell_sizes && d->meta && d->meta->has_placement &&
        d->meta->cells->len == fixed) {
        g_autoptr(VnPlacement) p = NULL;
        req->cells = 0;
        p = vn_plan(t, load, policy, req, NULL, NULL);
        req->cells = fixed;
        if (p && p->cells->len == fixed)
            return g_steal_pointer(&p);
    }
    return vn_plan(t, load, policy, req, ret_reasons, error);
}

VnPlacement *
vn_domain_place(VnDomain *d, const VnTopology *t, const VnLoad *load,
                const VnPolicy *policy, const VnRequest *req, const gchar *sysroot,
                const VnDomainWriteOptions *o, GPtrArray **ret_reasons, GError **error)
{
    g_autoptr(VnRequest) own = NULL;
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(GPtrArray) reasons = NULL;

    g_return_val_if_fail(d != NULL && t != NULL && load != NULL && policy != NULL, NULL);
    if (req) {
        p = vn_plan(t, load, policy, req, &reasons, error);
    } else {
        own = vn_domain_to_request(d, sysroot, error);
        if (!own)
            return NULL;
        p = plan(d, t, load, policy, own, &reasons, error);
    }
    if (!p) {
        g_prefix_error(error, "domain '%s': ", d->name);
        if (ret_reasons)
            *ret_reasons = g_steal_pointer(&reasons);
        return NULL;
    }
    if (!vn_domain_apply_placement(d, t, p, o, error))
        return NULL;
    vn_domain_check_guest_view(d, p);
    if (ret_reasons)
        *ret_reasons = g_steal_pointer(&reasons);
    return g_steal_pointer(&p);
}

gchar *
vn_domain_plan_rewrite(const gchar *path, const VnTopology *t, const VnLoad *load,
                       const VnPolicy *policy, const gchar *sysroot,
                       const VnDomainWriteOptions *o, VnPlacement **ret_placement,
                       GPtrArray **ret_reasons, GError **error)
{
    g_autoptr(VnDomain) d = vn_domain_load_file(path, error);
    g_autoptr(VnPlacement) p = NULL;

    if (!d)
        return NULL;
    p = vn_domain_place(d, t, load, policy, NULL, sysroot, o, ret_reasons, error);
    if (!p)
        return NULL;
    if (ret_placement)
        *ret_placement = g_steal_pointer(&p);
    return vn_domain_to_string(d);
}

