/* vn-dataplane-follow.c: a running domain's vhost workers and configured
 * data-plane processes steered to its placement.
 *
 * The vhost workers of a domain with a multi-queue interface
 * (<driver name='vhost' queues='N'/> in libvirt's status XML) are dealt one
 * CPU each as vn_vhost_plan() says, over its cells' CPUs when it is
 * shared, over its nodes' CPUs that no dedicated VM owns and the host does
 * not keep when it is dedicated (the ledger and [host] reserved_cpus say
 * which); the other domains' follow the emulator, as before.
 *
 * Every step is tried even when one before it failed: a vanished or
 * misconfigured data-plane process must not keep the vhost workers (or
 * another process) where they were.  Each step's outcome is one or more
 * lines, prefixed with what was steered. */
#include "vn-dataplane.h"

#include <stdarg.h>

#include "vn-cpulist.h"
#include "vn-ledger-domain.h"
#include "vn-numa-maps.h"
#include "vn-vhost-plan.h"

/* Node ids are below this in any Linux (MAX_NUMNODES is 1 << 10). */
#define MAX_NODES 1024

typedef struct {
    const VnLedgerRecord *r;
    const VnConfig *c;
    VnDataplaneSteerFlags flags; /* DRIFTED_ONLY: drift repair */
    VnBitmap *emulator_cpus;     /* the first cell's CPUs */
    VnBitmap *cpus;              /* every cell's CPUs */
    VnBitmap *nodes;             /* every cell's node */
    GPtrArray *log;
    GPtrArray *failed_log; /* repair: failures apart; NULL: into `log` */
    GHashTable *kthreads;  /* vhost kthreads of every QEMU, or NULL */
    guint failed;
} Follow;

static void
follow_clear(Follow *f)
{
    g_clear_pointer(&f->emulator_cpus, vn_bitmap_free);
    g_clear_pointer(&f->cpus, vn_bitmap_free);
    g_clear_pointer(&f->nodes, vn_bitmap_free);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(Follow, follow_clear)

static gboolean
follow_init(Follow *f, GError **error)
{
    f->cpus = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);
    f->nodes = vn_bitmap_new(MAX_NODES);
    for (guint i = 0; i < f->r->cells->len; i++) {
        const VnLedgerCell *cell = &g_array_index(f->r->cells, VnLedgerCell, i);
        g_autoptr(VnBitmap) cpus = vn_cpulist_parse(cell->cpus, VN_DATAPLANE_MAX_CPUS, NULL);

        if (!cpus || vn_bitmap_is_empty(cpus) || cell->node_os_id >= MAX_NODES) {
            g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                        "cell %u of %s: CPUs \"%s\" on node %u cannot be steered to", cell->id,
                        f->r->name, cell->cpus, cell->node_os_id);
            return FALSE;
        }
        if (i == 0)
            f->emulator_cpus = vn_bitmap_copy(cpus);
        vn_bitmap_or(f->cpus, cpus);
        vn_bitmap_set(f->nodes, cell->node_os_id);
    }
    if (!f->emulator_cpus) {
        g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                    "the reservation of %s has no cells", f->r->name);
        return FALSE;
    }
    return TRUE;
}

/* Moves `lines` into the log, each prefixed. */
static void
take_lines(Follow *f, const gchar *prefix, GPtrArray *lines)
{
    for (guint i = 0; i < lines->len; i++)
        g_ptr_array_add(
            f->log, g_strdup_printf("%s: %s", prefix, (const gchar *)g_ptr_array_index(lines, i)));
}

static gboolean
repairing(const Follow *f)
{
    return (f->flags & VN_DATAPLANE_STEER_DRIFTED_ONLY) != 0;
}

/* A failed step's line, in the failures when they are kept apart. */
static void G_GNUC_PRINTF(2, 3) failure(Follow *f, const gchar *fmt, ...)
{
    va_list args;

    va_start(args, fmt);
    g_ptr_array_add(f->failed_log ? f->failed_log : f->log, g_strdup_vprintf(fmt, args));
    va_end(args);
    f->failed++;
}

static void
step_failed(Follow *f, const gchar *prefix, const GError *error)
{
    failure(f, "%s: not steered: %s", prefix, error->message);
}

/* Steers `ids` and logs under `prefix`; counts a refusal. */
static void
steer_logged(Follow *f, const gchar *prefix, const GArray *ids, gboolean whole_process,
             const VnBitmap *cpus, const VnBitmap *nodes)
{
    g_autoptr(GPtrArray) lines = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    gboolean ok = vn_dataplane_steer_full(ids, whole_process, cpus, nodes, f->flags, lines, &error);

    take_lines(f, prefix, lines);
    if (!ok)
        step_failed(f, prefix, error);
}

