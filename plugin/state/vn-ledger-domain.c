/* vn-ledger-domain.c: ledger records from domains and status XML. */
#include <libxml/tree.h>
#include "vn-cpulist.h"
#include "vn-ledger-domain.h"
#include "vn-xml-file.h"

const gchar *
vn_ledger_libvirt_run_dir(void)
{
    const gchar *dir = g_getenv("VNUMA_LIBVIRT_RUN_DIR");
    return dir && *dir ? dir : VN_LIBVIRT_RUN_DIR;
}

VnLedgerRecord *
vn_ledger_record_from_metadata(const gchar *uuid, const gchar *name, const VnDomainMetadata *meta)
{
    g_return_val_if_fail(meta && meta->has_placement, NULL);
    VnLedgerRecord *r = vn_ledger_record_new(uuid ? uuid : name, name);
    r->dedicated = meta->dedicated;
    r->hugepage_kib = meta->hugepage_kib;
    r->priority = meta->hint_priority_set ? meta->hint_priority : VN_PRIORITY_NORMAL;
    r->whole = meta->interleave || meta->tiers == VN_TIERS_SPILL;
    for (guint i = 0; meta->cells && i < meta->cells->len; i++) {
        const VnDomainMetaCell *c = &g_array_index(meta->cells, VnDomainMetaCell, i);
        g_autofree gchar *cpus = c->cpus ? vn_cpulist_format(c->cpus) : g_strdup("");
        vn_ledger_record_add_cell(r, c->id, c->node_os_id, c->vcpus ? vn_bitmap_count(c->vcpus) : 0,
                                  cpus, c->memory_kib);
    }
    return r;
}

static gboolean
within(const VnBitmap *b, const VnBitmap *set)
{
    g_autoptr(VnBitmap) rest = vn_bitmap_copy(b);

    vn_bitmap_and_not(rest, set);
    return vn_bitmap_is_empty(rest);
}

/* The cell's vCPU pins from the domain's own <vcpupin>s (the metadata
 * keeps each cell's CPUs only): recorded in the cell when every vCPU of
 * it has one inside the cell's CPUs and they are finer than the cell. */
static void
pins_from_domain(VnLedgerRecord *r, guint index, const VnDomain *d, const VnDomainMetaCell *mc)
{
    g_autoptr(GPtrArray) pins = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    g_autoptr(GPtrArray) domain_pins = NULL;

    if (!mc->vcpus || !mc->cpus)
        return;
    domain_pins = vn_domain_vcpupins(d, mc->vcpus->n_bits, mc->cpus->n_bits);
    VN_BITMAP_FOREACH (mc->vcpus, v) {
        VnBitmap *pin = g_steal_pointer(&domain_pins->pdata[v]);
        if (!pin || vn_bitmap_is_empty(pin) || !within(pin, mc->cpus)) {
            vn_bitmap_free(pin);
            return;
        }
        g_ptr_array_add(pins, pin);
    }
    if (pins->len == g_array_index(r->cells, VnLedgerCell, index).vcpus && pins->len > 0)
        vn_ledger_record_set_cell_pins(r, index, pins);
}

VnLedgerRecord *
vn_ledger_record_from_domain(const VnDomain *d)
{
    VnLedgerRecord *r = vn_ledger_record_from_metadata(d->uuid, d->name, d->meta);

    if (r && d->allowed_cpus)
        r->allowed_cpus = vn_cpulist_format(d->allowed_cpus);
    for (guint i = 0; r && i < d->meta->cells->len && i < r->cells->len; i++)
        pins_from_domain(r, i, d, &g_array_index(d->meta->cells, VnDomainMetaCell, i));
    return r;
}

gboolean
vn_ledger_record_within(const VnLedgerRecord *r, const VnBitmap *set)
{
    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        g_autoptr(VnBitmap) cpus = vn_cpulist_parse(c->cpus, set->n_bits, NULL);
        if (!cpus)
            return FALSE;
        vn_bitmap_and_not(cpus, set);
        if (!vn_bitmap_is_empty(cpus))
            return FALSE;
    }
    return TRUE;
}

