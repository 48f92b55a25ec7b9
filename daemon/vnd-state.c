/* vnd-state.c: the host the daemon plans for, and its current load.
 *
 * The topology is read once at start; the config at start and again on
 * SIGHUP (vnd-reload.c decides what of it may change), from the file
 * remembered as an absolute path, since a detached daemon runs in /.
 *
 * The load is rebuilt only when something it depends on changed:
 * ledger.json (the hook and the daemon replace it atomically, so a new
 * inode/mtime/size means new content), a new measurement, or a new
 * config (its policy shapes the load).
 * That keeps a plan request at one stat() plus the plan itself.
 *
 * Unlike `vnumactl plan --topology`, the daemon always counts the ledger of
 * its state directory, whatever the topology source: the daemon serves
 * one host, and a fixture topology stands in for it in tests. */
#include "vnd.h"

#include <string.h>
#include <sys/stat.h>
#include "vn-config-build.h"
#include "vn-history.h"
#include "vn-host-load.h"
#include "vn-topology-source.h"

struct _VndState {
    VnTopology *topology;
    VnConfig *config;
    gchar *config_path; /* absolute; NULL = the default lookup */
    gchar *sysroot;     /* NULL = "/" */
    gchar *load_file;
    gboolean live;         /* the real host: measure it */
    VnCpuSnapshot *last;   /* previous /proc/stat reading (live) */
    gdouble *busy;         /* measured CPU busy per node index, < 0 unknown */
    VnLoad *load;          /* cached; NULL = rebuild */
    GStrv source_args;     /* the options again, for vnumactl children */
    struct stat ledger_st; /* ledger.json when `load` was built */
    guint64 generation;    /* ledger.json's generation when `load` was built */
    gboolean ledger_seen;
};

const VnTopology *
vnd_state_topology(const VndState *s)
{
    return s->topology;
}
const VnConfig *
vnd_state_config(const VndState *s)
{
    return s->config;
}
const gchar *
vnd_state_sysroot(const VndState *s)
{
    return s->sysroot;
}

gboolean
vnd_state_measured(const VndState *s)
{
    return s->live || s->sysroot;
}
gboolean
vnd_state_live(const VndState *s)
{
    return s->live;
}
const gchar *const *
vnd_state_source_args(const VndState *s)
{
    return (const gchar *const *)s->source_args;
}

/* Absolute paths: a child runs wherever, and the daemon chdir()s to /. */
static GStrv
source_args(const VnSourceOptions *o)
{
    const struct {
        const gchar *flag, *value;
        gboolean path;
    } opts[] = {
        { "--topology", o->topology_file, TRUE },    { "--synthetic", o->synthetic, FALSE },
        { "--capabilities", o->capabilities, TRUE }, { "--load", o->load_file, TRUE },
        { "--config", o->config_file, TRUE },        { "--sysroot", o->sysroot, TRUE },
    };
    g_autoptr(GStrvBuilder) b = g_strv_builder_new();

    for (gsize i = 0; i < G_N_ELEMENTS(opts); i++) {
        g_autofree gchar *abs = NULL;
        if (!opts[i].value)
            continue;
        abs = opts[i].path ? g_canonicalize_filename(opts[i].value, NULL) : g_strdup(opts[i].value);
        g_strv_builder_add(b, opts[i].flag);
        g_strv_builder_add(b, abs);
    }
    return g_strv_builder_end(b);
}

void
vnd_state_free(VndState *s)
{
    if (!s)
        return;
    vn_topology_free(s->topology);
    vn_config_free(s->config);
    g_free(s->config_path);
    g_free(s->sysroot);
    g_free(s->load_file);
    vn_cpu_snapshot_free(s->last);
    g_free(s->busy);
    vn_load_free(s->load);
    g_strfreev(s->source_args);
    g_free(s);
}

/* The real host, as vn_source_load() decides it: no topology source, no
 * --sysroot (which alone is a captured host, topology included), no
 * $VNUMA_TOPOLOGY. */
static gboolean
is_live(const VnSourceOptions *o)
{
    const gchar *env = g_getenv("VNUMA_TOPOLOGY");

    return vn_source_is_this_host(o) && !(env && *env);
}

/* A capture without proc/stat has no CPU counters: busy stays unknown,
 * logged once and said in the topology's source, as vnumactl says it. */
static gboolean
has_cpu_counters(VndState *s)
{
    g_autofree gchar *stat = NULL;
    g_autofree gchar *old = NULL;

    if (s->live)
        return TRUE;
    stat = g_build_filename(s->sysroot, "proc", "stat", NULL);
    if (g_file_test(stat, G_FILE_TEST_EXISTS))
        return TRUE;
    g_message("CPU busy unknown: no %s", stat);
    old = g_steal_pointer(&s->topology->source);
    s->topology->source = g_strdup_printf("%s; CPU busy unknown: no %s", old, stat);
    return FALSE;
}

const gchar *
vnd_state_config_file(const VndState *s)
{
    return s->config_path ? s->config_path : VNUMA_DEFAULT_CONFIG;
}

/* The file vn_source_load() read the config from, as vn_config_load()
 * looks for it: --config, else $VNUMA_CONFIG, else (NULL) the default,
 * whose absence means defaults. */
static gchar *
config_path(const VnSourceOptions *o)
{
    const gchar *env = g_getenv("VNUMA_CONFIG");
    const gchar *path = o->config_file ? o->config_file : env && *env ? env : NULL;

    return path ? g_canonicalize_filename(path, NULL) : NULL;
}

