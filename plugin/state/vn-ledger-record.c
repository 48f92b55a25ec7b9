/* vn-ledger-record.c: the record value of the ledger. */
#include "vn-cpulist.h"
#include "vn-ledger.h"

static const gchar *const state_names[VN_LEDGER_STATE_MAX] = {
    [VN_LEDGER_STATE_RESERVED] = "reserved",
    [VN_LEDGER_STATE_RUNNING] = "running",
};

const gchar *
vn_ledger_state_to_string(VnLedgerState s)
{
    g_return_val_if_fail(s < VN_LEDGER_STATE_MAX, NULL);
    return state_names[s];
}

gboolean
vn_ledger_state_from_string(const gchar *s, VnLedgerState *ret_s)
{
    for (guint i = 0; i < VN_LEDGER_STATE_MAX; i++) {
        if (g_strcmp0(s, state_names[i]) == 0) {
            *ret_s = i;
            return TRUE;
        }
    }
    return FALSE;
}

static void
cell_clear(gpointer p)
{
    VnLedgerCell *c = p;
    g_free(c->cpus);
    g_clear_pointer(&c->vcpu_cpus, g_ptr_array_unref);
}

VnLedgerRecord *
vn_ledger_record_new(const gchar *uuid, const gchar *name)
{
    VnLedgerRecord *r = g_new0(VnLedgerRecord, 1);
    r->uuid = g_strdup(uuid);
    r->name = g_strdup(name);
    r->priority = VN_PRIORITY_NORMAL;
    r->cells = g_array_new(FALSE, TRUE, sizeof(VnLedgerCell));
    g_array_set_clear_func(r->cells, cell_clear);
    return r;
}

void
vn_ledger_record_free(VnLedgerRecord *r)
{
    if (!r)
        return;
    g_free(r->uuid);
    g_free(r->name);
    g_free(r->allowed_cpus);
    g_array_unref(r->cells);
    g_free(r);
}

void
vn_ledger_record_add_cell(VnLedgerRecord *r, guint id, guint node_os_id, guint vcpus,
                          const gchar *cpus, guint64 memory_kib)
{
    VnLedgerCell c = {
        .id = id,
        .node_os_id = node_os_id,
        .vcpus = vcpus,
        .cpus = g_strdup(cpus ? cpus : ""),
        .memory_kib = memory_kib,
    };
    g_array_append_val(r->cells, c);
}

void
vn_ledger_record_add_vcpu_pin(VnLedgerRecord *r, const gchar *cpus)
{
    VnLedgerCell *c;

    g_return_if_fail(r->cells->len > 0 && cpus != NULL);
    c = &g_array_index(r->cells, VnLedgerCell, r->cells->len - 1);
    if (!c->vcpu_cpus)
        c->vcpu_cpus = g_ptr_array_new_with_free_func(g_free);
    g_ptr_array_add(c->vcpu_cpus, g_strdup(cpus));
}

const gchar *
vn_ledger_cell_vcpu_pin(const VnLedgerCell *c, guint k)
{
    return c->vcpu_cpus && k < c->vcpu_cpus->len ? g_ptr_array_index(c->vcpu_cpus, k) : NULL;
}

/* Whether `pins` say no more than the cell's rule: every shared vCPU on
 * all of `all`, the k-th dedicated vCPU on the k-th CPU of `all`. */
static gboolean
pins_follow_cell(gboolean dedicated, const VnBitmap *all, GPtrArray *pins)
{
    gint cpu = -1;

    for (guint k = 0; k < pins->len; k++) {
        const VnBitmap *pin = g_ptr_array_index(pins, k);
        if (!dedicated) {
            if (!vn_bitmap_equal(pin, all))
                return FALSE;
            continue;
        }
        cpu = vn_bitmap_next(all, cpu);
        if (cpu < 0 || vn_bitmap_count(pin) != 1 || !vn_bitmap_test(pin, (guint)cpu))
            return FALSE;
    }
    return TRUE;
}

void
vn_ledger_record_set_cell_pins(VnLedgerRecord *r, guint index, GPtrArray *pins)
{
    VnLedgerCell *c;
    g_autoptr(VnBitmap) all = NULL;

    g_return_if_fail(index < r->cells->len && pins && pins->len > 0);
    c = &g_array_index(r->cells, VnLedgerCell, index);
    g_return_if_fail(pins->len == c->vcpus);
    all = vn_bitmap_copy(g_ptr_array_index(pins, 0));
    for (guint k = 1; k < pins->len; k++)
        vn_bitmap_or(all, g_ptr_array_index(pins, k));
    g_free(c->cpus);
    c->cpus = vn_cpulist_format(all);
    g_clear_pointer(&c->vcpu_cpus, g_ptr_array_unref);
    if (pins_follow_cell(r->dedicated, all, pins))
        return;
    c->vcpu_cpus = g_ptr_array_new_full(pins->len, g_free);
    for (guint k = 0; k < pins->len; k++)
        g_ptr_array_add(c->vcpu_cpus, vn_cpulist_format(g_ptr_array_index(pins, k)));
}

