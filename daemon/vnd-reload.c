/* vnd-reload.c: SIGHUP, vnuma.conf read again while the daemon runs.
 *
 * All or nothing: the file is parsed and validated into a new VnConfig by
 * the same vn_config_load() as at start, and only when that succeeds does
 * it replace the running one, in one pointer swap between two requests
 * (the daemon is single-threaded and no handler keeps the config across a
 * return to the main loop), so a request sees the old config or the new,
 * never a mix.  A file that does not load changes nothing.
 *
 * Takes effect at once: [host] (the policy), [placement], [rebalance]
 * (the sampling timer is re-armed for a new interval), [hook] and
 * [dataplane] (which the hook and vnumactl read by themselves anyway),
 * [api] idle_timeout and max_connections (for every later wait and new
 * connection), and [api] bearer_token while tcp_listen stays the same
 * (token rotation).
 * Needs a restart, and keeps its running value until then: [api] socket
 * and tcp_listen (bound listeners), [paths] state_dir (the ledger shared
 * with the hook, the unit's one writable path); bearer_token too when
 * tcp_listen changed, since it belongs to a listener not yet bound. */
#include "vnd.h"

#include <stdlib.h>
#include "vn-cpulist.h"

typedef enum {
    KIND_STRING,      /* gchar *, NULL = unset */
    KIND_UINT,
    KIND_BOOL,
    KIND_SIZE,        /* guint64 KiB */
    KIND_RATIO,       /* gdouble */
    KIND_CPUS,        /* VnBitmap * */
    KIND_MEMORY_MODE,
    KIND_HOOK_MANAGE,
    KIND_HOOK_CONFLICT,
    KIND_DATAPLANE,   /* GHashTable *: VM -> GStrv */
} Kind;

typedef enum {
    TAKES_EFFECT,
    NEEDS_RESTART,
    NEEDS_RESTART_WITH_TCP,  /* ... when [api] tcp_listen changed too */
} When;

typedef struct {
    const gchar *name;
    Kind kind;
    gboolean in_policy;   /* a member of VnPolicy, else of VnConfig */
    gsize offset;
    When when;
    gboolean terse;       /* logged as "changed": a secret, or too long */
} Setting;

#define CONFIG(m) FALSE, G_STRUCT_OFFSET(VnConfig, m)
#define POLICY(m) TRUE, G_STRUCT_OFFSET(VnPolicy, m)

static const Setting settings[] = {
    { "[host] reserved_cpus", KIND_CPUS, POLICY(reserved_cpus), TAKES_EFFECT, FALSE },
    { "[host] reserved_memory", KIND_SIZE, POLICY(reserved_memory_kib), TAKES_EFFECT, FALSE },
    { "[host] overhead_base", KIND_SIZE, POLICY(overhead_base_kib), TAKES_EFFECT, FALSE },
    { "[host] overhead_per_gib", KIND_SIZE, POLICY(overhead_per_gib_kib), TAKES_EFFECT, FALSE },
    { "[host] headroom_percent", KIND_UINT, POLICY(headroom_percent), TAKES_EFFECT, FALSE },
    { "[host] cpu_overcommit", KIND_RATIO, POLICY(cpu_overcommit), TAKES_EFFECT, FALSE },
    { "[placement] memory_mode", KIND_MEMORY_MODE, CONFIG(memory_mode), TAKES_EFFECT, FALSE },
    { "[hook] manage", KIND_HOOK_MANAGE, CONFIG(hook_manage), TAKES_EFFECT, FALSE },
    { "[hook] on_conflict", KIND_HOOK_CONFLICT, CONFIG(hook_on_conflict), TAKES_EFFECT, FALSE },
    { "[hook] strict", KIND_BOOL, CONFIG(hook_strict), TAKES_EFFECT, FALSE },
    { "[paths] state_dir", KIND_STRING, CONFIG(state_dir), NEEDS_RESTART, FALSE },
    { "[api] socket", KIND_STRING, CONFIG(api_socket), NEEDS_RESTART, FALSE },
    { "[api] tcp_listen", KIND_STRING, CONFIG(api_tcp_listen), NEEDS_RESTART, FALSE },
    { "[api] bearer_token", KIND_STRING, CONFIG(api_bearer_token), NEEDS_RESTART_WITH_TCP, TRUE },
    { "[api] idle_timeout", KIND_UINT, CONFIG(api_idle_timeout_s), TAKES_EFFECT, FALSE },
    { "[api] max_connections", KIND_UINT, CONFIG(api_max_connections), TAKES_EFFECT, FALSE },
    { "[rebalance] auto", KIND_BOOL, CONFIG(rebalance_auto), TAKES_EFFECT, FALSE },
    { "[rebalance] interval", KIND_UINT, CONFIG(rebalance_interval_s), TAKES_EFFECT, FALSE },
    { "[rebalance] hot_intervals", KIND_UINT, CONFIG(rebalance_hot_intervals), TAKES_EFFECT, FALSE },
    { "[rebalance] dataplane_repair", KIND_BOOL, CONFIG(dataplane_repair), TAKES_EFFECT, FALSE },
    { "[dataplane]", KIND_DATAPLANE, CONFIG(dataplane), TAKES_EFFECT, TRUE },
};

