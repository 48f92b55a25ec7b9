/* vn-domain-write.c: write a placement into a domain.
 *
 * Order: check that the placement fits the domain and that nothing
 * hand-written would be replaced (errors leave the domain untouched), work
 * out the guest cells once (VnDomainWriteCtx), then let each part write
 * itself on a copy of the document, and finally re-read the copy so the
 * VnDomain's facts match its new XML.
 */
#include "vn-domain-private.h"
#include "vn-config-build.h"

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
    g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_MISMATCH, "domain '%s': %s", d->name, msg);
    return FALSE;
}

static gboolean
check_placement(const VnDomain *d, const VnTopology *t, const VnPlacement *p, GError **error)
{
    guint vcpus = 0;

    if (p->cells->len == 0)
        return mismatch(error, d, "the placement has no cells");
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        if (c->node >= t->n_nodes || t->nodes[c->node].os_id != c->node_os_id || !c->cpus)
            return mismatch(error, d, "placement cell %u names node %u, not on this host", i,
                            c->node_os_id);
        if (c->vcpu_first != vcpus)
            return mismatch(error, d, "placement cell %u does not start at vCPU %u", i, vcpus);
        vcpus += c->n_vcpus;
    }
    if (vcpus != d->vcpus_max || p->vcpu_pins->len != d->vcpus_max)
        return mismatch(error, d, "the placement pins %u vCPUs, the domain has %u",
                        p->vcpu_pins->len, d->vcpus_max);
    for (guint i = 0; i < p->iothreads->len; i++) {
        guint id = g_array_index(p->iothreads, VnIOThreadPin, i).id;
        if (id == 0 || id > d->iothread_ids->len)
            return mismatch(error, d, "the placement pins IOThread %u, the domain has %u", id,
                            d->iothread_ids->len);
    }
    return TRUE;
}

static gboolean
check_handwritten(const VnDomain *d, xmlNode *root, gboolean force, GError **error)
{
    g_autofree gchar *why = vn_domain_cputune_handwritten(root, d->meta);

    if (!why)
        why = vn_domain_numatune_handwritten(root, d->meta);
    /* a set vnuma cannot read is not one it can keep the pins inside */
    if (!why && !d->allowed_cpus && xmlHasProp(vn_xml_child(root, "vcpu"), BAD_CAST "cpuset"))
        why = g_strdup("<vcpu cpuset> (a set with '^' exclusions)");
    if (!why || force)
        return TRUE;
    g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_HANDWRITTEN,
                "domain '%s': %s is hand-written (vnuma's metadata does not record it); "
                "not replacing it without --force",
                d->name, why);
    return FALSE;
}

static void
ctx_clear(VnDomainWriteCtx *c)
{
    g_clear_pointer(&c->cell_vcpus, g_ptr_array_unref);
    g_clear_pointer(&c->cell_ids, g_array_unref);
    g_clear_pointer(&c->cell_memory, g_array_unref);
    g_clear_pointer(&c->vcpu_pins, g_ptr_array_unref);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VnDomainWriteCtx, ctx_clear)

/* Existing cells are kept when their count matches; a dedicated placement
 * pins vCPU by vCPU, so there the vCPU counts per cell must match too.
 * Shared vCPUs float over their cell's CPUs, whatever the count. */
static gboolean
cells_match(const VnDomain *d, const VnPlacement *p)
{
    if (d->cells->len != p->cells->len)
        return FALSE;
    for (guint i = 0; i < d->cells->len && p->dedicated; i++)
        if (vn_bitmap_count(g_array_index(d->cells, VnDomainCell, i).vcpus) !=
            g_array_index(p->cells, VnCell, i).n_vcpus)
            return FALSE;
    return TRUE;
}

