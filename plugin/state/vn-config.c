/* vn-config.c: vnuma.conf through GKeyFile.  Each key has a small reader
 * that validates it and names file, group and key in its error. */
#include "vn-config.h"

#include <gio/gio.h>
#include <stdarg.h>
#include <string.h>
#include "vn-config-build.h"
#include "vn-cpulist.h"
#include "vn-dataplane-spec.h"
#include "vn-size.h"

G_DEFINE_QUARK(vn-config-error-quark, vn_config_error)

#define VN_CONFIG_MAX_HEADROOM 90
#define VN_CONFIG_MAX_OVERCOMMIT 64.0

static const gchar *const hook_manage_names[] = { "opted-in", "all", "none", NULL };
static const gchar *const hook_conflict_names[] = { "replan", "refuse", "ignore", NULL };
G_STATIC_ASSERT(G_N_ELEMENTS(hook_manage_names) == VN_HOOK_MANAGE_MAX + 1);
G_STATIC_ASSERT(G_N_ELEMENTS(hook_conflict_names) == VN_HOOK_CONFLICT_MAX + 1);

static gint
name_index(const gchar *const *names, const gchar *s)
{
    for (gint i = 0; s && names[i]; i++)
        if (g_str_equal(names[i], s))
            return i;
    return -1;
}

const gchar *
vn_hook_manage_to_string(VnHookManage m)
{
    g_return_val_if_fail(m < VN_HOOK_MANAGE_MAX, NULL);
    return hook_manage_names[m];
}

gint vn_hook_manage_from_string(const gchar *s) { return name_index(hook_manage_names, s); }

const gchar *
vn_hook_conflict_to_string(VnHookConflict c)
{
    g_return_val_if_fail(c < VN_HOOK_CONFLICT_MAX, NULL);
    return hook_conflict_names[c];
}

gint vn_hook_conflict_from_string(const gchar *s) { return name_index(hook_conflict_names, s); }

static void
apply_state_dir_env(VnConfig *c)
{
    const gchar *env = g_getenv("VNUMA_STATE_DIR");

    if (env && *env) {
        g_free(c->state_dir);
        c->state_dir = g_strdup(env);
    }
}

VnConfig *
vn_config_new_default(const VnTopology *t)
{
    VnConfig *c = g_new0(VnConfig, 1);

    c->policy = vn_policy_new_default(t);
    c->memory_mode = VN_MEMORY_MODE_AUTO;
    c->hook_manage = VN_HOOK_MANAGE_OPTED_IN;
    c->hook_on_conflict = VN_HOOK_CONFLICT_REPLAN;
    c->hook_strict = FALSE;
    c->state_dir = g_strdup(VNUMA_DEFAULT_STATE_DIR);
    c->api_idle_timeout_s = 30;
    c->api_max_connections = 128;
    c->rebalance_auto = FALSE;
    c->rebalance_interval_s = 10;
    c->rebalance_hot_intervals = 3;
    c->dataplane_repair = TRUE;
    c->dataplane = g_hash_table_new_full(g_str_hash, g_str_equal, g_free,
                                         (GDestroyNotify)g_strfreev);
    apply_state_dir_env(c);
    return c;
}

void
vn_config_free(VnConfig *c)
{
    if (!c)
        return;
    g_free(c->path);
    vn_policy_free(c->policy);
    g_free(c->state_dir);
    g_free(c->api_socket);
    g_free(c->api_tcp_listen);
    g_free(c->api_bearer_token);
    g_clear_pointer(&c->dataplane, g_hash_table_unref);
    g_free(c);
}

/* ---- validation helpers ---- */

