/* vn-config-schema.c: the table of vnuma.conf, and how each kind of value
 * is read, written back and copied. */
#include "vn-config-schema.h"
#include "vn-names.h"

#include <gio/gio.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include "vn-config-build.h"
#include "vn-cpulist.h"
#include "vn-dataplane-spec.h"
#include "vn-size.h"

G_STATIC_ASSERT(sizeof(VnMemoryMode) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnBalance) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnHookManage) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnHookConflict) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnDistances) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnCacheDomains) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnIrqSteering) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnDefragment) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnConsolidate) == sizeof(guint));
G_STATIC_ASSERT(sizeof(VnNumaBalancingWish) == sizeof(guint));

const gchar *const *
vn_distances_names(void)
{
    static const gchar *const names[] = { "slit", "measured", "hmat", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_DISTANCES_MAX + 1);
    return names;
}

const gchar *const *
vn_irq_steering_names(void)
{
    static const gchar *const names[] = { "off", "on", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_IRQ_STEERING_MAX + 1);
    return names;
}

const gchar *const *
vn_defragment_names(void)
{
    static const gchar *const names[] = { "off", "propose", "apply", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_DEFRAGMENT_MAX + 1);
    return names;
}

const gchar *
vn_defragment_to_string(VnDefragment d)
{
    g_return_val_if_fail(d < VN_DEFRAGMENT_MAX, NULL);
    return vn_defragment_names()[d];
}

const gchar *const *
vn_consolidate_names(void)
{
    static const gchar *const names[] = { "off", "propose", "apply", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_CONSOLIDATE_MAX + 1);
    return names;
}

const gchar *
vn_consolidate_to_string(VnConsolidate c)
{
    g_return_val_if_fail(c < VN_CONSOLIDATE_MAX, NULL);
    return vn_consolidate_names()[c];
}

static const gchar *const *
hook_manage_names(void)
{
    static const gchar *const names[] = { "opted-in", "all", "none", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_HOOK_MANAGE_MAX + 1);
    return names;
}

static const gchar *const *
hook_conflict_names(void)
{
    static const gchar *const names[] = { "replan", "refuse", "ignore", NULL };
    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_HOOK_CONFLICT_MAX + 1);
    return names;
}

const gchar *
vn_hook_manage_to_string(VnHookManage m)
{
    g_return_val_if_fail(m < VN_HOOK_MANAGE_MAX, NULL);
    return hook_manage_names()[m];
}

gint
vn_hook_manage_from_string(const gchar *s)
{
    return vn_name_index(hook_manage_names(), VN_HOOK_MANAGE_MAX, s);
}

const gchar *
vn_hook_conflict_to_string(VnHookConflict c)
{
    g_return_val_if_fail(c < VN_HOOK_CONFLICT_MAX, NULL);
    return hook_conflict_names()[c];
}

gint
vn_hook_conflict_from_string(const gchar *s)
{
    return vn_name_index(hook_conflict_names(), VN_HOOK_CONFLICT_MAX, s);
}

/* [api] tcp_listen: a literal IP and a port, "127.0.0.1:8470" or "[::1]:8470". */
static gboolean
check_tcp_listen(const VnConfigKey *k, const VnConfig *c, const VnTopology *t, GError **error)
{
    g_autoptr(GSocketConnectable) addr = NULL;
    const gchar *host = NULL;
    guint16 port = 0;

    (void)k;
    (void)t;
    if (!c->api_tcp_listen)
        return TRUE;
    addr = g_network_address_parse(c->api_tcp_listen, 0, NULL);
    if (addr) {
        port = g_network_address_get_port(G_NETWORK_ADDRESS(addr));
        host = g_network_address_get_hostname(G_NETWORK_ADDRESS(addr));
    }
    if (!port || !host || !g_hostname_is_ip_address(host)) {
        g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID,
                    "\"%s\" is not IP:PORT (such as 127.0.0.1:8470)", c->api_tcp_listen);
        return FALSE;
    }
    return TRUE;
}

/* [api] bearer_token: a TCP listener needs one. */
static gboolean
check_bearer_token(const VnConfigKey *k, const VnConfig *c, const VnTopology *t, GError **error)
{
    const gchar *token = c->api_bearer_token;

    (void)k;
    (void)t;
    if (c->api_tcp_listen && (!token || strlen(token) < 16 || strpbrk(token, " \t"))) {
        g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID,
                    "required with tcp_listen: at least 16 characters, no spaces");
        return FALSE;
    }
    return TRUE;
}

