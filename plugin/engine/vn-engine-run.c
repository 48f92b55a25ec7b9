/* vn-engine-run.c: domain -> request -> vn_plan -> rewritten domain, for
 * every caller (vn-engine.h). */
#include "vn-cpulist.h"
#include "vn-engine.h"
#include "vn-plan.h"

#include <string.h>

static const gchar *const intent_names[VN_ENGINE_MAX] = {
    [VN_ENGINE_PLAN] = "plan",   [VN_ENGINE_DEFINE] = "define", [VN_ENGINE_PLACE] = "place",
    [VN_ENGINE_START] = "start", [VN_ENGINE_FILTER] = "filter",
};

const gchar *
vn_engine_intent_to_string(VnEngineIntent intent)
{
    return intent < VN_ENGINE_MAX ? intent_names[intent] : "unknown";
}

void
vn_engine_result_clear(VnEngineResult *r)
{
    g_clear_pointer(&r->request, vn_request_free);
    g_clear_pointer(&r->placement, vn_placement_free);
    g_clear_pointer(&r->reasons, g_ptr_array_unref);
    g_clear_pointer(&r->xml, g_free);
    r->kept = NULL;
    g_clear_pointer(&r->moves, g_array_unref);
    r->defrag_node = 0;
    g_clear_pointer(&r->split, vn_placement_free);
    g_clear_pointer(&r->split_xml, g_free);
    g_clear_pointer(&r->defrag_note, g_free);
}

/* The core, with the cell rule's free hand first when it allows one. */
static VnPlacement *
plan(const VnEngineHost *host, VnRequest *req, VnEngineCells rule, GPtrArray **ret_reasons,
     GError **error)
{
    req->cells = rule.cells;
    if (rule.rechoose && rule.cells > 0) {
        g_autoptr(VnPlacement) p = NULL;
        req->cells = 0;
        p = vn_plan(host->t, host->load, host->policy, req, NULL, NULL);
        req->cells = rule.cells;
        if (p && p->cells->len == rule.cells)
            return g_steal_pointer(&p);
    }
    return vn_plan(host->t, host->load, host->policy, req, ret_reasons, error);
}

/* Same guest cells, in order: vCPUs and memory (no cells on both sides is
 * the same too). */
static gboolean
same_cells(const GArray *a, const GArray *b)
{
    guint na = a ? a->len : 0, nb = b ? b->len : 0;

    if (na != nb)
        return FALSE;
    for (guint i = 0; i < na; i++) {
        const VnDomainCell *x = &g_array_index(a, VnDomainCell, i);
        const VnDomainCell *y = &g_array_index(b, VnDomainCell, i);
        if (x->memory_kib != y->memory_kib || !vn_bitmap_equal(x->vcpus, y->vcpus))
            return FALSE;
    }
    return TRUE;
}

/* A running guest's ABI (threads per core, guest cells) must not change:
 * libvirt's check after the filter would cancel the migration.  The
 * rewrite is tried on a copy; `d` changes only when the cells stay. */
static gboolean
filter(VnDomain *d, const VnEngineHost *host, VnEngineResult *ret, GError **error)
{
    const VnDomainMetadata *m = d->meta;
    VnDomainWriteOptions o = { .force = TRUE,
                               .memory_mode = m ? m->memory_mode : VN_MEMORY_MODE_RESTRICTIVE };
    g_autofree gchar *before = vn_domain_to_string(d);
    g_autoptr(VnDomain) copy = NULL;

    if (m && m->has_placement && m->threads_per_core &&
        ret->placement->threads_per_core != m->threads_per_core) {
        ret->kept = "a new placement would change the guest's threads per core";
        return TRUE;
    }
    copy = vn_domain_load_buffer(before, strlen(before), d->source, error);
    if (!copy || !vn_domain_apply_placement(copy, host->t, ret->placement, &o, error))
        return FALSE;
    if (!same_cells(d->cells, copy->cells)) {
        ret->kept = "a new placement would change the guest NUMA cells";
        return TRUE;
    }
    if (!vn_domain_apply_placement(d, host->t, ret->placement, &o, error))
        return FALSE;
    ret->xml = vn_domain_to_string(d);
    return TRUE;
}

/* The split placement written into a copy of `d`: the fallback XML. */
static gboolean
write_split(const VnDomain *d, const VnEngineHost *host, const VnDomainWriteOptions *o,
            VnEngineResult *ret, GError **error)
{
    g_autofree gchar *before = vn_domain_to_string(d);
    g_autoptr(VnDomain) copy = vn_domain_load_buffer(before, strlen(before), d->source, error);

    if (!copy || !vn_domain_apply_placement(copy, host->t, ret->split, o, error))
        return FALSE;
    vn_domain_check_guest_view(copy, ret->split);
    ret->split_xml = vn_domain_to_string(copy);
    return TRUE;
}

gboolean
vn_engine_run(VnDomain *d, const VnEngineHost *host, VnEngineIntent intent,
              const VnDomainWriteOptions *o, VnEngineResult *ret, GError **error)
{
    static const VnDomainWriteOptions defaults = { 0 };

    g_return_val_if_fail(d != NULL && host != NULL && ret != NULL, FALSE);
    g_return_val_if_fail(host->t && host->load && host->policy && intent < VN_ENGINE_MAX, FALSE);
    vn_engine_result_clear(ret);
    ret->request = vn_domain_to_request(d, host->sysroot, error);
    if (!ret->request)
        return FALSE;
    ret->placement = plan(host, ret->request, vn_engine_cell_rule(d, intent, ret->request),
                          &ret->reasons, error);
    if (!ret->placement && d->allowed_cpus) {
        g_autofree gchar *set = vn_cpulist_format(d->allowed_cpus);
        g_prefix_error(error, "domain '%s' (<vcpu cpuset='%s'>): ", d->name, set);
        return FALSE;
    }
    if (!ret->placement) {
        g_prefix_error(error, "domain '%s': ", d->name);
        return FALSE;
    }
    if (intent == VN_ENGINE_FILTER)
        return filter(d, host, ret, error);
    vn_engine_defragment(host, d->name, ret);
    if (intent == VN_ENGINE_START)
        return TRUE;
    if (ret->split && !write_split(d, host, o ? o : &defaults, ret, error))
        return FALSE;
    if (!vn_domain_apply_placement(d, host->t, ret->placement, o ? o : &defaults, error))
        return FALSE;
    vn_domain_check_guest_view(d, ret->placement);
    ret->xml = vn_domain_to_string(d);
    return TRUE;
}