static const struct {
    const gchar *group;
    const gchar *key;
} known_keys[] = {
    { "host", "reserved_cpus" },
    { "host", "reserved_memory" },
    { "host", "overhead_base" },
    { "host", "overhead_per_gib" },
    { "host", "headroom_percent" },
    { "host", "cpu_overcommit" },
    { "placement", "memory_mode" },
    { "placement", "balance" },
    { "hook", "manage" },
    { "hook", "on_conflict" },
    { "hook", "strict" },
    { "paths", "state_dir" },
    { "api", "socket" },
    { "api", "tcp_listen" },
    { "api", "bearer_token" },
    { "api", "idle_timeout" },
    { "api", "max_connections" },
    { "rebalance", "auto" },
    { "rebalance", "interval" },
    { "rebalance", "hot_intervals" },
    { "rebalance", "dataplane_repair" },
    { "dataplane", NULL },   /* any key: the keys are domain names */
};

static gboolean
known(const gchar *group, const gchar *key)
{
    for (gsize i = 0; i < G_N_ELEMENTS(known_keys); i++)
        if (g_str_equal(known_keys[i].group, group) &&
            (!key || !known_keys[i].key || g_str_equal(known_keys[i].key, key)))
            return TRUE;
    return FALSE;
}

static gboolean
check_known(GKeyFile *kf, const gchar *path, GError **error)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

    for (guint g = 0; groups[g]; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[g], NULL, NULL);

        if (!known(groups[g], NULL)) {
            g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_UNKNOWN,
                        "%s: unknown group [%s]", path, groups[g]);
            return FALSE;
        }
        for (guint k = 0; keys && keys[k]; k++) {
            if (!known(groups[g], keys[k])) {
                g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_UNKNOWN,
                            "%s: [%s] unknown key \"%s\"", path, groups[g], keys[k]);
                return FALSE;
            }
        }
    }
    return TRUE;
}

static gboolean G_GNUC_PRINTF(5, 6)
bad_value(GError **error, const gchar *path, const gchar *group,
          const gchar *key, const gchar *fmt, ...)
{
    g_autofree gchar *what = NULL;
    va_list args;

    va_start(args, fmt);
    what = g_strdup_vprintf(fmt, args);
    va_end(args);
    g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID,
                "%s: [%s] %s: %s", path, group, key, what);
    return FALSE;
}

/* ---- one reader per kind of value; an absent key leaves *ret alone ---- */

/* The key's text with escapes resolved, or NULL (and TRUE) when absent. */
static gboolean
get_text(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
         gchar **ret_text, GError **error)
{
    g_autoptr(GError) local = NULL;
    gchar *text;

    *ret_text = NULL;
    if (!g_key_file_has_key(kf, group, key, NULL))
        return TRUE;
    text = g_key_file_get_string(kf, group, key, &local);
    if (!text)
        return bad_value(error, path, group, key, "%s", local->message);
    *ret_text = g_strstrip(text);
    return TRUE;
}

/* A size; "0" is allowed here (nothing reserved, no overhead). */
static gboolean
read_size(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
          guint64 *ret_kib, GError **error)
{
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    guint64 kib = 0;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    if (!g_str_equal(text, "0") && !vn_size_parse_kib(text, &kib, &local))
        return bad_value(error, path, group, key, "%s", local->message);
    *ret_kib = kib;
    return TRUE;
}

static gboolean
read_cpus(GKeyFile *kf, const gchar *path, const VnTopology *t,
          VnBitmap *ret_cpus, GError **error)
{
    const gchar *group = "host", *key = "reserved_cpus";
    g_autofree gchar *text = NULL;
    g_autoptr(VnBitmap) cpus = NULL;
    g_autoptr(GError) local = NULL;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text || !*text)
        return TRUE;
    cpus = vn_cpulist_parse(text, t->n_cpu_ids, &local);
    if (!cpus)
        return bad_value(error, path, group, key, "%s", local->message);
    VN_BITMAP_FOREACH(cpus, cpu) {
        if (!vn_topology_cpu(t, cpu))
            return bad_value(error, path, group, key,
                             "no CPU %d on this host (%s)", cpu, t->source);
    }
    vn_bitmap_or(ret_cpus, cpus);
    return TRUE;
}

