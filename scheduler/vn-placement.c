/* vn-placement.c: the placement value. */
#include "vn-placement.h"
#include "vn-names.h"

static void
cell_clear(gpointer p)
{
    VnCell *c = p;
    vn_bitmap_free(c->cpus);
}

static void
iothread_clear(gpointer p)
{
    VnIOThreadPin *io = p;
    vn_bitmap_free(io->cpus);
}

VnPlacement *
vn_placement_new(void)
{
    VnPlacement *p = g_new0(VnPlacement, 1);

    /* sized for a plan of a few dozen vCPUs and reasons: growing them
     * one doubling at a time was a dozen reallocations a plan */
    p->cells = g_array_sized_new(FALSE, TRUE, sizeof(VnCell), 8);
    g_array_set_clear_func(p->cells, cell_clear);
    p->vcpu_pins = g_ptr_array_new_full(64, (GDestroyNotify)vn_bitmap_free);
    p->iothreads = g_array_new(FALSE, TRUE, sizeof(VnIOThreadPin));
    g_array_set_clear_func(p->iothreads, iothread_clear);
    p->reasons = g_ptr_array_new_full(32, g_free);
    p->warnings = g_ptr_array_new_with_free_func(g_free);
    p->candidates = g_ptr_array_new_full(32, (GDestroyNotify)vn_candidate_free);
    p->threads_per_core = 1;
    p->dies = 1;
    return p;
}

void
vn_placement_free(VnPlacement *p)
{
    if (!p)
        return;
    g_array_unref(p->cells);
    g_ptr_array_unref(p->vcpu_pins);
    vn_bitmap_free(p->emulator_cpus);
    vn_bitmap_free(p->isolated_cpus);
    g_array_unref(p->iothreads);
    g_ptr_array_unref(p->reasons);
    g_ptr_array_unref(p->warnings);
    g_ptr_array_unref(p->candidates);
    g_free(p);
}

/* The text `fmt` formats: in a stack buffer first, then copied once
 * (g_strdup_vprintf() grows its buffer by reallocation: a plan formats a
 * few dozen reasons of about 100 characters). */
static gchar *format_text(const gchar *fmt, va_list ap) G_GNUC_PRINTF(1, 0);

static gchar *
format_text(const gchar *fmt, va_list ap)
{
    gchar buf[256];
    va_list again;
    gint n;

    va_copy(again, ap);
    n = g_vsnprintf(buf, sizeof buf, fmt, ap);
    if (n >= 0 && (gsize)n < sizeof buf) {
        va_end(again);
        return g_strndup(buf, (gsize)n);
    }
    {
        gchar *text = g_strdup_vprintf(fmt, again);
        va_end(again);
        return text;
    }
}

void
vn_placement_add_reason(VnPlacement *p, const gchar *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    g_ptr_array_add(p->reasons, format_text(fmt, ap));
    va_end(ap);
}

void
vn_placement_add_warning(VnPlacement *p, const gchar *fmt, ...)
{
    va_list ap;

    va_start(ap, fmt);
    g_ptr_array_add(p->warnings, format_text(fmt, ap));
    va_end(ap);
}

void
vn_candidate_free(VnCandidate *c)
{
    if (!c)
        return;
    g_array_unref(c->nodes);
    g_free(c->note);
    g_free(c);
}

static gint
uint_cmp(gconstpointer a, gconstpointer b)
{
    guint x = *(const guint *)a, y = *(const guint *)b;
    return (x > y) - (x < y);
}

GArray *
vn_placement_nodes(const VnPlacement *p)
{
    GArray *nodes = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint i = 0; i < p->cells->len; i++) {
        guint n = g_array_index(p->cells, VnCell, i).node;
        gboolean seen = FALSE;
        for (guint j = 0; j < nodes->len && !seen; j++)
            seen = g_array_index(nodes, guint, j) == n;
        if (!seen)
            g_array_append_val(nodes, n);
    }
    g_array_sort(nodes, uint_cmp);
    return nodes;
}

static const gchar *const memory_mode_names[] = { "restrictive", "strict", "auto", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(memory_mode_names) == VN_MEMORY_MODE_MAX + 1);

const gchar *const *
vn_memory_mode_names(void)
{
    return memory_mode_names;
}

const gchar *
vn_memory_mode_to_string(VnMemoryMode m)
{
    g_return_val_if_fail(m < VN_MEMORY_MODE_MAX, NULL);
    return memory_mode_names[m];
}

gint
vn_memory_mode_from_string(const gchar *s)
{
    return vn_name_index(memory_mode_names, VN_MEMORY_MODE_MAX, s);
}

gboolean
vn_placement_has_guest_cells(const VnPlacement *p)
{
    return !p->interleave && p->tiers != VN_TIERS_SPILL;
}

VnMemoryMode
vn_memory_mode_resolve(VnMemoryMode m, const VnPlacement *p)
{
    g_autoptr(GArray) nodes = NULL;

    if (p->tiers == VN_TIERS_SPILL)
        return VN_MEMORY_MODE_RESTRICTIVE;
    if (p->interleave)
        return VN_MEMORY_MODE_STRICT;
    if (m != VN_MEMORY_MODE_AUTO)
        return m;
    nodes = vn_placement_nodes(p);
    return nodes->len > 1 ? VN_MEMORY_MODE_STRICT : VN_MEMORY_MODE_RESTRICTIVE;
}

guint
vn_placement_memory_nodes(const VnPlacement *p)
{
    guint n = 0;

    for (guint c = 0; c < p->cells->len; c++) {
        const VnCell *cell = &g_array_index(p->cells, VnCell, c);
        gboolean seen = FALSE;
        if (!cell->memory_kib)
            continue;
        for (guint d = 0; d < c && !seen; d++) {
            const VnCell *o = &g_array_index(p->cells, VnCell, d);
            seen = o->memory_kib && o->node == cell->node;
        }
        n += !seen;
    }
    return n;
}