#define CONFIG(m) .in_policy = FALSE, .offset = G_STRUCT_OFFSET(VnConfig, m)
#define POLICY(m) .in_policy = TRUE, .offset = G_STRUCT_OFFSET(VnPolicy, m)

/* Reload: [host], [placement], [hook], [rebalance] and [dataplane] apply at
 * once (the hook and vnumactl read the file themselves anyway); [paths]
 * state_dir is the ledger shared with the hook (and the unit's one
 * writable path), [api] socket and tcp_listen are bound listeners: they
 * need a restart.  bearer_token applies at once while tcp_listen stays
 * (token rotation); with a new tcp_listen it belongs to a listener not
 * yet bound.  max_connections stops at 512: each connection, and each of
 * the up to 32 refused ones being answered, holds a descriptor, and 1024
 * is the usual limit. */
/* One key a row, its kind and range before its texts: */
/* clang-format off */
static const VnConfigKey schema[] = {
    { "host", "reserved_cpus", VN_CONFIG_KIND_CPULIST, POLICY(reserved_cpus),
      .default_text = "", .example = "1" },
    { "host", "reserved_memory", VN_CONFIG_KIND_SIZE, POLICY(reserved_memory_kib),
      .default_text = "0", .example = "2G" },
    { "host", "overhead_base", VN_CONFIG_KIND_SIZE, POLICY(overhead_base_kib),
      .default_text = "32M", .example = "64M" },
    { "host", "overhead_per_gib", VN_CONFIG_KIND_SIZE, POLICY(overhead_per_gib_kib),
      .default_text = "8M", .example = "16M" },
    { "host", "headroom_percent", VN_CONFIG_KIND_UINT, POLICY(headroom_percent),
      .min = 0, .max = 90, .default_text = "5", .example = "40" },
    { "host", "cpu_overcommit", VN_CONFIG_KIND_DOUBLE, POLICY(cpu_overcommit),
      .dmin = 0.0, .dmax = 64.0, .default_text = "4.0", .example = "2.5" },
    { "host", "numa_balancing", VN_CONFIG_KIND_CHOICE, CONFIG(numa_balancing),
      .names = vn_numa_balancing_wish_names, .default_text = "leave", .example = "off" },
    { "placement", "memory_mode", VN_CONFIG_KIND_CHOICE, CONFIG(memory_mode),
      .names = vn_memory_mode_names, .default_text = "auto", .example = "strict" },
    { "placement", "balance", VN_CONFIG_KIND_CHOICE, POLICY(balance),
      .names = vn_balance_names, .default_text = "adaptive", .example = "memory-packing" },
    { "placement", "split", VN_CONFIG_KIND_CHOICE, POLICY(split),
      .names = vn_split_names, .default_text = "fill", .example = "even" },
    { "placement", "cache_domains", VN_CONFIG_KIND_CHOICE, POLICY(cache_domains),
      .names = vn_cache_domains_names, .default_text = "off", .example = "prefer" },
    { "placement", "tiers", VN_CONFIG_KIND_CHOICE, POLICY(tiers), .names = vn_tiers_names,
      .default_text = "off", .example = "spill" },
    { "placement", "defragment", VN_CONFIG_KIND_CHOICE, CONFIG(defragment),
      .names = vn_defragment_names, .default_text = "off", .example = "apply" },
    { "placement", "consolidate", VN_CONFIG_KIND_CHOICE, CONFIG(consolidate),
      .names = vn_consolidate_names, .default_text = "apply", .example = "propose" },
    { "topology", "distances", VN_CONFIG_KIND_CHOICE, CONFIG(distances),
      .names = vn_distances_names, .default_text = "slit", .example = "measured" },
    { "hook", "manage", VN_CONFIG_KIND_CHOICE, CONFIG(hook_manage),
      .names = hook_manage_names, .default_text = "all", .example = "opted-in" },
    { "hook", "on_conflict", VN_CONFIG_KIND_CHOICE, CONFIG(hook_on_conflict),
      .names = hook_conflict_names, .default_text = "replan", .example = "refuse" },
    { "hook", "strict", VN_CONFIG_KIND_BOOL, CONFIG(hook_strict),
      .default_text = "false", .example = "true" },
    { "paths", "state_dir", VN_CONFIG_KIND_PATH, CONFIG(state_dir),
      .default_text = VNUMA_DEFAULT_STATE_DIR, .example = "/var/lib/vnuma",
      .reload = VN_CONFIG_RELOAD_RESTART },
    { "api", "socket", VN_CONFIG_KIND_PATH, CONFIG(api_socket),
      .default_text = VNUMA_DEFAULT_API_SOCKET, .example = "/run/vnuma/other.sock",
      .reload = VN_CONFIG_RELOAD_RESTART },
    { "api", "tcp_listen", VN_CONFIG_KIND_STRING, CONFIG(api_tcp_listen),
      .default_text = "", .example = "127.0.0.1:8470",
      .reload = VN_CONFIG_RELOAD_RESTART, .check = check_tcp_listen },
    { "api", "bearer_token", VN_CONFIG_KIND_STRING, CONFIG(api_bearer_token),
      .default_text = "", .example = "fedcba9876543210", .restart_with = "tcp_listen",
      .terse = TRUE, .check = check_bearer_token },
    { "api", "idle_timeout", VN_CONFIG_KIND_UINT, CONFIG(api_idle_timeout_s),
      .min = 1, .max = 3600, .default_text = "30", .example = "2" },
    { "api", "max_connections", VN_CONFIG_KIND_UINT, CONFIG(api_max_connections),
      .min = 1, .max = 512, .default_text = "128", .example = "512" },
    { "rebalance", "auto", VN_CONFIG_KIND_BOOL, CONFIG(rebalance_auto),
      .default_text = "true", .example = "false" },
    { "rebalance", "interval", VN_CONFIG_KIND_UINT, CONFIG(rebalance_interval_s),
      .min = 1, .max = 3600, .default_text = "10", .example = "1" },
    { "rebalance", "hot_intervals", VN_CONFIG_KIND_UINT, CONFIG(rebalance_hot_intervals),
      .min = 1, .max = 100, .default_text = "3", .example = "100" },
    { "rebalance", "dataplane_repair", VN_CONFIG_KIND_BOOL, CONFIG(dataplane_repair),
      .default_text = "true", .example = "false" },
    { "rebalance", "irq_steering", VN_CONFIG_KIND_CHOICE, CONFIG(irq_steering),
      .names = vn_irq_steering_names, .default_text = "off", .example = "on" },
    { "dataplane", NULL, VN_CONFIG_KIND_DATAPLANE, CONFIG(dataplane),
      .example = "unit:spdk-vhost.service;pidfile:/run/ovs.pid", .terse = TRUE },
};
/* clang-format on */