/* A whole number within [min, max]. */
static gboolean
read_uint(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
          guint min, guint max, guint *ret_value, GError **error)
{
    g_autofree gchar *text = NULL;
    guint64 v;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    if (!g_ascii_string_to_unsigned(text, 10, min, max, &v, NULL))
        return bad_value(error, path, group, key,
                         "\"%s\" is not a whole number from %u to %u", text, min, max);
    *ret_value = (guint)v;
    return TRUE;
}

static gboolean
read_ratio(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
           gdouble *ret_ratio, GError **error)
{
    g_autofree gchar *text = NULL;
    gchar *end = NULL;
    gdouble v;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    v = g_ascii_strtod(text, &end);
    if (end == text || *end != '\0' || !(v > 0.0 && v <= VN_CONFIG_MAX_OVERCOMMIT))
        return bad_value(error, path, group, key,
                         "\"%s\" is not a number above 0 and at most %g",
                         text, VN_CONFIG_MAX_OVERCOMMIT);
    *ret_ratio = v;
    return TRUE;
}

static gboolean
read_choice(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
            const gchar *const *names, guint *ret_choice, GError **error)
{
    g_autofree gchar *text = NULL;
    g_autofree gchar *choices = NULL;
    gint v;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    v = name_index(names, text);
    if (v < 0) {
        choices = g_strjoinv(", ", (gchar **) names);
        return bad_value(error, path, group, key,
                         "\"%s\" is not one of %s", text, choices);
    }
    *ret_choice = (guint) v;
    return TRUE;
}

static gboolean
read_bool(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
          gboolean *ret_value, GError **error)
{
    g_autofree gchar *text = NULL;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    /* GKeyFile's own words for booleans. */
    if (!g_str_equal(text, "true") && !g_str_equal(text, "false") &&
        !g_str_equal(text, "1") && !g_str_equal(text, "0"))
        return bad_value(error, path, group, key,
                         "\"%s\" is not true or false", text);
    *ret_value = g_str_equal(text, "true") || g_str_equal(text, "1");
    return TRUE;
}

static gboolean
read_dir(GKeyFile *kf, const gchar *path, const gchar *group, const gchar *key,
         gchar **ret_dir, GError **error)
{
    g_autofree gchar *text = NULL;

    if (!get_text(kf, path, group, key, &text, error))
        return FALSE;
    if (!text)
        return TRUE;
    if (!g_path_is_absolute(text))
        return bad_value(error, path, group, key,
                         "\"%s\" is not an absolute path", text);
    g_free(*ret_dir);
    *ret_dir = g_steal_pointer(&text);
    return TRUE;
}

/* ---- the file ---- */

static gboolean
read_host(GKeyFile *kf, const gchar *path, const VnTopology *t, VnPolicy *p,
          GError **error)
{
    return read_cpus(kf, path, t, p->reserved_cpus, error) &&
           read_size(kf, path, "host", "reserved_memory", &p->reserved_memory_kib, error) &&
           read_size(kf, path, "host", "overhead_base", &p->overhead_base_kib, error) &&
           read_size(kf, path, "host", "overhead_per_gib", &p->overhead_per_gib_kib, error) &&
           read_uint(kf, path, "host", "headroom_percent", 0, VN_CONFIG_MAX_HEADROOM,
                     &p->headroom_percent, error) &&
           read_ratio(kf, path, "host", "cpu_overcommit", &p->cpu_overcommit, error);
}

