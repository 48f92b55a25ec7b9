/* vn-config.c: vnuma.conf through GKeyFile, read by walking the schema
 * (vn-config-schema.c): each row's reader validates its value, and every
 * error names file, group and key. */
#include "vn-config.h"

#include "vn-config-build.h"
#include "vn-config-schema.h"
#include "vn-json-parse.h"

G_DEFINE_QUARK(vn-config-error-quark, vn_config_error);

static void
apply_state_dir_env(VnConfig *c)
{
    const gchar *env = g_getenv("VNUMA_STATE_DIR");

    if (env && *env) {
        g_free(c->state_dir);
        c->state_dir = g_strdup(env);
    }
}

/* The schema's defaults, read as a file would give them. */
VnConfig *
vn_config_new_default(const VnTopology *t)
{
    VnConfig *c = g_new0(VnConfig, 1);
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    c->policy = vn_policy_new_default(t);
    c->dataplane =
        g_hash_table_new_full(g_str_hash, g_str_equal, g_free, (GDestroyNotify)g_strfreev);
    for (gsize i = 0; i < n; i++) {
        g_autoptr(GError) error = NULL;

        if (schema[i].default_text &&
            !vn_config_key_read(&schema[i], schema[i].key, schema[i].default_text, t, c, &error))
            g_critical("vnuma.conf schema: [%s] %s: default: %s", schema[i].group, schema[i].key,
                       error->message);
    }
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

static gboolean
check_known(GKeyFile *kf, const gchar *path, GError **error)
{
    g_auto(GStrv) groups = g_key_file_get_groups(kf, NULL);

    for (guint g = 0; groups[g]; g++) {
        g_auto(GStrv) keys = g_key_file_get_keys(kf, groups[g], NULL, NULL);

        if (!vn_config_schema_find(groups[g], NULL)) {
            /* GKeyFile refuses control characters in a group name */
            g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_UNKNOWN, "%s: unknown group [%s]",
                        path, groups[g]);
            return FALSE;
        }
        for (guint k = 0; keys && keys[k]; k++) {
            if (!vn_config_schema_find(groups[g], keys[k])) {
                g_autofree gchar *key = vn_json_quote(keys[k]);
                g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_UNKNOWN,
                            "%s: [%s] unknown key %s", path, groups[g], key);
                return FALSE;
            }
        }
    }
    return TRUE;
}

/* The message of a refused value: the file, group and key in front. */
static gboolean
bad_value(GError **error, const gchar *path, const gchar *group, const gchar *key,
          const GError *why)
{
    g_autofree gchar *shown = vn_json_escape(key);

    g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID, "%s: [%s] %s: %s", path, group,
                shown, why->message);
    return FALSE;
}

/* A value is one line of text: an escape that resolves to a newline, a
 * tab or another control character is refused before any reader (or a
 * message quoting the value) sees it. */
static gboolean
check_one_line(const gchar *text, GError **error)
{
    for (const gchar *s = text; *s; s++) {
        if ((guchar)*s < 0x20 || *s == 0x7f) {
            g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID,
                        "holds a control character (0x%02x, from an escape such as \\n or "
                        "\\t): a value is one line of text",
                        (guchar)*s);
            return FALSE;
        }
    }
    return TRUE;
}

/* An odd run of backslashes at the end: the last one escapes nothing. */
static gboolean
ends_in_lone_backslash(const gchar *raw)
{
    gsize n = strlen(raw), run = 0;

    while (run < n && raw[n - 1 - run] == '\\')
        run++;
    return run % 2 == 1;
}

/* One key present in the file: its text with escapes resolved, stripped,
 * read by its row. */
static gboolean
read_key(GKeyFile *kf, const gchar *path, const VnConfigKey *k, const gchar *key,
         const VnTopology *t, VnConfig *c, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autofree gchar *raw = g_key_file_get_value(kf, k->group, key, NULL);
    g_autofree gchar *text = NULL;

    /* GLib 2.74 sets its GError twice, with a warning, when a bad escape
     * ("\ ") comes before a backslash that ends the line: refuse the
     * trailing backslash before GLib reads the escapes */
    if (raw && ends_in_lone_backslash(raw)) {
        g_set_error_literal(&local, VN_CONFIG_ERROR, VN_CONFIG_ERROR_INVALID,
                            "ends in a backslash with nothing after it to escape");
        return bad_value(error, path, k->group, key, local);
    }
    text = g_key_file_get_string(kf, k->group, key, &local);
    /* a bad escape ("\]") gives the text before it and the error both */
    if (local || !text || !check_one_line(g_strstrip(text), &local) ||
        !vn_config_key_read(k, key, text, t, c, &local))
        return bad_value(error, path, k->group, key, local);
    return TRUE;
}

/* Every row in table order: the keys the file has, then each row's own
 * check, which may look at other keys. */
static gboolean
read_file(GKeyFile *kf, const gchar *path, const VnTopology *t, VnConfig *c, GError **error)
{
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    for (gsize i = 0; i < n; i++) {
        const VnConfigKey *k = &schema[i];
        g_auto(GStrv) names = NULL;

        if (k->key) {
            if (g_key_file_has_key(kf, k->group, k->key, NULL) &&
                !read_key(kf, path, k, k->key, t, c, error))
                return FALSE;
            continue;
        }
        names = g_key_file_get_keys(kf, k->group, NULL, NULL);
        for (guint j = 0; names && names[j]; j++)
            if (!read_key(kf, path, k, names[j], t, c, error))
                return FALSE;
    }
    for (gsize i = 0; i < n; i++) {
        g_autoptr(GError) local = NULL;

        if (schema[i].check && !schema[i].check(&schema[i], c, t, &local))
            return bad_value(error, path, schema[i].group, schema[i].key, local);
    }
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
        g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_READ, "%s: line %u: not UTF-8 text",
                    path, line);
        return NULL;
    } else if (g_key_file_load_from_data(kf, text, len, G_KEY_FILE_NONE, &local)) {
        return g_steal_pointer(&kf);
    }
    g_set_error(error, VN_CONFIG_ERROR, VN_CONFIG_ERROR_READ, "%s: %s", path, local->message);
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
    if (!check_known(kf, file, error) || !read_file(kf, file, t, c, error))
        return NULL;
    c->path = g_strdup(file);
    apply_state_dir_env(c);
    return g_steal_pointer(&c);
}