const VnConfigKey *
vn_config_schema(gsize *ret_n)
{
    *ret_n = G_N_ELEMENTS(schema);
    return schema;
}

const VnConfigKey *
vn_config_schema_find(const gchar *group, const gchar *key)
{
    for (gsize i = 0; i < G_N_ELEMENTS(schema); i++)
        if (g_str_equal(schema[i].group, group) &&
            (!key || !schema[i].key || g_str_equal(schema[i].key, key)))
            return &schema[i];
    return NULL;
}

gchar *
vn_config_key_name(const VnConfigKey *k)
{
    return k->key ? g_strdup_printf("[%s] %s", k->group, k->key)
                  : g_strdup_printf("[%s]", k->group);
}

static gpointer
member(const VnConfigKey *k, const VnConfig *c)
{
    return G_STRUCT_MEMBER_P(k->in_policy ? (gpointer)c->policy : (gpointer)c, k->offset);
}

static gboolean G_GNUC_PRINTF(2, 3) refuse(GError **error, const gchar *fmt, ...)
{
    g_autofree gchar *what = NULL;
    va_list args;

    va_start(args, fmt);
    what = g_strdup_vprintf(fmt, args);
    va_end(args);
    g_set_error_literal(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID, what);
    return FALSE;
}

static gboolean
read_bool(const gchar *text, gboolean *ret_value, GError **error)
{
    /* GKeyFile's own words for booleans */
    if (!g_str_equal(text, "true") && !g_str_equal(text, "false") && !g_str_equal(text, "1") &&
        !g_str_equal(text, "0"))
        return refuse(error, "\"%s\" is not true or false", text);
    *ret_value = g_str_equal(text, "true") || g_str_equal(text, "1");
    return TRUE;
}