static gboolean
read_modes(GKeyFile *kf, const gchar *path, VnConfig *c, GError **error)
{
    guint mode = c->memory_mode, manage = c->hook_manage, conflict = c->hook_on_conflict;
    guint balance = c->policy->balance;

    if (!read_choice(kf, path, "placement", "memory_mode", vn_memory_mode_names(), &mode, error) ||
        !read_choice(kf, path, "placement", "balance", vn_balance_names(), &balance, error) ||
        !read_choice(kf, path, "hook", "manage", hook_manage_names, &manage, error) ||
        !read_choice(kf, path, "hook", "on_conflict", hook_conflict_names, &conflict, error) ||
        !read_bool(kf, path, "hook", "strict", &c->hook_strict, error) ||
        !read_dir(kf, path, "paths", "state_dir", &c->state_dir, error))
        return FALSE;
    c->memory_mode = mode;
    c->policy->balance = balance;
    c->hook_manage = manage;
    c->hook_on_conflict = conflict;
    return TRUE;
}

/* [api] tcp_listen: a literal IP and a port, "127.0.0.1:8470" or
 * "[::1]:8470"; a TCP listener needs a bearer token.  max_connections
 * stops at 512: each connection, and each of the up to 32 refused ones
 * being answered, holds a descriptor, and 1024 is the usual limit. */
static gboolean
read_api(GKeyFile *kf, const gchar *path, VnConfig *c, GError **error)
{
    g_autofree gchar *tcp = NULL, *token = NULL;

    if (!read_dir(kf, path, "api", "socket", &c->api_socket, error) ||
        !get_text(kf, path, "api", "tcp_listen", &tcp, error) ||
        !get_text(kf, path, "api", "bearer_token", &token, error) ||
        !read_uint(kf, path, "api", "idle_timeout", 1, 3600, &c->api_idle_timeout_s, error) ||
        !read_uint(kf, path, "api", "max_connections", 1, 512, &c->api_max_connections, error))
        return FALSE;
    if (tcp && *tcp) {
        g_autoptr(GSocketConnectable) addr = g_network_address_parse(tcp, 0, NULL);
        guint16 port = addr ? g_network_address_get_port(G_NETWORK_ADDRESS(addr)) : 0;
        const gchar *host = addr ? g_network_address_get_hostname(G_NETWORK_ADDRESS(addr)) : NULL;
        if (!port || !host || !g_hostname_is_ip_address(host))
            return bad_value(error, path, "api", "tcp_listen",
                             "\"%s\" is not IP:PORT (such as 127.0.0.1:8470)", tcp);
        if (!token || strlen(token) < 16 || strpbrk(token, " \t"))
            return bad_value(error, path, "api", "bearer_token",
                             "required with tcp_listen: at least 16 characters, no spaces");
        c->api_tcp_listen = g_steal_pointer(&tcp);
    }
    if (token && *token)
        c->api_bearer_token = g_steal_pointer(&token);
    return TRUE;
}

/* [dataplane] VM = SPEC;SPEC...: every spec well formed, none twice. */
static gboolean
read_dataplane_vm(GKeyFile *kf, const gchar *path, const gchar *vm, GHashTable *table,
                  GError **error)
{
    g_autofree gchar *text = NULL;
    g_auto(GStrv) parts = NULL;
    g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func(g_free);

    if (!get_text(kf, path, "dataplane", vm, &text, error))
        return FALSE;
    parts = g_strsplit(text, ";", -1);
    for (guint i = 0; parts[i]; i++) {
        const gchar *spec = g_strstrip(parts[i]);
        g_autofree gchar *value = NULL;
        g_autoptr(GError) local = NULL;
        VnDataplaneSpecKind kind;

        if (!*spec)
            continue;
        if (!vn_dataplane_spec_parse(spec, &kind, &value, &local))
            return bad_value(error, path, "dataplane", vm, "%s", local->message);
        if (g_ptr_array_find_with_equal_func(specs, spec, g_str_equal, NULL))
            return bad_value(error, path, "dataplane", vm, "%s named twice", spec);
        g_ptr_array_add(specs, g_strdup(spec));
    }
    if (specs->len == 0)
        return bad_value(error, path, "dataplane", vm,
                         "no data-plane process (pidfile:/PATH or unit:NAME.service)");
    g_ptr_array_add(specs, NULL);
    g_hash_table_replace(table, g_strdup(vm), g_ptr_array_free(g_steal_pointer(&specs), FALSE));
    return TRUE;
}

