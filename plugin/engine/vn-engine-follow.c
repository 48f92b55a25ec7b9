/* vn-engine-follow.c: a domain's persistent definition following the
 * placement applied live (vn-engine.h).
 *
 * Why: the qemu hook honours the placement the persistent definition
 * records at each start (vn-hook-prepare.c), so a VM moved live (by
 * consolidation, defragmentation, rebalancing, a re-apply) whose
 * definition still records its old nodes would start split again.  The
 * record just applied is written as `place` writes a placement (the same
 * writer, never forced), its guest cells kept: nothing is planned again. */
#include "vn-engine.h"
#include "vn-cpulist.h"
#include "vn-engine-residents.h"

static const gchar *const follow_names[] = { "rewritten", "unchanged", "unplaced", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(follow_names) == VN_ENGINE_FOLLOW_MAX + 1);

const gchar *
vn_engine_follow_to_string(VnEngineFollow f)
{
    g_return_val_if_fail(f < VN_ENGINE_FOLLOW_MAX, NULL);
    return follow_names[f];
}

static gboolean mismatch(GError **error, const VnDomain *d, const gchar *fmt, ...)
    G_GNUC_PRINTF(3, 4);

static gboolean
mismatch(GError **error, const VnDomain *d, const gchar *fmt, ...)
{
    g_autofree gchar *msg = NULL;
    va_list ap;

    va_start(ap, fmt);
    msg = g_strdup_vprintf(fmt, ap);
    va_end(ap);
    g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH,
                "domain '%s': %s; the persistent definition is not the applied one's", d->name,
                msg);
    return FALSE;
}

/* The guest's view must stay what the definition gives it (guest ABI):
 * one unit (interleave, spill) or not, the same guest cells with the same
 * vCPU counts and memory, in the record's order. */
static gboolean
same_guest(const VnDomain *d, const VnLedgerRecord *r, GError **error)
{
    const VnDomainMetadata *m = d->meta;
    gboolean unit = m->interleave || m->tiers == VN_TIERS_SPILL;

    if (unit != r->whole)
        return mismatch(error, d, "%s",
                        unit ? "it records memory as one unit, the record does not"
                             : "the record holds its memory as one unit");
    if (r->whole)
        return TRUE;
    if (d->cells->len == 0)
        return r->cells->len == 1
                   ? TRUE
                   : mismatch(error, d, "no guest NUMA cells, the record has %u", r->cells->len);
    if (d->cells->len != r->cells->len)
        return mismatch(error, d, "%u guest NUMA cells, the record %u", d->cells->len,
                        r->cells->len);
    for (guint i = 0; i < r->cells->len; i++) {
        const VnDomainCell *dc = &g_array_index(d->cells, VnDomainCell, i);
        const VnLedgerCell *rc = &g_array_index(r->cells, VnLedgerCell, i);
        if (dc->id != rc->id || vn_bitmap_count(dc->vcpus) != rc->vcpus ||
            dc->memory_kib != rc->memory_kib)
            return mismatch(error, d, "guest cell %u is not the record's cell %u", dc->id, rc->id);
    }
    return TRUE;
}

/* Whether every recorded cell is on the record's node and CPUs already. */
static gboolean
same_nodes(const VnDomainMetadata *m, const VnLedgerRecord *r)
{
    if (m->cells->len != r->cells->len)
        return FALSE;
    for (guint i = 0; i < r->cells->len; i++) {
        const VnDomainMetaCell *mc = &g_array_index(m->cells, VnDomainMetaCell, i);
        const VnLedgerCell *rc = &g_array_index(r->cells, VnLedgerCell, i);
        g_autoptr(VnBitmap) cpus = vn_cpulist_parse(rc->cpus, G_MAXINT16, NULL);
        if (mc->id != rc->id || mc->node_os_id != rc->node_os_id || !cpus ||
            !vn_bitmap_equal(mc->cpus, cpus))
            return FALSE;
    }
    return TRUE;
}

/* The placement's cell of guest cell `id`, or NULL. */
static const VnCell *
cell_of(const VnPlacement *p, guint id)
{
    for (guint i = 0; i < p->cells->len; i++)
        if (g_array_index(p->cells, VnCell, i).id == id)
            return &g_array_index(p->cells, VnCell, i);
    return NULL;
}

/* Each IOThread the definition pins stays with its guest cell: inside a
 * recorded cell's CPUs it goes to that cell's new CPUs, otherwise to the
 * emulator's (all the cells' CPUs).  Ordinals as the writer wants them. */
static void
follow_iothreads(VnPlacement *p, const VnDomain *d)
{
    const VnDomainMetadata *m = d->meta;

    for (guint i = 0; i < m->iothreads->len; i++) {
        const VnDomainMetaIOThread *mi = &g_array_index(m->iothreads, VnDomainMetaIOThread, i);
        const VnBitmap *cpus = p->emulator_cpus;
        VnIOThreadPin io = { 0 };
        for (guint k = 0; k < d->iothread_ids->len && !io.id; k++)
            if (g_array_index(d->iothread_ids, guint, k) == mi->id)
                io.id = k + 1;
        if (!io.id)
            continue; /* an IOThread the definition no longer has */
        for (guint c = 0; c < m->cells->len; c++) {
            const VnDomainMetaCell *mc = &g_array_index(m->cells, VnDomainMetaCell, c);
            g_autoptr(VnBitmap) rest = vn_bitmap_copy(mi->cpus);
            const VnCell *now = cell_of(p, mc->id);
            vn_bitmap_and_not(rest, mc->cpus);
            if (now && vn_bitmap_is_empty(rest)) {
                cpus = now->cpus;
                io.cell = (guint)(now - &g_array_index(p->cells, VnCell, 0));
                break;
            }
        }
        io.cpus = vn_bitmap_copy(cpus);
        g_array_append_val(p->iothreads, io);
    }
}

gboolean
vn_engine_follow_record(VnDomain *d, const VnTopology *t, const VnLedgerRecord *r,
                        VnMemoryMode memory_mode, VnEngineFollow *ret_outcome, GError **error)
{
    const VnDomainWriteOptions wo = { .memory_mode = memory_mode };
    g_autoptr(VnPlacement) p = NULL;
    g_autoptr(VnRequest) req = NULL;

    g_return_val_if_fail(d != NULL && t != NULL && r != NULL && ret_outcome != NULL, FALSE);
    /* no placement recorded: the hook plans the domain afresh at each
     * start, so there is nothing to follow (and nothing of vnuma's to
     * write into a definition that never asked for it) */
    if (!d->meta || !d->meta->has_placement) {
        *ret_outcome = VN_ENGINE_FOLLOW_UNPLACED;
        return TRUE;
    }
    if (!same_guest(d, r, error))
        return FALSE;
    if (same_nodes(d->meta, r)) {
        *ret_outcome = VN_ENGINE_FOLLOW_UNCHANGED;
        return TRUE;
    }
    if (!(p = vn_engine_record_placement(r, t, &req)))
        return mismatch(error, d, "the record names a node or CPUs this host does not have");
    p->threads_per_core = d->meta->threads_per_core;
    p->interleave = d->meta->interleave;
    p->tiers = d->meta->tiers;
    follow_iothreads(p, d);
    /* never forced: another manager's pins stay, as `place` keeps them */
    if (!vn_domain_apply_placement(d, t, p, &wo, error))
        return FALSE;
    *ret_outcome = VN_ENGINE_FOLLOW_REWRITTEN;
    return TRUE;
}
