/* vn-live-metadata.c: the applied placement written into the running
 * domain's vnuma metadata (virDomainSetMetadata, live only).
 *
 * Why: a placement planned at start exists only in the ledger, while the
 * domain's XML still carries the old one (or none).  libvirt keeps the
 * live metadata in the status XML, so with it the ledger can be rebuilt
 * (and a daemon restart re-registers the VM) from libvirt's state alone,
 * and save/restore or migration see where the VM really is.  The
 * persistent definition follows separately (vn-live-persistent.c): when
 * it records a vnuma placement it is rewritten to the applied one, so the
 * next start does not go back to the old nodes. */
#include <string.h>
#include <libvirt/virterror.h>
#include "vn-config-build.h"
#include "vn-cpulist.h"
#include "vn-domain.h"
#include "vn-live-apply.h"
#include "vn-xml-file.h"

static void
copy_hints(VnDomainMetadata *m, const VnDomainMetadata *old)
{
    if (!old)
        return;
    m->hint_dedicated_set = old->hint_dedicated_set;
    m->hint_dedicated = old->hint_dedicated;
    m->hint_smt_set = old->hint_smt_set;
    m->hint_smt = old->hint_smt;
    m->hint_priority_set = old->hint_priority_set;
    m->hint_priority = old->hint_priority;
    m->memory_mode = old->memory_mode;
    if (old->has_placement)
        m->threads_per_core = old->threads_per_core;
}

static VnDomainMetadata *
build(const VnLedgerRecord *r, const VnDomainMetadata *old, guint n_cpus)
{
    g_autoptr(VnDomainMetadata) m = vn_domain_metadata_new();
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    guint total = vn_ledger_record_vcpus(r), vcpu = 0;
    m->manage = TRUE;
    m->memory_mode = VN_MEMORY_MODE_RESTRICTIVE;
    copy_hints(m, old);
    m->has_placement = TRUE;
    m->version = g_strdup(VNUMA_VERSION);
    m->time = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
    m->dedicated = r->dedicated;
    m->hugepage_kib = r->hugepage_kib;
    for (guint i = 0; i < r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(r->cells, VnLedgerCell, i);
        VnDomainMetaCell mc = { .id = c->id,
                                .node_os_id = c->node_os_id,
                                .memory_kib = c->memory_kib };
        mc.cpus = vn_cpulist_parse(c->cpus, n_cpus, NULL);
        if (!mc.cpus)
            return NULL;
        mc.vcpus = vn_bitmap_new(MAX(total, 1));
        for (guint k = 0; k < c->vcpus; k++)
            vn_bitmap_set(mc.vcpus, vcpu++);
        g_array_append_val(m->cells, mc);
        if (i == 0)
            m->emulator_cpus = vn_cpulist_parse(c->cpus, n_cpus, NULL);
    }
    return g_steal_pointer(&m);
}

static void
set_ns_deep(xmlNode *n, xmlNs *ns)
{
    for (; n; n = n->next) {
        if (n->type != XML_ELEMENT_NODE)
            continue;
        xmlSetNs(n, ns);
        set_ns_deep(n->children, ns);
    }
}

/* libvirt binds the element to the namespace under the key ("vnuma") itself
 * and fails if that prefix is already declared: hand it over in the same
 * namespace as the default one instead (same URI, so the same names). */
static void
to_default_namespace(xmlNode *el)
{
    xmlNs *old = el->nsDef;
    el->nsDef = NULL;
    xmlNs *d = xmlNewNs(el, BAD_CAST VN_DOMAIN_XMLNS, NULL);
    xmlSetNs(el, d);
    set_ns_deep(el->children, d);
    xmlFreeNsList(old);
}

/* The current vnuma metadata of the running domain, for its hints. */
static VnDomain *
live_domain(virDomainPtr dom)
{
    g_autofree gchar *xml = NULL;
    char *raw = virDomainGetXMLDesc(dom, 0);
    if (!raw)
        return NULL;
    xml = g_strdup(raw);
    free(raw);
    return vn_domain_load_buffer(xml, strlen(xml), "live domain XML", NULL);
}

gboolean
vn_live_apply_metadata(virDomainPtr dom, const VnLedgerRecord *r, guint n_cpus, GError **error)
{
    g_autoptr(VnDomain) d = live_domain(dom);
    g_autoptr(VnDomainMetadata) m = build(r, d ? d->meta : NULL, n_cpus);
    if (!m) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_RECORD,
                    "the reservation of %s names CPUs this host lacks", r->name);
        return FALSE;
    }
    g_autoptr(xmlDoc) doc = xmlNewDoc(BAD_CAST "1.0");
    xmlNode *el = vn_domain_metadata_format(m, doc, 0, 0);
    to_default_namespace(el);
    xmlBuffer *buf = xmlBufferCreate();
    xmlNodeDump(buf, doc, el, 0, 0);
    int rc =
        virDomainSetMetadata(dom, VIR_DOMAIN_METADATA_ELEMENT, (const char *)xmlBufferContent(buf),
                             VN_DOMAIN_XMLNS_PREFIX, VN_DOMAIN_XMLNS, VIR_DOMAIN_AFFECT_LIVE);
    xmlBufferFree(buf);
    xmlFreeNode(el);
    if (rc < 0) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT,
                    "recording the placement in the live metadata: %s", virGetLastErrorMessage());
        return FALSE;
    }
    return TRUE;
}
