/* vn-live-persistent.c: after a live apply, the domain's persistent
 * definition rewritten to the applied placement (vn-live-apply.h).
 *
 * The decision (which definition follows, what is written) is the
 * engine's, vn_engine_follow_record(); here only the libvirt calls: the
 * inactive XML read with its secrets (VIR_DOMAIN_XML_INACTIVE |
 * VIR_DOMAIN_XML_SECURE, so defining it again loses nothing) and defined
 * again, validated, as `vnumactl place` defines it.  Defining a running
 * domain changes only what its next start uses. */
#include <string.h>
#include <libvirt/virterror.h>
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-live-apply.h"

static gboolean
libvirt_failed(GError **error, const gchar *what)
{
    g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT, "%s: %s", what,
                virGetLastErrorMessage());
    return FALSE;
}

static VnDomain *
inactive_domain(virDomainPtr dom, const gchar *name, GError **error)
{
    g_autofree gchar *what = g_strdup_printf("%s (persistent definition)", name);
    g_autofree gchar *xml = NULL;
    char *raw = virDomainGetXMLDesc(dom, VIR_DOMAIN_XML_INACTIVE | VIR_DOMAIN_XML_SECURE);

    if (!raw) {
        libvirt_failed(error, "reading the persistent definition");
        return NULL;
    }
    xml = g_strdup(raw);
    free(raw);
    return vn_domain_load_buffer(xml, strlen(xml), what, error);
}

static gboolean
define(virDomainPtr dom, const VnDomain *d, GError **error)
{
    g_autofree gchar *xml = vn_domain_to_string(d);
    virDomainPtr defined =
        virDomainDefineXMLFlags(virDomainGetConnect(dom), xml, VIR_DOMAIN_DEFINE_VALIDATE);

    if (!defined)
        return libvirt_failed(error, "defining the rewritten definition");
    virDomainFree(defined);
    return TRUE;
}

gboolean
vn_live_apply_persistent(virDomainPtr dom, const VnLedgerRecord *r, const VnLiveApplyHost *host,
                         gchar **ret_line, GError **error)
{
    g_autoptr(VnDomain) d = NULL;
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    VnEngineFollow outcome;
    int persistent = virDomainIsPersistent(dom);

    if (persistent < 0)
        return libvirt_failed(error, "asking whether the domain is persistent");
    if (persistent == 0) {
        *ret_line = g_strdup("transient domain: no persistent definition to follow");
        return TRUE;
    }
    if (!host || !host->t) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_RECORD,
                    "the host's topology is unknown%s%s", host && host->why ? ": " : "",
                    host && host->why ? host->why : "");
        return FALSE;
    }
    if (!(d = inactive_domain(dom, r->name, error)) ||
        !vn_engine_follow_record(d, host->t, r, host->memory_mode, &outcome, error))
        return FALSE;
    switch (outcome) {
    case VN_ENGINE_FOLLOW_REWRITTEN:
        if (!define(dom, d, error))
            return FALSE;
        *ret_line = g_strdup_printf("persistent definition rewritten: node(s) %s from its next "
                                    "start",
                                    nodes);
        return TRUE;
    case VN_ENGINE_FOLLOW_UNCHANGED:
        *ret_line = g_strdup_printf("persistent definition records node(s) %s already", nodes);
        return TRUE;
    default:
        *ret_line = g_strdup("persistent definition left alone: it records no vnuma placement "
                             "(the hook places it at each start)");
        return TRUE;
    }
}
