/* vn-hook.c: the hook's context: input, host, domain, ledger. */
#include <errno.h>
#include <unistd.h>
#include "vn-config-build.h"
#include "vn-hook.h"
#include "vn-ledger-domain.h"
#include "vn-source.h"

G_DEFINE_QUARK(vn-hook-error-quark, vn_hook_error)

static const struct {
    const gchar *op, *sub_op, *name;
} phases[VN_HOOK_PHASE_MAX] = {
    [VN_HOOK_PHASE_PREPARE] = { "prepare", "begin", "prepare" },
    [VN_HOOK_PHASE_START] = { "start", "begin", "start" },
    [VN_HOOK_PHASE_STARTED] = { "started", "begin", "started" },
    [VN_HOOK_PHASE_STOPPED] = { "stopped", "end", "stopped" },
    [VN_HOOK_PHASE_RELEASE] = { "release", "end", "release" },
    [VN_HOOK_PHASE_RECONNECT] = { "reconnect", "begin", "reconnect" },
    [VN_HOOK_PHASE_MIGRATE] = { "migrate", "begin", "migrate" },
    [VN_HOOK_PHASE_RESTORE] = { "restore", "begin", "restore" },
};

const gchar *vn_hook_phase_to_string(VnHookPhase p)
{
    g_return_val_if_fail(p < VN_HOOK_PHASE_MAX, NULL);
    return phases[p].name;
}

gboolean vn_hook_phase_from_args(const gchar *op, const gchar *sub_op,
                                 VnHookPhase *ret_phase)
{
    for (guint i = 0; i < VN_HOOK_PHASE_MAX; i++) {
        if (g_strcmp0(op, phases[i].op) == 0 && g_strcmp0(sub_op, phases[i].sub_op) == 0) {
            *ret_phase = i;
            return TRUE;
        }
    }
    return FALSE;
}

VnHook *vn_hook_new(const gchar *vm, VnHookPhase phase)
{
    VnHook *h = g_new0(VnHook, 1);
    h->vm = g_strdup(vm);
    h->phase = phase;
    h->now = g_get_real_time() / G_USEC_PER_SEC;
    h->decision = "none";
    return h;
}

void vn_hook_free(VnHook *h)
{
    if (!h)
        return;
    g_free(h->vm);
    g_free(h->xml);
    g_clear_pointer(&h->t, vn_topology_free);
    g_clear_pointer(&h->config, vn_config_free);
    g_clear_pointer(&h->domain, vn_domain_free);
    g_free(h->nodes);
    g_free(h->reason);
    g_free(h->refusal);
    g_free(h->filtered);
    g_free(h);
}

void vn_hook_decide(VnHook *h, const gchar *decision, const gchar *nodes,
                    const gchar *fmt, ...)
{
    va_list ap;
    gchar *copy = g_strdup(nodes);   /* `nodes` may be h->nodes itself */
    h->decision = decision;
    g_free(h->nodes);
    h->nodes = copy;
    g_free(h->reason);
    va_start(ap, fmt);
    h->reason = g_strdup_vprintf(fmt, ap);
    va_end(ap);
}

gboolean vn_hook_read_input(VnHook *h, int fd, GError **error)
{
    g_autoptr(GByteArray) buf = g_byte_array_new();
    guint8 chunk[65536];
    gboolean too_large = FALSE;
    for (;;) {
        gssize n = read(fd, chunk, sizeof chunk);
        if (n < 0 && errno == EINTR)
            continue;
        if (n < 0) {
            int err = errno;
            g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_INPUT,
                        "cannot read the domain XML on stdin: %s", g_strerror(err));
            return FALSE;
        }
        if (n == 0)
            break;
        if (buf->len + (gsize)n > VN_HOOK_MAX_XML)
            too_large = TRUE;      /* keep draining: libvirt is writing */
        else
            g_byte_array_append(buf, chunk, (guint)n);
    }
    if (too_large) {
        g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_INPUT,
                    "the domain XML on stdin is larger than %d bytes", VN_HOOK_MAX_XML);
        return FALSE;
    }
    h->xml_len = buf->len;
    g_byte_array_append(buf, (const guint8 *)"", 1);
    h->xml = (gchar *)g_byte_array_free(g_steal_pointer(&buf), FALSE);
    return TRUE;
}

gboolean vn_hook_load_host(VnHook *h, GError **error)
{
    VnSourceOptions none = { 0 };
    VnTopology *t = NULL;
    VnConfig *config = NULL;
    h->host_tried = TRUE;
    if (!vn_source_load(&none, &t, NULL, &config, error))
        return FALSE;
    h->t = t;
    h->config = config;
    return TRUE;
}

gboolean vn_hook_load_domain(VnHook *h, GError **error)
{
    if (!h->xml) {
        g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_INPUT, "no domain XML on stdin");
        return FALSE;
    }
    h->domain = vn_domain_load_buffer(h->xml, h->xml_len, "domain XML on stdin", error);
    return h->domain != NULL;
}

const gchar *vn_hook_state_dir(const VnHook *h)
{
    if (h->config && h->config->state_dir)
        return h->config->state_dir;
    const gchar *env = g_getenv("VNUMA_STATE_DIR");
    return env && *env ? env : VNUMA_DEFAULT_STATE_DIR;
}

const gchar *vn_hook_key(const VnHook *h)
{
    if (h->domain && h->domain->uuid)
        return h->domain->uuid;
    return h->domain ? h->domain->name : h->vm;
}

VnLedger *vn_hook_open_ledger(VnHook *h, GError **error)
{
    const gchar *dir = vn_hook_state_dir(h);
    g_autoptr(GError) local = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open(dir, &local);
    if (!l && g_error_matches(local, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT)) {
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE,
                         "MESSAGE", "ledger unreadable, rebuilding it: %s", local->message);
        l = vn_ledger_open_fresh(dir, error);
    } else if (!l) {
        g_propagate_error(error, g_steal_pointer(&local));
    }
    if (!l)
        return NULL;
    const gchar *run_dir = vn_ledger_libvirt_run_dir();
    if (vn_ledger_was_missing(l))
        vn_ledger_rebuild(l, run_dir, h->now, NULL);
    vn_ledger_reclaim(l, run_dir, h->now, VN_HOOK_RESERVED_GRACE_S, NULL);
    return g_steal_pointer(&l);
}