static gboolean
read_uint(const VnConfigKey *k, const gchar *text, guint *ret_value, GError **error)
{
    guint64 v;

    if (!g_ascii_string_to_unsigned(text, 10, k->min, k->max, &v, NULL))
        return refuse(error, "\"%s\" is not a whole number from %u to %u", text, k->min, k->max);
    *ret_value = (guint)v;
    return TRUE;
}

static gboolean
read_double(const VnConfigKey *k, const gchar *text, gdouble *ret_value, GError **error)
{
    gchar *end = NULL;
    gdouble v = g_ascii_strtod(text, &end);

    if (end == text || *end != '\0' || !(v > k->dmin && v <= k->dmax))
        return refuse(error, "\"%s\" is not a number above %g and at most %g", text, k->dmin,
                      k->dmax);
    *ret_value = v;
    return TRUE;
}

static gboolean
read_choice(const VnConfigKey *k, const gchar *text, guint *ret_value, GError **error)
{
    const gchar *const *names = k->names();
    gint v = vn_name_index(names, g_strv_length((gchar **)names), text);

    if (v < 0) {
        g_autofree gchar *choices = g_strjoinv(", ", (gchar **)k->names());
        return refuse(error, "\"%s\" is not one of %s", text, choices);
    }
    *ret_value = (guint)v;
    return TRUE;
}

static gboolean
read_size(const gchar *text, guint64 *ret_kib, GError **error)
{
    g_autoptr(GError) local = NULL;
    guint64 kib = 0;

    if (!g_str_equal(text, "0") && !vn_size_parse_kib(text, &kib, &local))
        return refuse(error, "%s", local->message);
    *ret_kib = kib;
    return TRUE;
}

static gboolean
read_cpulist(const gchar *text, const VnTopology *t, VnBitmap **ret_cpus, GError **error)
{
    g_autoptr(VnBitmap) cpus = NULL;
    g_autoptr(GError) local = NULL;

    if (!*text)
        cpus = vn_bitmap_new(t->n_cpu_ids);
    else if (!(cpus = vn_cpulist_parse(text, t->n_cpu_ids, &local)))
        return refuse(error, "%s", local->message);
    VN_BITMAP_FOREACH (cpus, cpu) {
        if (!vn_topology_cpu(t, cpu))
            return refuse(error, "no CPU %d on this host (%s)", cpu, t->source);
    }
    vn_bitmap_free(*ret_cpus);
    *ret_cpus = g_steal_pointer(&cpus);
    return TRUE;
}

static gboolean
read_string(const VnConfigKey *k, const gchar *text, gchar **ret_text, GError **error)
{
    if (k->kind == VN_CONFIG_KIND_PATH && !g_path_is_absolute(text))
        return refuse(error, "\"%s\" is not an absolute path", text);
    g_free(*ret_text);
    *ret_text = *text ? g_strdup(text) : NULL;
    return TRUE;
}

/* [dataplane] VM = SPEC;SPEC...: every spec well formed, none twice. */
static gboolean
read_dataplane(const gchar *vm, const gchar *text, GHashTable *table, GError **error)
{
    g_auto(GStrv) parts = g_strsplit(text, ";", -1);
    g_autoptr(GPtrArray) specs = g_ptr_array_new_with_free_func(g_free);

    for (guint i = 0; parts[i]; i++) {
        const gchar *spec = g_strstrip(parts[i]);
        g_autofree gchar *value = NULL;
        g_autoptr(GError) local = NULL;
        VnDataplaneSpecKind kind;

        if (!*spec)
            continue;
        if (!vn_dataplane_spec_parse(spec, &kind, &value, &local))
            return refuse(error, "%s", local->message);
        if (g_ptr_array_find_with_equal_func(specs, spec, g_str_equal, NULL))
            return refuse(error, "%s named twice", spec);
        g_ptr_array_add(specs, g_strdup(spec));
    }
    if (specs->len == 0)
        return refuse(error, "no data-plane process (pidfile:/PATH or unit:NAME.service)");
    g_ptr_array_add(specs, NULL);
    g_hash_table_replace(table, g_strdup(vm), g_ptr_array_free(g_steal_pointer(&specs), FALSE));
    return TRUE;
}