/* The domain's QEMU pid, from libvirt's pid file. */
static gboolean
qemu_pid(const Follow *f, gint64 *ret_pid, GError **error)
{
    const gchar *run_dir = vn_ledger_libvirt_run_dir();
    /* a relative run dir ($VNUMA_LIBVIRT_RUN_DIR in tests) is relative to
     * the working directory, not to "/" */
    const gchar *root = g_path_is_absolute(run_dir) ? NULL : ".";

    return vn_numa_maps_domain_pid(root, run_dir, f->r->name, ret_pid, error);
}

/* A path in libvirt's run dir, as qemu_pid() reads it. */
static gchar *
run_dir_file(const Follow *f, const gchar *suffix)
{
    g_autofree gchar *file = g_strdup_printf("%s%s", f->r->name, suffix);

    return g_build_filename(vn_ledger_libvirt_run_dir(), file, NULL);
}

/* Whether an interface of the running domain asks for more than one
 * vhost queue; FALSE too when its status XML cannot be read. */
static gboolean
multiqueue(const Follow *f)
{
    g_autofree gchar *path = run_dir_file(f, ".xml");
    g_autoptr(VnDomain) d =
        g_file_test(path, G_FILE_TEST_EXISTS) ? vn_ledger_load_status_xml(path, NULL) : NULL;

    for (guint i = 0; d && i < d->devices->len; i++)
        if (((const VnDomainDevice *)d->devices->pdata[i])->vhost_queues > 1)
            return TRUE;
    return FALSE;
}

/* The CPUs of the domain's nodes, from sysfs; NULL when one is not
 * readable (then the plan keeps to the cells' CPUs). */
static VnBitmap *
node_cpus(const Follow *f)
{
    g_autoptr(VnBitmap) all = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);

    VN_BITMAP_FOREACH (f->nodes, node) {
        g_autofree gchar *path = g_strdup_printf("/sys/devices/system/node/node%d/cpulist", node);
        g_autofree gchar *text = NULL;
        g_autoptr(VnBitmap) cpus = NULL;

        if (!g_file_get_contents(path, &text, NULL, NULL) ||
            !(cpus = vn_cpulist_parse(g_strstrip(text), VN_DATAPLANE_MAX_CPUS, NULL)))
            return NULL;
        vn_bitmap_or(all, cpus);
    }
    return g_steal_pointer(&all);
}

/* Every CPU a dedicated running VM owns (this one's included) and the
 * reserved host CPUs. */
static VnBitmap *
taken_cpus(const Follow *f)
{
    g_autoptr(VnLedger) snap = vn_ledger_snapshot(f->c->state_dir, NULL);
    VnBitmap *taken = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);
    GPtrArray *records = snap ? vn_ledger_records(snap) : NULL;

    vn_bitmap_or(taken, f->c->policy->reserved_cpus);
    if (f->r->dedicated)
        vn_bitmap_or(taken, f->cpus);
    for (guint i = 0; records && i < records->len; i++) {
        const VnLedgerRecord *r = records->pdata[i];
        if (!r->dedicated || r->state != VN_LEDGER_STATE_RUNNING)
            continue;
        for (guint k = 0; k < r->cells->len; k++) {
            g_autoptr(VnBitmap) cpus = vn_cpulist_parse(
                g_array_index(r->cells, VnLedgerCell, k).cpus, VN_DATAPLANE_MAX_CPUS, NULL);
            if (cpus)
                vn_bitmap_or(taken, cpus);
        }
    }
    return taken;
}

static gint
cmp_tid(gconstpointer a, gconstpointer b)
{
    pid_t x = *(const pid_t *)a, y = *(const pid_t *)b;

    return x < y ? -1 : x > y;
}