static gpointer
member(const Setting *s, const VnConfig *c)
{
    return G_STRUCT_MEMBER_P(s->in_policy ? (gpointer)c->policy : (gpointer)c, s->offset);
}

/* As vnuma.conf would say it: "2G", "512M", "0". */
static gchar *
format_size(guint64 kib)
{
    static const gchar suffix[] = "KMGT";
    guint i = 0;

    if (kib == 0)
        return g_strdup("0");
    while (suffix[i + 1] && kib % 1024 == 0) {
        kib /= 1024;
        i++;
    }
    return g_strdup_printf("%" G_GUINT64_FORMAT "%c", kib, suffix[i]);
}

static gint
cmp_strings(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* Sorted by VM, so equal tables give equal text. */
static gchar *
format_dataplane(GHashTable *table)
{
    guint n;
    g_autofree gpointer *vms = g_hash_table_get_keys_as_array(table, &n);
    GString *out = g_string_new(NULL);

    qsort(vms, n, sizeof(gpointer), cmp_strings);
    for (guint i = 0; i < n; i++) {
        g_autofree gchar *specs = g_strjoinv(";", g_hash_table_lookup(table, vms[i]));
        g_string_append_printf(out, "%s=%s\n", (const gchar *)vms[i], specs);
    }
    return g_string_free(out, FALSE);
}

/* The setting's value as text: two configs agree on it when the texts do. */
static gchar *
format(const Setting *s, const VnConfig *c)
{
    gpointer p = member(s, c);
    g_autofree gchar *cpus = NULL;

    switch (s->kind) {
    case KIND_STRING:
        return g_strdup(*(gchar **)p ? *(gchar **)p : "(unset)");
    case KIND_UINT:
        return g_strdup_printf("%u", *(guint *)p);
    case KIND_BOOL:
        return g_strdup(*(gboolean *)p ? "true" : "false");
    case KIND_SIZE:
        return format_size(*(guint64 *)p);
    case KIND_RATIO:
        return g_strdup_printf("%g", *(gdouble *)p);
    case KIND_CPUS:
        cpus = vn_cpulist_format(*(VnBitmap **)p);
        return g_strdup(*cpus ? cpus : "(none)");
    case KIND_MEMORY_MODE:
        return g_strdup(vn_memory_mode_to_string(*(VnMemoryMode *)p));
    case KIND_HOOK_MANAGE:
        return g_strdup(vn_hook_manage_to_string(*(VnHookManage *)p));
    case KIND_HOOK_CONFLICT:
        return g_strdup(vn_hook_conflict_to_string(*(VnHookConflict *)p));
    case KIND_DATAPLANE:
        return format_dataplane(*(GHashTable **)p);
    }
    g_return_val_if_reached(NULL);
}

static gboolean
differs(const Setting *s, const VnConfig *a, const VnConfig *b)
{
    g_autofree gchar *va = format(s, a), *vb = format(s, b);

    return !g_str_equal(va, vb);
}

/* Compares `next` (as read) with `running`: what changes goes to
 * *ret_changed ("name old -> new"), what waits for a restart to
 * *ret_kept (names), and `next` gets the running value of the latter. */
static void
compare(const VnConfig *running, VnConfig *next, GPtrArray **ret_changed, GPtrArray **ret_kept)
{
    g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GPtrArray) kept = g_ptr_array_new();
    gboolean tcp_changed = g_strcmp0(running->api_tcp_listen, next->api_tcp_listen) != 0;
    gboolean keep[G_N_ELEMENTS(settings)] = { FALSE };

    /* decide everything on the file as read, then pin */
    for (gsize i = 0; i < G_N_ELEMENTS(settings); i++) {
        const Setting *s = &settings[i];
        g_autofree gchar *was = NULL, *now = NULL;

        if (!differs(s, running, next))
            continue;
        keep[i] = s->when == NEEDS_RESTART || (s->when == NEEDS_RESTART_WITH_TCP && tcp_changed);
        if (keep[i]) {
            g_ptr_array_add(kept, (gpointer)s->name);
            continue;
        }
        was = format(s, running);
        now = format(s, next);
        g_ptr_array_add(changed, s->terse ? g_strdup_printf("%s changed", s->name)
                                          : g_strdup_printf("%s %s -> %s", s->name, was, now));
    }
    for (gsize i = 0; i < G_N_ELEMENTS(settings); i++) {
        gchar **value;
        if (!keep[i])
            continue;
        g_assert(settings[i].kind == KIND_STRING);
        value = member(&settings[i], next);
        g_free(*value);
        *value = g_strdup(*(gchar **)member(&settings[i], running));
    }
    *ret_changed = g_steal_pointer(&changed);
    *ret_kept = g_steal_pointer(&kept);
}