static gboolean
read_dataplane(GKeyFile *kf, const gchar *path, VnConfig *c, GError **error)
{
    g_auto(GStrv) vms = g_key_file_get_keys(kf, "dataplane", NULL, NULL);

    for (guint i = 0; vms && vms[i]; i++)
        if (!read_dataplane_vm(kf, path, vms[i], c->dataplane, error))
            return FALSE;
    return TRUE;
}

const gchar *const *
vn_config_dataplane_specs(const VnConfig *c, const gchar *vm)
{
    g_return_val_if_fail(c != NULL && vm != NULL, NULL);
    return g_hash_table_lookup(c->dataplane, vm);
}

guint
vn_config_dataplane_users(const VnConfig *c, const gchar *spec)
{
    GHashTableIter it;
    gpointer specs;
    guint n = 0;

    g_return_val_if_fail(c != NULL && spec != NULL, 0);
    g_hash_table_iter_init(&it, c->dataplane);
    while (g_hash_table_iter_next(&it, NULL, &specs))
        n += g_strv_contains((const gchar *const *)specs, spec);
    return n;
}

/* Loads the key file; *ret_missing is set when an unnamed default file
 * does not exist, which is not an error.  The text must be UTF-8: GKeyFile
 * takes other bytes in names and values, and every message that quotes
 * one would carry them on. */
static GKeyFile *
open_key_file(const gchar *path, gboolean named, gboolean *ret_missing, GError **error)
{
    g_autoptr(GKeyFile) kf = g_key_file_new();
    g_autoptr(GError) local = NULL;
    g_autofree gchar *text = NULL;
    const gchar *end;
    gsize len;

    *ret_missing = FALSE;
    if (!g_file_get_contents(path, &text, &len, &local)) {
        if (!named && g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            *ret_missing = TRUE;
            return NULL;
        }
    } else if (!g_utf8_validate(text, (gssize)len, &end)) {
        guint line = 1;
        for (const gchar *p = text; p < end; p++)
            line += *p == '\n';
        g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_READ,
                    "%s: line %u: not UTF-8 text", path, line);
        return NULL;
    } else if (g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &local)) {
        return g_steal_pointer(&kf);
    }
    g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_READ,
                "%s: %s", path, local->message);
    return NULL;
}

VnConfig *
vn_config_load(const gchar *path, const VnTopology *t, GError **error)
{
    const gchar *env = g_getenv("VNUMA_CONFIG");
    gboolean named = path || (env && *env);
    const gchar *file = path ? path : named ? env : VNUMA_DEFAULT_CONFIG;
    g_autoptr(VnConfig) c = NULL;
    g_autoptr(GKeyFile) kf = NULL;
    gboolean missing;

    g_return_val_if_fail(t != NULL, NULL);

    c = vn_config_new_default(t);
    kf = open_key_file(file, named, &missing, error);
    if (!kf)
        return missing ? g_steal_pointer(&c) : NULL;
    if (!check_known(kf, file, error) ||
        !read_host(kf, file, t, c->policy, error) ||
        !read_modes(kf, file, c, error) ||
        !read_api(kf, file, c, error) ||
        !read_bool(kf, file, "rebalance", "auto", &c->rebalance_auto, error) ||
        !read_uint(kf, file, "rebalance", "interval", 1, 3600, &c->rebalance_interval_s, error) ||
        !read_uint(kf, file, "rebalance", "hot_intervals", 1, 100, &c->rebalance_hot_intervals, error) ||
        !read_bool(kf, file, "rebalance", "dataplane_repair", &c->dataplane_repair, error) ||
        !read_dataplane(kf, file, c, error))
        return NULL;
    c->path = g_strdup(file);
    apply_state_dir_env(c);
    return g_steal_pointer(&c);
}
