/* vn-live-apply.c: pins and memory nodeset of a running domain.
 *
 * Runs detached from the hook, right after `started`: libvirt may still
 * hold the domain's start job for a moment, and any API on the domain
 * waits for it (up to 30 s, then VIR_ERR_OPERATION_TIMEOUT).  So every call
 * is retried while libvirt says the domain is busy or not running yet. */
#include <errno.h>
#include <numa.h>
#include <libvirt/virterror.h>
#include "vn-cpulist.h"
#include "vn-ledger-domain.h"
#include "vn-live-apply.h"

G_DEFINE_QUARK(vn-live-apply-error-quark, vn_live_apply_error);

typedef struct {
    virDomainPtr dom;
    const VnLedgerRecord *r;
    gint64 deadline; /* monotonic µs */
    int n_cpus;      /* host CPUs (libvirt's numbering) */
    int maplen;
    GPtrArray *log;
} Ctx;

static gboolean
libvirt_error(GError **error, const gchar *what)
{
    g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT, "%s: %s", what,
                virGetLastErrorMessage());
    return FALSE;
}

/* Busy or still starting: worth another try before the deadline. */
static gboolean
transient(const Ctx *x)
{
    virErrorPtr e = virGetLastError();
    if (!e || g_get_monotonic_time() > x->deadline)
        return FALSE;
    return e->code == VIR_ERR_OPERATION_TIMEOUT;
}

/* Running: go.  Shut off, crashed, or gone: give up at once (the domain
 * stopped before we came).  Anything else (paused while starting, a busy
 * job): wait until the deadline. */
static gboolean
wait_running(Ctx *x, GError **error)
{
    for (;;) {
        int state = 0, reason = 0;
        if (virDomainGetState(x->dom, &state, &reason, 0) < 0) {
            if (!transient(x))
                return libvirt_error(error, "reading the domain state");
        } else if (state == VIR_DOMAIN_RUNNING) {
            return TRUE;
        } else if (state == VIR_DOMAIN_SHUTOFF || state == VIR_DOMAIN_CRASHED ||
                   state == VIR_DOMAIN_SHUTDOWN) {
            g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_TIMEOUT,
                        "domain %s is not running", x->r->name);
            return FALSE;
        }
        if (g_get_monotonic_time() > x->deadline) {
            g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_TIMEOUT,
                        "domain %s did not reach the running state", x->r->name);
            return FALSE;
        }
        g_usleep(200 * 1000);
    }
}

/* A cpumap of `cpus` (a cpulist); NULL + error if a CPU is not the host's. */
static guchar *
cpumap_new(const Ctx *x, const gchar *cpus, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(VnBitmap) b = vn_cpulist_parse(cpus, (guint)x->n_cpus, &local);
    if (!b || vn_bitmap_is_empty(b)) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_RECORD,
                    "CPUs \"%s\" are not usable on this host: %s", cpus,
                    local ? local->message : "empty set");
        return NULL;
    }
    guchar *map = g_malloc0(x->maplen);
    VN_BITMAP_FOREACH (b, cpu)
        VIR_USE_CPU(map, cpu);
    return map;
}

/* The `k`-th CPU of `cpus` as a one-CPU list (dedicated pins). */
static gchar *
nth_cpu(const Ctx *x, const gchar *cpus, guint k)
{
    g_autoptr(VnBitmap) b = vn_cpulist_parse(cpus, (guint)x->n_cpus, NULL);
    guint i = 0;
    if (b) {
        VN_BITMAP_FOREACH (b, cpu) {
            if (i++ == k % vn_bitmap_count(b))
                return g_strdup_printf("%d", cpu);
        }
    }
    return g_strdup(cpus);
}