static void
ctx_cells(VnDomainWriteCtx *c, const VnDomain *d)
{
    for (guint i = 0; i < c->n_cells; i++) {
        const VnCell *pc = &g_array_index(c->p->cells, VnCell, i);
        const VnDomainCell *dc = c->keep_cells ? &g_array_index(d->cells, VnDomainCell, i) : NULL;
        VnBitmap *vcpus = dc ? vn_bitmap_copy(dc->vcpus) : vn_bitmap_new(d->vcpus_max);
        guint id = dc ? dc->id : i;
        guint64 mem = dc ? dc->memory_kib : pc->memory_kib;
        guint k = 0;

        for (guint v = 0; !dc && v < pc->n_vcpus; v++)
            vn_bitmap_set(vcpus, pc->vcpu_first + v);
        /* the k-th vCPU of guest cell i takes the k-th pin of placement
         * cell i; shared cells of other sizes pin to the cell's CPUs */
        VN_BITMAP_FOREACH (vcpus, v)
            c->vcpu_pins->pdata[v] =
                k < pc->n_vcpus ? c->p->vcpu_pins->pdata[pc->vcpu_first + k++] : pc->cpus;
        g_ptr_array_add(c->cell_vcpus, vcpus);
        g_array_append_val(c->cell_ids, id);
        g_array_append_val(c->cell_memory, mem);
    }
}

static gboolean
ctx_init(VnDomainWriteCtx *c, const VnDomain *d, const VnTopology *t, const VnPlacement *p,
         const VnDomainWriteOptions *o, GError **error)
{
    gboolean owned = d->meta && d->meta->has_placement;

    c->t = t;
    c->p = p;
    c->o = o;
    c->n_cells = p->cells->len;
    c->keep_cells = cells_match(d, p);
    if (d->cells->len > 0 && !c->keep_cells && !owned && !o->force)
        return mismatch(error, d,
                        "its %u guest NUMA cells are written by hand and the "
                        "placement needs %u cells of other sizes; not replacing them "
                        "without --force",
                        d->cells->len, c->n_cells);
    /* spill and interleave: one guest node whatever the host shares */
    c->write_numa = vn_placement_has_guest_cells(p) && (c->keep_cells || c->n_cells > 1);
    c->cell_vcpus = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    c->cell_ids = g_array_new(FALSE, FALSE, sizeof(guint));
    c->cell_memory = g_array_new(FALSE, FALSE, sizeof(guint64));
    c->vcpu_pins = g_ptr_array_new(); /* borrows the placement's bitmaps */
    g_ptr_array_set_size(c->vcpu_pins, (gint)d->vcpus_max);
    ctx_cells(c, d);
    for (guint v = 0; v < d->vcpus_max; v++)
        if (!c->vcpu_pins->pdata[v])
            return mismatch(error, d, "vCPU %u is in none of the guest NUMA cells", v);
    return TRUE;
}

/* Now, or $SOURCE_DATE_EPOCH (the reproducible-builds convention) so
 * transcripts and demos can pin the time. */
static gchar *
now_utc(void)
{
    const gchar *epoch = g_getenv("SOURCE_DATE_EPOCH");
    guint64 secs;
    g_autoptr(GDateTime) now = NULL;

    if (epoch && g_ascii_string_to_unsigned(epoch, 10, 0, G_MAXINT32, &secs, NULL))
        now = g_date_time_new_from_unix_utc((gint64)secs);
    else
        now = g_date_time_new_now_utc();
    return g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
}