VnLedgerRecord *
vn_ledger_record_copy(const VnLedgerRecord *r)
{
    VnLedgerRecord *c = vn_ledger_record_new(r->uuid, r->name);
    c->state = r->state;
    c->needs_apply = r->needs_apply;
    c->dedicated = r->dedicated;
    c->priority = r->priority;
    c->hugepage_kib = r->hugepage_kib;
    c->time = r->time;
    c->expires = r->expires;
    c->foreign = r->foreign;
    c->whole = r->whole;
    c->allowed_cpus = g_strdup(r->allowed_cpus);
    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *x = &g_array_index(r->cells, VnLedgerCell, i);
        vn_ledger_record_add_cell(c, x->id, x->node_os_id, x->vcpus, x->cpus, x->memory_kib);
        for (guint k = 0; x->vcpu_cpus && k < x->vcpu_cpus->len; k++)
            vn_ledger_record_add_vcpu_pin(c, g_ptr_array_index(x->vcpu_cpus, k));
    }
    return c;
}

guint
vn_ledger_record_vcpus(const VnLedgerRecord *r)
{
    guint n = 0;
    for (guint i = 0; i < r->cells->len; i++)
        n += g_array_index(r->cells, VnLedgerCell, i).vcpus;
    return n;
}

guint64
vn_ledger_record_memory_kib(const VnLedgerRecord *r)
{
    guint64 n = 0;
    for (guint i = 0; i < r->cells->len; i++)
        n += g_array_index(r->cells, VnLedgerCell, i).memory_kib;
    return n;
}

static gint
cmp_uint(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return x < y ? -1 : x > y;
}

gchar *
vn_ledger_record_nodes_string(const VnLedgerRecord *r)
{
    g_autoptr(GArray) nodes = g_array_new(FALSE, FALSE, sizeof(guint));
    for (guint i = 0; i < r->cells->len; i++)
        g_array_append_val(nodes, g_array_index(r->cells, VnLedgerCell, i).node_os_id);
    g_array_sort(nodes, cmp_uint);
    g_autoptr(GString) s = g_string_new(NULL);
    for (guint i = 0; i < nodes->len; i++) {
        guint n = g_array_index(nodes, guint, i);
        if (i > 0 && n == g_array_index(nodes, guint, i - 1))
            continue;
        g_string_append_printf(s, "%s%u", s->len ? "," : "", n);
    }
    return g_string_free(g_steal_pointer(&s), FALSE);
}

static gint
cmp_record_name(gconstpointer a, gconstpointer b)
{
    const VnLedgerRecord *x = *(VnLedgerRecord *const *)a;
    const VnLedgerRecord *y = *(VnLedgerRecord *const *)b;
    return g_strcmp0(x->name, y->name);
}

void
vn_ledger_records_sort(GPtrArray *records)
{
    g_ptr_array_sort(records, cmp_record_name);
}

static gboolean
pins_equal(GPtrArray *a, GPtrArray *b)
{
    if (!a || !b)
        return a == b;
    if (a->len != b->len)
        return FALSE;
    for (guint k = 0; k < a->len; k++)
        if (g_strcmp0(g_ptr_array_index(a, k), g_ptr_array_index(b, k)))
            return FALSE;
    return TRUE;
}

gboolean
vn_ledger_record_equal(const VnLedgerRecord *a, const VnLedgerRecord *b)
{
    if (g_strcmp0(a->uuid, b->uuid) || g_strcmp0(a->name, b->name) || a->state != b->state ||
        a->needs_apply != b->needs_apply || a->dedicated != b->dedicated ||
        a->priority != b->priority || a->hugepage_kib != b->hugepage_kib || a->time != b->time ||
        a->expires != b->expires || a->foreign != b->foreign || a->whole != b->whole ||
        g_strcmp0(a->allowed_cpus, b->allowed_cpus) || a->cells->len != b->cells->len)
        return FALSE;
    for (guint i = 0; i < a->cells->len; i++) {
        const VnLedgerCell *x = &g_array_index(a->cells, VnLedgerCell, i);
        const VnLedgerCell *y = &g_array_index(b->cells, VnLedgerCell, i);
        if (x->id != y->id || x->node_os_id != y->node_os_id || x->vcpus != y->vcpus ||
            x->memory_kib != y->memory_kib || g_strcmp0(x->cpus, y->cpus) ||
            !pins_equal(x->vcpu_cpus, y->vcpu_cpus))
            return FALSE;
    }
    return TRUE;
}