static gboolean
pin_vcpu(Ctx *x, guint vcpu, const gchar *cpus, GError **error)
{
    g_autofree guchar *map = cpumap_new(x, cpus, error);
    if (!map)
        return FALSE;
    while (virDomainPinVcpuFlags(x->dom, vcpu, map, x->maplen, VIR_DOMAIN_AFFECT_LIVE) < 0) {
        if (!transient(x)) {
            g_autofree gchar *what = g_strdup_printf("pinning vCPU %u to %s", vcpu, cpus);
            return libvirt_error(error, what);
        }
        g_usleep(500 * 1000);
    }
    g_ptr_array_add(x->log, g_strdup_printf("vcpu %u -> CPUs %s", vcpu, cpus));
    return TRUE;
}

static gboolean
pin_vcpus(Ctx *x, GError **error)
{
    guint vcpu = 0;
    for (guint i = 0; i < x->r->cells->len; i++) {
        const VnLedgerCell *c = &g_array_index(x->r->cells, VnLedgerCell, i);
        for (guint k = 0; k < c->vcpus; k++, vcpu++) {
            /* a vCPU's own pin when the cell records one (guest dies) */
            const gchar *own = vn_ledger_cell_vcpu_pin(c, k);
            g_autofree gchar *cpus = own               ? g_strdup(own)
                                     : x->r->dedicated ? nth_cpu(x, c->cpus, k)
                                                       : g_strdup(c->cpus);
            if (!pin_vcpu(x, vcpu, cpus, error))
                return FALSE;
        }
    }
    return TRUE;
}

static gboolean
pin_emulator(Ctx *x, const gchar *cpus, GError **error)
{
    g_autofree guchar *map = cpumap_new(x, cpus, error);
    if (!map)
        return FALSE;
    while (virDomainPinEmulator(x->dom, map, x->maplen, VIR_DOMAIN_AFFECT_LIVE) < 0) {
        if (!transient(x))
            return libvirt_error(error, "pinning the emulator");
        g_usleep(500 * 1000);
    }
    g_ptr_array_add(x->log, g_strdup_printf("emulator -> CPUs %s", cpus));
    return TRUE;
}

/* IOThreads follow the emulator; a failure here is reported, not fatal. */
static void
pin_iothreads(Ctx *x, const gchar *cpus)
{
    virDomainIOThreadInfoPtr *info = NULL;
    int n = virDomainGetIOThreadInfo(x->dom, &info, VIR_DOMAIN_AFFECT_LIVE);
    g_autofree guchar *map = cpumap_new(x, cpus, NULL);
    for (int i = 0; i < n; i++) {
        guint id = info[i]->iothread_id;
        if (map && virDomainPinIOThread(x->dom, id, map, x->maplen, VIR_DOMAIN_AFFECT_LIVE) == 0)
            g_ptr_array_add(x->log, g_strdup_printf("iothread %u -> CPUs %s", id, cpus));
        else
            g_ptr_array_add(x->log, g_strdup_printf("iothread %u not pinned: %s", id,
                                                    virGetLastErrorMessage()));
        virDomainIOThreadInfoFree(info[i]);
    }
    free(info);
}

/* The QEMU process of the domain, from libvirt's pid file. */
static pid_t
qemu_pid(const Ctx *x)
{
    g_autofree gchar *file = g_strconcat(x->r->name, ".pid", NULL);
    g_autofree gchar *path = g_build_filename(vn_ledger_libvirt_run_dir(), file, NULL);
    g_autofree gchar *text = NULL;
    if (!g_file_get_contents(path, &text, NULL, NULL))
        return 0;
    gint64 pid = g_ascii_strtoll(text, NULL, 10);
    return pid > 1 && pid < G_MAXINT ? (pid_t)pid : 0;
}

/* libvirt would not change the nodeset (strict mode): move the pages that
 * are already there with migrate_pages(2).  The domain's own policy stays
 * as it was, so memory it allocates later may land elsewhere; the log says
 * so. */