static gchar *
join(GPtrArray *names)
{
    g_ptr_array_add(names, NULL);
    return g_strjoinv(", ", (gchar **)names->pdata);
}

void
vnd_reload(VndDaemon *d)
{
    const VnConfig *running = vnd_state_config(d->state);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) next = vnd_state_config_read(d->state, &error);
    g_autoptr(GPtrArray) changed = NULL, kept = NULL;
    g_autofree gchar *what = NULL, *restart = NULL;
    gboolean defaults, new_interval, new_loop;

    if (!next) {
        vnd_metrics_count_reload(d->metrics, FALSE);
        /* vn_config_load()'s errors name the file, group and key */
        g_message("config reload failed, the running config stays in effect: %s", error->message);
        return;
    }
    compare(running, next, &changed, &kept);
    defaults = next->path == NULL;
    new_interval = running->rebalance_interval_s != next->rebalance_interval_s;
    new_loop = new_interval || running->rebalance_auto != next->rebalance_auto ||
               running->rebalance_hot_intervals != next->rebalance_hot_intervals;
    vnd_state_config_replace(d->state, g_steal_pointer(&next));
    running = NULL;
    if (new_interval)
        vnd_sample_arm(d);
    /* the streak counted samples taken under the old settings */
    if (new_loop)
        d->hot_streak = 0;
    vnd_metrics_count_reload(d->metrics, TRUE);
    what = changed->len ? join(changed) : g_strdup("unchanged");
    restart = kept->len ? join(kept) : NULL;
    g_message("config reloaded from %s%s: %s%s%s", vnd_state_config_file(d->state),
              defaults ? " (absent: defaults)" : "", what,
              restart ? "; needs a restart, running value kept: " : "", restart ? restart : "");
}
