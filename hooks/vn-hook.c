/* vn-hook.c: the hook's context: input, host, domain, ledger. */
#include <errno.h>
#include <unistd.h>
#include "vn-config-build.h"
#include "vn-hook.h"
#include "vn-ledger-domain.h"
#include "vn-distances.h"
#include "vn-topology-cache.h"
#include "vn-topology-source.h"

G_DEFINE_QUARK(vn-hook-error-quark, vn_hook_error);

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

const gchar *
vn_hook_phase_to_string(VnHookPhase p)
{
    g_return_val_if_fail(p < VN_HOOK_PHASE_MAX, NULL);
    return phases[p].name;
}

gboolean
vn_hook_phase_from_args(const gchar *op, const gchar *sub_op, VnHookPhase *ret_phase)
{
    for (guint i = 0; i < VN_HOOK_PHASE_MAX; i++) {
        if (g_strcmp0(op, phases[i].op) == 0 && g_strcmp0(sub_op, phases[i].sub_op) == 0) {
            *ret_phase = i;
            return TRUE;
        }
    }
    return FALSE;
}

VnHook *
vn_hook_new(const gchar *vm, VnHookPhase phase)
{
    VnHook *h = g_new0(VnHook, 1);
    h->vm = g_strdup(vm);
    h->phase = phase;
    h->now = g_get_real_time() / G_USEC_PER_SEC;
    h->decision = "none";
    return h;
}

void
vn_hook_free(VnHook *h)
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

void
vn_hook_decide(VnHook *h, const gchar *decision, const gchar *nodes, const gchar *fmt, ...)
{
    va_list ap;
    gchar *copy = g_strdup(nodes); /* `nodes` may be h->nodes itself */
    h->decision = decision;
    g_free(h->nodes);
    h->nodes = copy;
    g_free(h->reason);
    va_start(ap, fmt);
    h->reason = g_strdup_vprintf(fmt, ap);
    va_end(ap);
}

gboolean
vn_hook_read_input(VnHook *h, int fd, GError **error)
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
            too_large = TRUE; /* keep draining: libvirt is writing */
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

/* The cache lives where the ledger does by default; the config (which
 * could name another state dir) needs a topology to be read, so the cache
 * cannot wait for it. */
static gchar *
topology_cache_path(void)
{
    const gchar *env = g_getenv("VNUMA_STATE_DIR");
    return g_build_filename(env && *env ? env : VNUMA_DEFAULT_STATE_DIR, VN_TOPOLOGY_CACHE_FILE,
                            NULL);
}

/* $VNUMA_TOPOLOGY or the live host, through the cache: discovery of a big
 * host costs more than the rest of a hook run.  A cache that cannot be
 * read or written only costs the discovery.  The file is imported in a
 * child process (vn_topology_load_isolated()): a file that crashes hwloc
 * is an error like any other, and the hook fails open. */
static VnTopology *
load_topology(const gchar *file, GError **error)
{
    g_autofree gchar *key = vn_topology_cache_key(file);
    g_autofree gchar *path = topology_cache_path();
    VnTopology *t = key ? vn_topology_cache_load(path, key, NULL) : NULL;
    if (t)
        return t;
    t = file ? vn_topology_load_isolated(vn_topology_load_hwloc_xml, file, file, error)
             : vn_topology_load_live(error);
    if (t && key) {
        g_autofree gchar *dir = g_path_get_dirname(path);
        if (g_mkdir_with_parents(dir, 0755) == 0)
            vn_topology_cache_save(t, path, key, NULL);
    }
    return t;
}

gboolean
vn_hook_load_host(VnHook *h, GError **error)
{
    const gchar *file = g_getenv("VNUMA_TOPOLOGY");
    h->host_tried = TRUE;
    if (file && !*file)
        file = NULL;
    g_autoptr(VnTopology) t = load_topology(file, error);
    /* the live host's free memory and hugepages are read fresh every time */
    if (!t || (!file && !vn_topology_read_sysfs_memory(t, "/", error)))
        return FALSE;
    VnConfig *config = vn_config_load(NULL, t, error);
    if (!config)
        return FALSE;
    /* [topology] distances, as vnumactl and vnumad apply it (the saved
     * probe is this host's: a hwloc file under test keeps its own) */
    vn_distances_apply(t, config, !file, "/");
    h->t = g_steal_pointer(&t);
    h->config = config;
    return TRUE;
}

gboolean
vn_hook_load_domain(VnHook *h, GError **error)
{
    if (!h->xml) {
        g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_INPUT, "no domain XML on stdin");
        return FALSE;
    }
    h->domain = vn_domain_load_buffer(h->xml, h->xml_len, "domain XML on stdin", error);
    return h->domain != NULL;
}

const gchar *
vn_hook_state_dir(const VnHook *h)
{
    if (h->config && h->config->state_dir)
        return h->config->state_dir;
    const gchar *env = g_getenv("VNUMA_STATE_DIR");
    return env && *env ? env : VNUMA_DEFAULT_STATE_DIR;
}

const gchar *
vn_hook_key(const VnHook *h)
{
    if (h->domain && h->domain->uuid)
        return h->domain->uuid;
    return h->domain ? h->domain->name : h->vm;
}

VnLedger *
vn_hook_open_ledger(VnHook *h, GPtrArray **ret_reclaimed, GError **error)
{
    g_autofree gchar *set_aside = NULL;
    g_autoptr(VnLedger) l =
        vn_ledger_open_setting_aside(vn_hook_state_dir(h), h->now, &set_aside, error);
    if (!l)
        return NULL;
    if (set_aside)
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_MESSAGE, "MESSAGE",
                         "ledger unreadable, rebuilding it: %s", set_aside);
    const gchar *run_dir = vn_ledger_libvirt_run_dir();
    if (vn_ledger_was_missing(l))
        vn_ledger_rebuild(l, run_dir, h->now, NULL);
    vn_ledger_reclaim(l, run_dir, h->now, VN_HOOK_RESERVED_GRACE_S, ret_reclaimed);
    return g_steal_pointer(&l);
}