static void
migrate_pages_fallback(Ctx *x, const gchar *nodes)
{
    pid_t pid = qemu_pid(x);
    struct bitmask *to = numa_available() < 0 ? NULL : numa_parse_nodestring(nodes);
    if (!pid || !to) {
        g_ptr_array_add(x->log,
                        g_strdup_printf("pages not migrated: %s",
                                        pid ? "libnuma cannot use the nodes" : "no QEMU pid file"));
        if (to)
            numa_bitmask_free(to);
        return;
    }
    int left = numa_migrate_pages(pid, numa_all_nodes_ptr, to);
    if (left < 0)
        g_ptr_array_add(x->log, g_strdup_printf("migrate_pages(%d -> %s) failed: %s", (int)pid,
                                                nodes, g_strerror(errno)));
    else
        g_ptr_array_add(x->log, g_strdup_printf("existing pages migrated to node(s) %s with "
                                                "migrate_pages(2), %d not moved; new "
                                                "allocations follow the domain's own policy",
                                                nodes, left));
    numa_bitmask_free(to);
}

/* Memory follows live only in restrictive mode (or without <numatune>);
 * otherwise the pages are migrated once and the log says so. */
static void
set_nodeset(Ctx *x)
{
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(x->r);
    virTypedParameterPtr params = NULL;
    int n = 0, max = 0;
    if (virTypedParamsAddString(&params, &n, &max, VIR_DOMAIN_NUMA_NODESET, nodes) == 0 &&
        virDomainSetNumaParameters(x->dom, params, n, VIR_DOMAIN_AFFECT_LIVE) == 0) {
        g_ptr_array_add(x->log, g_strdup_printf("memory nodeset -> %s", nodes));
    } else {
        g_ptr_array_add(x->log, g_strdup_printf("memory nodeset not changed live (%s): %s", nodes,
                                                virGetLastErrorMessage()));
        migrate_pages_fallback(x, nodes);
    }
    virTypedParamsFree(params, n);
}

/* After the live steps: the persistent definition follows; a failure is
 * a warning, never the apply's. */
static void
follow_persistent(Ctx *x, const VnLiveApplyHost *host, gchar **ret_warning)
{
    g_autoptr(GError) error = NULL;
    gchar *line = NULL;
    gchar *warning;

    if (ret_warning)
        *ret_warning = NULL;
    if (vn_live_apply_persistent(x->dom, x->r, host, &line, &error)) {
        g_ptr_array_add(x->log, line);
        return;
    }
    warning =
        g_strdup_printf("persistent definition of %s not updated: %s", x->r->name, error->message);
    if (ret_warning)
        *ret_warning = warning;
    else
        g_ptr_array_add(x->log, warning);
}

gboolean
vn_live_apply(virDomainPtr dom, const VnLedgerRecord *r, guint timeout_s,
              const VnLiveApplyHost *host, GPtrArray *ret_log, gchar **ret_warning, GError **error)
{
    Ctx x = { .dom = dom,
              .r = r,
              .log = ret_log,
              .deadline = g_get_monotonic_time() + (gint64)timeout_s * G_USEC_PER_SEC };
    if (r->cells->len == 0) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_RECORD,
                    "the reservation of %s has no cells", r->name);
        return FALSE;
    }
    x.n_cpus = virNodeGetCPUMap(virDomainGetConnect(dom), NULL, NULL, 0);
    if (x.n_cpus <= 0)
        return libvirt_error(error, "reading the host's CPUs");
    x.maplen = VIR_CPU_MAPLEN(x.n_cpus);
    const gchar *first = g_array_index(r->cells, VnLedgerCell, 0).cpus;
    if (!wait_running(&x, error) || !pin_vcpus(&x, error) || !pin_emulator(&x, first, error))
        return FALSE;
    pin_iothreads(&x, first);
    set_nodeset(&x);
    g_autoptr(GError) meta_error = NULL;
    if (vn_live_apply_metadata(dom, r, (guint)x.n_cpus, &meta_error))
        g_ptr_array_add(x.log, g_strdup("placement recorded in the live metadata"));
    else
        g_ptr_array_add(x.log, g_strdup(meta_error->message));
    follow_persistent(&x, host, ret_warning);
    return TRUE;
}