VnConfig *
vnd_state_config_read(const VndState *s, GError **error)
{
    return vn_config_load(s->config_path, s->topology, error);
}

void
vnd_state_config_replace(VndState *s, VnConfig *config)
{
    g_return_if_fail(config != NULL);
    vn_config_free(s->config);
    s->config = config;
    /* the policy (reserved CPUs, overhead) shapes the ledger's load */
    vnd_state_invalidate(s);
}

/* CPU busy into s->busy: since the last reading, or since boot. */
static void
measure_busy(VndState *s)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnCpuSnapshot) now = vn_cpu_snapshot_read(s->sysroot, &error);
    g_autoptr(VnLoad) tmp = NULL;

    if (!now) {
        g_warning("CPU busy not measured: %s", error->message);
        return;
    }
    tmp = vn_load_new(s->topology);
    vn_host_cpu_busy_compute(s->topology, s->live ? s->last : NULL, now, tmp);
    for (guint i = 0; i < s->topology->n_nodes; i++)
        s->busy[i] = tmp->nodes[i].cpu_busy;
    if (s->live) {
        vn_cpu_snapshot_free(s->last);
        s->last = g_steal_pointer(&now);
    }
}

VndState *
vnd_state_new(const VnSourceOptions *o, GError **error)
{
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;
    VndState *s;

    if (!vn_source_load(o, &t, NULL, &config, error))
        return NULL;
    s = g_new0(VndState, 1);
    s->topology = g_steal_pointer(&t);
    s->config = g_steal_pointer(&config);
    s->config_path = config_path(o);
    /* absolute: a detached daemon runs in / */
    s->sysroot = o->sysroot ? g_canonicalize_filename(o->sysroot, NULL) : NULL;
    s->load_file = o->load_file ? g_canonicalize_filename(o->load_file, NULL) : NULL;
    s->live = is_live(o);
    s->source_args = source_args(o);
    s->busy = g_new(gdouble, s->topology->n_nodes);
    for (guint i = 0; i < s->topology->n_nodes; i++)
        s->busy[i] = -1.0;
    if ((s->live || s->sysroot) && has_cpu_counters(s))
        measure_busy(s);
    return s;
}

void
vnd_state_sample(VndState *s)
{
    g_autoptr(GError) error = NULL;

    if (!s->live)
        return;
    measure_busy(s);
    if (!vn_topology_read_sysfs_memory(s->topology, s->sysroot ? s->sysroot : "/", &error))
        g_warning("free memory not measured: %s", error->message);
    vnd_state_invalidate(s);
}

void
vnd_state_invalidate(VndState *s)
{
    g_clear_pointer(&s->load, vn_load_free);
}

/* Measured busy, the ledger's VMs and the --load file, as vnumactl
 * counts them (vn_source_add_committed()). */
VnLoad *
vnd_state_load_with_ledger(VndState *s, const VnLedger *ledger)
{
    g_autoptr(GError) error = NULL;
    VnLoad *load = vn_load_new(s->topology);

    for (guint i = 0; i < s->topology->n_nodes; i++)
        load->nodes[i].cpu_busy = s->busy[i];
    /* the file was readable at start; keep planning without it */
    if (!vn_source_add_committed(s->topology, s->config->policy, ledger, s->load_file, load,
                                 &error))
        g_warning("%s", error->message);
    return load;
}

static gboolean
ledger_changed(VndState *s, struct stat *ret_st)
{
    g_autofree gchar *path = g_build_filename(s->config->state_dir, "ledger.json", NULL);
    gboolean seen = stat(path, ret_st) == 0;

    if (!seen)
        memset(ret_st, 0, sizeof(*ret_st));
    if (seen != s->ledger_seen)
        return TRUE;
    return ret_st->st_ino != s->ledger_st.st_ino || ret_st->st_size != s->ledger_st.st_size ||
           ret_st->st_mtim.tv_sec != s->ledger_st.st_mtim.tv_sec ||
           ret_st->st_mtim.tv_nsec != s->ledger_st.st_mtim.tv_nsec ||
           ret_st->st_ctim.tv_nsec != s->ledger_st.st_ctim.tv_nsec;
}

const VnLoad *
vnd_state_load(VndState *s, GError **error)
{
    struct stat st;
    g_autoptr(VnLedger) ledger = NULL;

    if (ledger_changed(s, &st))
        vnd_state_invalidate(s);
    if (s->load)
        return s->load;
    ledger = vnd_ledger_snapshot(s->config->state_dir, error);
    if (!ledger)
        return NULL;
    s->load = vnd_state_load_with_ledger(s, ledger);
    s->generation = vn_ledger_generation(ledger);
    s->ledger_st = st;
    s->ledger_seen = st.st_ino != 0;
    return s->load;
}

guint64
vnd_state_generation(const VndState *s)
{
    return s->generation;
}

void
vnd_state_history(VndState *s, const gchar *vm, const gchar *phase, const gchar *decision,
                  const gchar *nodes, const gchar *reason)
{
    g_autoptr(GDateTime) now = g_date_time_new_now_utc();
    g_autofree gchar *time = g_date_time_format(now, "%Y-%m-%dT%H:%M:%SZ");
    g_autoptr(VnHistoryEntry) e =
        vn_history_entry_new(time, vm, phase, decision, nodes ? nodes : "", reason ? reason : "");
    g_autoptr(GError) error = NULL;

    if (!vn_history_append(s->config->state_dir, e, &error))
        g_debug("history not written: %s", error->message);
}