static VnDomainMetadata *
build_metadata(const VnDomain *d, const VnDomainWriteCtx *c)
{
    VnDomainMetadata *m = vn_domain_metadata_new();
    const VnPlacement *p = c->p;

    m->manage = d->meta ? d->meta->manage : TRUE;
    if (d->meta) {
        m->hint_dedicated_set = d->meta->hint_dedicated_set;
        m->hint_dedicated = d->meta->hint_dedicated;
        m->hint_smt_set = d->meta->hint_smt_set;
        m->hint_smt = d->meta->hint_smt;
        m->hint_priority_set = d->meta->hint_priority_set;
        m->hint_priority = d->meta->hint_priority;
        m->hint_tiers_set = d->meta->hint_tiers_set;
        m->hint_tiers = d->meta->hint_tiers;
        m->hint_interleave = d->meta->hint_interleave;
    }
    m->has_placement = TRUE;
    m->version = g_strdup(VNUMA_VERSION);
    m->memory_mode = c->o->memory_mode;
    m->dedicated = p->dedicated;
    m->hugepage_kib = p->hugepage_kib;
    m->threads_per_core = MAX(1, p->threads_per_core);
    m->tiers = p->tiers;
    m->interleave = p->interleave;
    for (guint i = 0; i < c->n_cells; i++) {
        const VnCell *pc = &g_array_index(p->cells, VnCell, i);
        VnDomainMetaCell mc = { .id = g_array_index(c->cell_ids, guint, i),
                                .node_os_id = pc->node_os_id,
                                .vcpus = vn_bitmap_copy(c->cell_vcpus->pdata[i]),
                                .cpus = vn_bitmap_copy(pc->cpus),
                                .memory_kib = g_array_index(c->cell_memory, guint64, i) };
        g_array_append_val(m->cells, mc);
    }
    m->emulator_cpus = p->emulator_cpus ? vn_bitmap_copy(p->emulator_cpus) : NULL;
    for (guint i = 0; i < p->iothreads->len; i++) {
        const VnIOThreadPin *io = &g_array_index(p->iothreads, VnIOThreadPin, i);
        VnDomainMetaIOThread mi = { .id = g_array_index(d->iothread_ids, guint, io->id - 1),
                                    .cpus = vn_bitmap_copy(io->cpus) };
        g_array_append_val(m->iothreads, mi);
    }
    /* Same placement as recorded: keep its time, so rewriting is idempotent. */
    if (c->o->time)
        m->time = g_strdup(c->o->time);
    else if (d->meta && vn_domain_metadata_equal_placement(d->meta, m))
        m->time = g_strdup(d->meta->time);
    else
        m->time = now_utc();
    return m;
}

void
vn_domain_write_metadata(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c)
{
    static const gchar *const after[] = { "name", "uuid", "genid", "title", "description", NULL };
    g_autoptr(VnDomainMetadata) m = build_metadata(d, c);
    xmlNode *metadata = vn_domain_ensure(root, "metadata", after);
    xmlNode *old = vn_xml_child_ns(metadata, VN_DOMAIN_XMLNS, "vnuma");

    vn_domain_metadata_format_into(m, metadata, old);
    if (old)
        vn_xml_remove(old);
}

static gboolean
reload(VnDomain *d, xmlDoc *doc, GError **error)
{
    VnDomain tmp = { .doc = doc,
                     .had_declaration = d->had_declaration,
                     .single_quotes = d->single_quotes };
    g_autofree gchar *text = vn_domain_to_string(&tmp);
    g_autoptr(VnDomain) fresh = vn_domain_load_buffer(text, strlen(text), d->source, error);

    xmlFreeDoc(doc);
    if (!fresh) {
        g_prefix_error(error, "rewritten XML does not read back: ");
        return FALSE;
    }
    fresh->single_quotes = d->single_quotes; /* the input's style, not ours */
    /* swap contents so the caller's pointer stays valid */
    VnDomain swap = *d;
    *d = *fresh;
    *fresh = swap;
    return TRUE;
}

gboolean
vn_domain_apply_placement(VnDomain *d, const VnTopology *t, const VnPlacement *p,
                          const VnDomainWriteOptions *o, GError **error)
{
    static const VnDomainWriteOptions defaults = { .memory_mode = VN_MEMORY_MODE_AUTO };
    g_auto(VnDomainWriteCtx) c = { 0 };
    VnDomainWriteOptions resolved;
    xmlDoc *doc;
    xmlNode *root;

    g_return_val_if_fail(d != NULL && t != NULL && p != NULL, FALSE);
    /* the XML and the metadata carry the concrete mode, never "auto" */
    resolved = o ? *o : defaults;
    resolved.memory_mode = vn_memory_mode_resolve(resolved.memory_mode, p);
    o = &resolved;
    if (!check_placement(d, t, p, error) ||
        !check_handwritten(d, xmlDocGetRootElement(d->doc), o->force, error) ||
        !ctx_init(&c, d, t, p, o, error))
        return FALSE;
    doc = xmlCopyDoc(d->doc, 1);
    root = xmlDocGetRootElement(doc);
    vn_domain_write_metadata(root, d, &c);
    vn_domain_write_hugepages(root, d, &c);
    vn_domain_write_cputune(root, d, &c);
    vn_domain_write_numatune(root, &c);
    vn_domain_write_cpu_numa(root, d, &c);
    return reload(d, doc, error);
}