VnLedgerRecord *
vn_ledger_record_from_placement(const gchar *uuid, const gchar *name, const VnPlacement *p,
                                const VnRequest *req)
{
    VnLedgerRecord *r = vn_ledger_record_new(uuid ? uuid : name, name);
    r->dedicated = p->dedicated;
    r->hugepage_kib = p->hugepage_kib;
    r->priority = req->priority;
    r->allowed_cpus = req->allowed_cpus ? vn_cpulist_format(req->allowed_cpus) : NULL;
    r->whole = !vn_placement_has_guest_cells(p);
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        g_autofree gchar *cpus = vn_cpulist_format(c->cpus);
        g_autoptr(GPtrArray) pins = g_ptr_array_new();
        vn_ledger_record_add_cell(r, c->id, c->node_os_id, c->n_vcpus, cpus, c->memory_kib);
        for (guint v = c->vcpu_first; v < c->vcpu_first + c->n_vcpus && v < p->vcpu_pins->len; v++)
            g_ptr_array_add(pins, g_ptr_array_index(p->vcpu_pins, v));
        /* the cell's CPUs stay as planned: its pins only add each vCPU's own */
        if (pins->len == c->n_vcpus && pins->len > 0) {
            vn_ledger_record_set_cell_pins(r, i, pins);
            VnLedgerCell *lc = &g_array_index(r->cells, VnLedgerCell, i);
            g_free(lc->cpus);
            lc->cpus = g_steal_pointer(&cpus);
        }
    }
    return r;
}

/* The node index holding most of `cpus`, -1 when none does. */
static gint
main_node(const VnTopology *t, const VnBitmap *cpus)
{
    gint best = -1;
    guint most = 0;

    for (guint n = 0; n < t->n_nodes; n++) {
        g_autoptr(VnBitmap) on = vn_bitmap_copy(t->nodes[n].cpus);
        vn_bitmap_and(on, cpus);
        guint k = vn_bitmap_count(on);
        if (k > most) {
            most = k;
            best = (gint)n;
        }
    }
    return best;
}

/* Adds `kib` split evenly over the nodes of `nodes` (kernel numbers) that
 * `t` has; FALSE when it has none of them. */
static gboolean
spread_memory(const VnTopology *t, const VnBitmap *nodes, guint64 kib, guint64 *per_node)
{
    g_autoptr(GArray) idx = g_array_new(FALSE, FALSE, sizeof(guint));

    for (guint n = 0; n < t->n_nodes; n++)
        if (t->nodes[n].os_id < nodes->n_bits && vn_bitmap_test(nodes, t->nodes[n].os_id))
            g_array_append_val(idx, n);
    for (guint i = 0; i < idx->len; i++)
        per_node[g_array_index(idx, guint, i)] += kib / idx->len + (i < kib % idx->len ? 1 : 0);
    return idx->len > 0;
}

static guint64
cell_memory_kib(const VnDomain *d, guint cell_id)
{
    for (guint i = 0; i < d->cells->len; i++)
        if (g_array_index(d->cells, VnDomainCell, i).id == cell_id)
            return g_array_index(d->cells, VnDomainCell, i).memory_kib;
    return 0;
}

