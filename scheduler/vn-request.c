/* vn-request.c: the VM request value and its enum string tables. */
#include "vn-request.h"
#include "vn-names.h"

static const gchar *const smt_names[VN_SMT_MAX] = { "prefer", "isolate", "require" };
static const gchar *const priority_names[VN_PRIORITY_MAX] = { "low", "normal", "high" };

static const gchar *const tiers_names[VN_TIERS_MAX + 1] = { "off", "spill", "guest", NULL };

static void
device_clear(gpointer p)
{
    VnDevice *d = p;
    g_free(d->name);
}

VnRequest *
vn_request_new(void)
{
    VnRequest *r = g_new0(VnRequest, 1);

    r->smt = VN_SMT_PREFER;
    r->priority = VN_PRIORITY_NORMAL;
    return r;
}

void
vn_request_free(VnRequest *r)
{
    if (!r)
        return;
    g_clear_pointer(&r->devices, g_array_unref);
    g_clear_pointer(&r->cell_sizes, g_array_unref);
    vn_bitmap_free(r->allowed_cpus);
    g_free(r);
}

void
vn_request_add_device(VnRequest *r, guint node_os_id, gint iothread, const gchar *name)
{
    VnDevice d = { .node_os_id = node_os_id, .iothread = iothread, .name = g_strdup(name) };

    if (!r->devices) {
        r->devices = g_array_new(FALSE, TRUE, sizeof(VnDevice));
        g_array_set_clear_func(r->devices, device_clear);
    }
    g_array_append_val(r->devices, d);
}

void
vn_request_add_cell_size(VnRequest *r, guint vcpus, guint64 memory_kib)
{
    VnCellSize size = { .vcpus = vcpus, .memory_kib = memory_kib };

    if (!r->cell_sizes)
        r->cell_sizes = g_array_new(FALSE, TRUE, sizeof(VnCellSize));
    g_array_append_val(r->cell_sizes, size);
}

void
vn_request_forget_even_cell_sizes(VnRequest *r)
{
    const VnCellSize *first;

    if (!r->cell_sizes || r->cell_sizes->len == 0)
        return;
    first = &g_array_index(r->cell_sizes, VnCellSize, 0);
    for (guint i = 1; i < r->cell_sizes->len; i++) {
        const VnCellSize *c = &g_array_index(r->cell_sizes, VnCellSize, i);
        if (c->vcpus != first->vcpus || c->memory_kib != first->memory_kib)
            return;
    }
    g_clear_pointer(&r->cell_sizes, g_array_unref);
}

VN_DEFINE_ENUM_STRINGS(VnSmtPolicy, vn_smt_policy, smt_names, VN_SMT_MAX)

VN_DEFINE_ENUM_STRINGS(VnPriority, vn_priority, priority_names, VN_PRIORITY_MAX)

VN_DEFINE_ENUM_STRINGS(VnTiers, vn_tiers, tiers_names, VN_TIERS_MAX)

const gchar *const *
vn_tiers_names(void)
{
    return tiers_names;
}