gboolean
vn_config_key_read(const VnConfigKey *k, const gchar *key, const gchar *text, const VnTopology *t,
                   VnConfig *c, GError **error)
{
    gpointer p;

    g_return_val_if_fail(k != NULL && key != NULL && text != NULL && t != NULL && c != NULL, FALSE);
    p = member(k, c);
    switch (k->kind) {
    case VN_CONFIG_KIND_BOOL:
        return read_bool(text, p, error);
    case VN_CONFIG_KIND_UINT:
        return read_uint(k, text, p, error);
    case VN_CONFIG_KIND_DOUBLE:
        return read_double(k, text, p, error);
    case VN_CONFIG_KIND_CHOICE:
        return read_choice(k, text, p, error);
    case VN_CONFIG_KIND_SIZE:
        return read_size(text, p, error);
    case VN_CONFIG_KIND_CPULIST:
        return read_cpulist(text, t, p, error);
    case VN_CONFIG_KIND_STRING:
    case VN_CONFIG_KIND_PATH:
        return read_string(k, text, p, error);
    case VN_CONFIG_KIND_DATAPLANE:
        return read_dataplane(key, text, *(GHashTable **)p, error);
    case VN_CONFIG_KIND_MAX:
        break;
    }
    g_return_val_if_reached(FALSE);
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
        g_string_append_printf(out, "%s%s=%s", i ? "\n" : "", (const gchar *)vms[i], specs);
    }
    return g_string_free(out, FALSE);
}

gchar *
vn_config_key_format(const VnConfigKey *k, const VnConfig *c)
{
    gpointer p;

    g_return_val_if_fail(k != NULL && c != NULL, NULL);
    p = member(k, c);
    switch (k->kind) {
    case VN_CONFIG_KIND_BOOL:
        return g_strdup(*(gboolean *)p ? "true" : "false");
    case VN_CONFIG_KIND_UINT:
        return g_strdup_printf("%u", *(guint *)p);
    case VN_CONFIG_KIND_DOUBLE:
        return g_strdup_printf("%g", *(gdouble *)p);
    case VN_CONFIG_KIND_CHOICE:
        return g_strdup(k->names()[*(guint *)p]);
    case VN_CONFIG_KIND_SIZE:
        return format_size(*(guint64 *)p);
    case VN_CONFIG_KIND_CPULIST:
        return vn_cpulist_format(*(VnBitmap **)p);
    case VN_CONFIG_KIND_STRING:
    case VN_CONFIG_KIND_PATH:
        return g_strdup(*(gchar **)p ? *(gchar **)p : "");
    case VN_CONFIG_KIND_DATAPLANE:
        return format_dataplane(*(GHashTable **)p);
    case VN_CONFIG_KIND_MAX:
        break;
    }
    g_return_val_if_reached(NULL);
}

void
vn_config_key_copy(const VnConfigKey *k, VnConfig *dst, const VnConfig *src)
{
    gpointer to, from;
    GHashTableIter it;
    gpointer vm, specs;

    g_return_if_fail(k != NULL && dst != NULL && src != NULL);
    to = member(k, dst);
    from = member(k, src);
    switch (k->kind) {
    case VN_CONFIG_KIND_BOOL:
    case VN_CONFIG_KIND_UINT:
    case VN_CONFIG_KIND_CHOICE:
        *(guint *)to = *(const guint *)from;
        return;
    case VN_CONFIG_KIND_DOUBLE:
        *(gdouble *)to = *(const gdouble *)from;
        return;
    case VN_CONFIG_KIND_SIZE:
        *(guint64 *)to = *(const guint64 *)from;
        return;
    case VN_CONFIG_KIND_CPULIST:
        vn_bitmap_free(*(VnBitmap **)to);
        *(VnBitmap **)to = vn_bitmap_copy(*(VnBitmap **)from);
        return;
    case VN_CONFIG_KIND_STRING:
    case VN_CONFIG_KIND_PATH:
        g_free(*(gchar **)to);
        *(gchar **)to = g_strdup(*(gchar **)from);
        return;
    case VN_CONFIG_KIND_DATAPLANE:
        g_hash_table_remove_all(*(GHashTable **)to);
        g_hash_table_iter_init(&it, *(GHashTable **)from);
        while (g_hash_table_iter_next(&it, &vm, &specs))
            g_hash_table_insert(*(GHashTable **)to, g_strdup(vm), g_strdupv(specs));
        return;
    case VN_CONFIG_KIND_MAX:
        break;
    }
    g_return_if_reached();
}