VnLedgerRecord *
vn_ledger_record_from_pins(const gchar *uuid, const gchar *name, const VnDomain *d,
                           const VnDomainPins *pins, const VnTopology *t)
{
    g_autofree guint *vcpus = g_new0(guint, t->n_nodes);
    g_autofree guint64 *memory = g_new0(guint64, t->n_nodes);
    g_autoptr(GPtrArray) cpus = g_ptr_array_new_with_free_func((GDestroyNotify)vn_bitmap_free);
    g_autoptr(VnBitmap) owned = vn_bitmap_new(t->n_cpu_ids);
    gboolean dedicated = pins->vcpu_cpus->len > 0;
    guint placed_vcpus = 0;
    guint64 rest = d->memory_kib;

    for (guint n = 0; n < t->n_nodes; n++)
        g_ptr_array_add(cpus, vn_bitmap_new(t->n_cpu_ids));
    for (guint v = 0; v < pins->vcpu_cpus->len; v++) {
        const VnBitmap *own = g_ptr_array_index(pins->vcpu_cpus, v);
        const VnBitmap *where = own ? own : pins->vcpu_set;
        gint n = where ? main_node(t, where) : -1;
        dedicated =
            dedicated && own && vn_bitmap_count(own) == 1 && !vn_bitmap_intersects(owned, own);
        if (own)
            vn_bitmap_or(owned, own);
        if (n < 0)
            continue;
        g_autoptr(VnBitmap) on = vn_bitmap_copy(t->nodes[n].cpus);
        vn_bitmap_and(on, where);
        vn_bitmap_or(g_ptr_array_index(cpus, n), on);
        vcpus[n]++;
        placed_vcpus++;
    }
    for (guint i = 0; i < pins->memnodes->len; i++) {
        const VnDomainPinsMemnode *m = &g_array_index(pins->memnodes, VnDomainPinsMemnode, i);
        guint64 kib = MIN(cell_memory_kib(d, m->cell_id), rest);
        if (spread_memory(t, m->nodes, kib, memory))
            rest -= kib;
    }
    if (rest && pins->memory_nodes && spread_memory(t, pins->memory_nodes, rest, memory))
        rest = 0;
    for (guint n = 0; rest && placed_vcpus && n < t->n_nodes; n++)
        memory[n] += rest * vcpus[n] / placed_vcpus;

    VnLedgerRecord *r = vn_ledger_record_new(uuid ? uuid : name, name);
    r->foreign = TRUE;
    r->dedicated = dedicated;
    r->hugepage_kib = d->hugepages ? d->hugepage_kib : 0;
    for (guint n = 0; n < t->n_nodes; n++) {
        if (!vcpus[n] && !memory[n])
            continue;
        g_autofree gchar *list = vn_cpulist_format(g_ptr_array_index(cpus, n));
        vn_ledger_record_add_cell(r, r->cells->len, t->nodes[n].os_id, vcpus[n], list, memory[n]);
    }
    if (r->cells->len == 0)
        g_clear_pointer(&r, vn_ledger_record_free);
    return r;
}

static xmlNode *
first_element(xmlNode *n, const gchar *name)
{
    for (; n; n = n->next)
        if (n->type == XML_ELEMENT_NODE && xmlStrcmp(n->name, BAD_CAST name) == 0)
            return n;
    return NULL;
}

VnDomain *
vn_ledger_load_status_xml(const gchar *path, GError **error)
{
    g_autoptr(xmlDoc) doc = vn_xml_file_read(path, error);
    if (!doc)
        return NULL;
    xmlNode *root = xmlDocGetRootElement(doc);
    xmlNode *dom = root && xmlStrcmp(root->name, BAD_CAST "domstatus") == 0
                       ? first_element(root->children, "domain")
                       : root;
    if (!dom || xmlStrcmp(dom->name, BAD_CAST "domain") != 0) {
        g_set_error(error, VN_DOMAIN_ERROR, VN_DOMAIN_ERROR_INVALID,
                    "%s: neither <domstatus><domain> nor <domain>", path);
        return NULL;
    }
    xmlBuffer *buf = xmlBufferCreate();
    xmlNodeDump(buf, doc, dom, 0, 0);
    VnDomain *d = vn_domain_load_buffer((const gchar *)xmlBufferContent(buf),
                                        (gsize)xmlBufferLength(buf), path, error);
    xmlBufferFree(buf);
    return d;
}

static gboolean
rebuild_one(VnLedger *l, const gchar *path, gint64 now, GError **error)
{
    g_autoptr(VnDomain) d = vn_ledger_load_status_xml(path, error);
    if (!d)
        return FALSE;
    if (!d->meta || !d->meta->has_placement)
        return TRUE;
    if (vn_ledger_lookup(l, d->uuid ? d->uuid : d->name))
        return TRUE;
    VnLedgerRecord *r = vn_ledger_record_from_domain(d);
    r->state = VN_LEDGER_STATE_RUNNING;
    r->time = now;
    vn_ledger_put(l, r);
    return TRUE;
}

guint
vn_ledger_rebuild(VnLedger *l, const gchar *run_dir, gint64 now, GPtrArray **ret_skipped)
{
    g_autoptr(GPtrArray) skipped = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GDir) dir = g_dir_open(run_dir, 0, NULL);
    guint before = vn_ledger_records(l)->len;
    const gchar *name;
    while (dir && (name = g_dir_read_name(dir))) {
        if (!g_str_has_suffix(name, ".xml"))
            continue;
        g_autofree gchar *path = g_build_filename(run_dir, name, NULL);
        g_autoptr(GError) err = NULL;
        if (!rebuild_one(l, path, now, &err))
            g_ptr_array_add(skipped, g_strdup(err->message));
    }
    if (ret_skipped)
        *ret_skipped = g_steal_pointer(&skipped);
    return vn_ledger_records(l)->len - before;
}