/* A multi-queue domain's workers, one CPU each as vn_vhost_plan() says. */
static void
spread_vhost(Follow *f, const GArray *tids)
{
    g_autoptr(VnBitmap) nodes = f->r->dedicated ? node_cpus(f) : NULL;
    g_autoptr(VnBitmap) taken = taken_cpus(f);
    g_autoptr(GArray) sorted = g_array_copy((GArray *)tids);
    g_autoptr(VnVhostPlan) p = NULL;

    /* worker i in ascending thread id: the order they were started in */
    g_array_sort(sorted, cmp_tid);
    p = vn_vhost_plan(sorted->len, f->cpus, nodes, f->r->dedicated, taken);

    if (!repairing(f)) {
        g_autofree gchar *pool = vn_cpulist_format(p->pool);
        for (guint i = 0; i < p->reasons->len; i++)
            g_ptr_array_add(f->log, g_strdup_printf("vhost workers: %s (CPUs %s)",
                                                    (const gchar *)p->reasons->pdata[i], pool));
    }
    for (guint i = 0; i < sorted->len; i++) {
        g_autoptr(GArray) one = g_array_new(FALSE, FALSE, sizeof(pid_t));
        g_autoptr(VnBitmap) cpu = vn_bitmap_new(VN_DATAPLANE_MAX_CPUS);

        g_array_append_val(one, g_array_index(sorted, pid_t, i));
        vn_bitmap_set(cpu, g_array_index(p->cpus, guint, i));
        steer_logged(f, "vhost worker", one, FALSE, cpu, NULL);
    }
}

/* vhost workers follow the emulator (the CPUs libvirt pins it to), or,
 * with several queues, are spread. */
static void
follow_vhost(Follow *f)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) tids = NULL;
    gint64 pid = 0;

    if (!qemu_pid(f, &pid, &error) ||
        !(tids = f->kthreads
                     ? vn_dataplane_vhost_threads_indexed("/", (pid_t)pid, f->kthreads, &error)
                     : vn_dataplane_vhost_threads("/", (pid_t)pid, &error))) {
        step_failed(f, "vhost workers", error);
        return;
    }
    if (tids->len == 0 && repairing(f))
        return;
    if (tids->len == 0) {
        g_ptr_array_add(f->log,
                        g_strdup_printf("vhost workers: none in QEMU %" G_GINT64_FORMAT, pid));
        return;
    }
    /* one worker has nothing to spread: no status XML to parse */
    if (tids->len > 1 && multiqueue(f))
        spread_vhost(f, tids);
    else
        steer_logged(f, "vhost worker", tids, FALSE, f->emulator_cpus, NULL);
}

static void
follow_spec(Follow *f, const VnConfig *c, const gchar *spec)
{
    g_autofree gchar *prefix = g_strdup_printf("data plane %s", spec);
    guint users = vn_config_dataplane_users(c, spec);
    g_autoptr(GError) error = NULL;
    g_autoptr(GArray) pids = NULL;

    if (users > 1 && repairing(f))
        return;
    if (users > 1) {
        g_ptr_array_add(f->log, g_strdup_printf("%s: shared by %u VMs in [dataplane], "
                                                "not steered",
                                                prefix, users));
        return;
    }
    pids = vn_dataplane_resolve(spec, NULL, &error);
    if (!pids) {
        /* the message starts with the spec already */
        failure(f, "data plane %s; not steered", error->message);
        return;
    }
    steer_logged(f, prefix, pids, TRUE, f->cpus, f->nodes);
}

/* Every step, each tried whatever the ones before it did. */
static void
follow_all(Follow *f, const VnConfig *c)
{
    const gchar *const *specs = vn_config_dataplane_specs(c, f->r->name);

    follow_vhost(f);
    for (guint i = 0; specs && specs[i]; i++)
        follow_spec(f, c, specs[i]);
}

gboolean
vn_dataplane_follow(const VnLedgerRecord *r, const VnConfig *c, GPtrArray *ret_log, GError **error)
{
    g_auto(Follow) f = { .r = r, .c = c, .log = ret_log };

    g_return_val_if_fail(r != NULL && c != NULL && ret_log != NULL, FALSE);
    if (!follow_init(&f, error))
        return FALSE;
    follow_all(&f, c);
    if (f.failed > 0) {
        g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_STEER,
                    "data path of %s: %u step(s) failed", r->name, f.failed);
        return FALSE;
    }
    return TRUE;
}

gboolean
vn_dataplane_repair(const VnLedgerRecord *r, const VnConfig *c, GHashTable *vhost_kthreads,
                    GPtrArray *ret_resteered, GPtrArray *ret_failed, GError **error)
{
    g_auto(Follow) f = { .r = r,
                         .c = c,
                         .flags = VN_DATAPLANE_STEER_DRIFTED_ONLY,
                         .log = ret_resteered,
                         .failed_log = ret_failed,
                         .kthreads = vhost_kthreads };
    gint64 pid = 0;

    g_return_val_if_fail(r != NULL && c != NULL, FALSE);
    g_return_val_if_fail(ret_resteered != NULL && ret_failed != NULL, FALSE);
    if (!follow_init(&f, error))
        return FALSE;
    /* not running (any more, or yet): nothing of it to keep in place */
    if (!qemu_pid(&f, &pid, NULL))
        return TRUE;
    follow_all(&f, c);
    return TRUE;
}
