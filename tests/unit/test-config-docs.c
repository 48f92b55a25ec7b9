/* test-config-docs.c: the sample tools/vnuma.conf and the man page
 * doc/vnuma.conf.5 list every key of the schema (vn-config-schema.c), and
 * no other, each once and with the schema's default.  Defaults are
 * compared as their row reads and writes them back ("4.0" is "4"). */
#include <stdlib.h>
#include <string.h>
#include "vn-config-schema.h"
#include "vn-test-fixture.h"

typedef struct {
    gchar *group, *key, *value; /* value NULL: documented without a default */
    guint line;
} DocKey;

static void
doc_key_free(DocKey *d)
{
    g_free(d->group);
    g_free(d->key);
    g_free(d->value);
    g_free(d);
}

/* A file of the source tree; exit 77 outside meson. */
static gchar *
source_file(const gchar *relative)
{
    const gchar *root = g_getenv("VN_SOURCE_ROOT");
    g_autofree gchar *path = NULL;
    gchar *text = NULL;
    g_autoptr(GError) error = NULL;

    if (!root) {
        g_print("1..0 # SKIP VN_SOURCE_ROOT not set (not run by meson)\n");
        exit(77);
    }
    path = g_build_filename(root, relative, NULL);
    g_assert_true(g_file_get_contents(path, &text, NULL, &error));
    g_assert_no_error(error);
    return text;
}

static void
add(GPtrArray *keys, const gchar *group, const gchar *key, const gchar *value, guint line)
{
    DocKey *d = g_new0(DocKey, 1);

    d->group = g_strdup(group);
    d->key = g_strdup(key);
    d->value = g_strdup(value);
    d->line = line;
    g_ptr_array_add(keys, d);
}

/* A group whose keys are names ([dataplane]) lists examples, not keys. */
static gboolean
fixed_group(const gchar *group)
{
    const VnConfigKey *k = group ? vn_config_schema_find(group, NULL) : NULL;

    return k && k->key;
}

/* tools/vnuma.conf: "[group]" lines, then "#key = default" (or "key = ..."). */
static void
read_sample(GPtrArray *keys, GPtrArray *groups)
{
    g_autofree gchar *text = source_file("tools/vnuma.conf");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autoptr(GRegex) group_re = g_regex_new("^\\[([a-z_]+)\\]$", 0, 0, NULL);
    g_autoptr(GRegex) key_re = g_regex_new("^#?([a-z][a-z0-9_]*) =(.*)$", 0, 0, NULL);
    g_autofree gchar *group = NULL;

    for (guint i = 0; lines[i]; i++) {
        g_autoptr(GMatchInfo) m = NULL;

        if (g_regex_match(group_re, lines[i], 0, &m)) {
            g_free(group);
            group = g_match_info_fetch(m, 1);
            g_ptr_array_add(groups, g_strdup(group));
            continue;
        }
        g_clear_pointer(&m, g_match_info_unref);
        if (fixed_group(group) && g_regex_match(key_re, lines[i], 0, &m)) {
            g_autofree gchar *key = g_match_info_fetch(m, 1), *value = g_match_info_fetch(m, 2);
            add(keys, group, key, g_strstrip(value), i + 1);
        }
    }
}

/* roff to text: font changes dropped, "\-" a hyphen. */
static gchar *
unroff(const gchar *s)
{
    g_autoptr(GRegex) font = g_regex_new("\\\\f[BIRP]", 0, 0, NULL);
    g_autofree gchar *plain = g_regex_replace_literal(font, s, -1, 0, "", 0, NULL);
    g_auto(GStrv) parts = g_strsplit(plain, "\\-", -1);

    return g_strjoinv("-", parts);
}

/* "Default: 5." / "Defaults: 32M and 8M." for the entry's keys; "none"
 * and "empty (...)" say the value is empty. */
static void
add_entry(GPtrArray *keys, const gchar *group, GStrv tag, const gchar *dflt, guint line)
{
    g_auto(GStrv) values = NULL;
    guint n_values;

    if (!dflt) {
        for (guint i = 0; tag[i]; i++)
            add(keys, group, tag[i], NULL, line);
        return;
    }
    values = g_strsplit(dflt, " and ", -1);
    n_values = g_strv_length(values);
    for (guint i = 0; tag[i]; i++) {
        const gchar *v = i < n_values ? values[i] : NULL;

        if (v && (g_str_equal(v, "none") || g_str_has_prefix(v, "empty")))
            v = "";
        add(keys, group, tag[i], v, line);
    }
}

/* ".B key" or ".BR key1 \", \" key2": the keys an entry is about. */
static GStrv
entry_tag(const gchar *line)
{
    g_auto(GStrv) words = NULL;
    g_autoptr(GStrvBuilder) keys = g_strv_builder_new();

    if (!g_str_has_prefix(line, ".B ") && !g_str_has_prefix(line, ".BR "))
        return NULL;
    words = g_strsplit(strchr(line, ' ') + 1, " ", -1);
    for (guint i = 0; words[i]; i++)
        if (*words[i] && words[i][0] != '"') {
            g_autofree gchar *word = unroff(words[i]);
            g_strv_builder_add(keys, word);
        }
    return g_strv_builder_end(keys);
}

/* doc/vnuma.conf.5: ".SH [group]", then one ".TP" entry per key (outside
 * .RS/.RE lists) with a "Default:" line. */
static void
read_man(GPtrArray *keys, GPtrArray *groups)
{
    g_autofree gchar *text = source_file("doc/vnuma.conf.5");
    g_auto(GStrv) lines = g_strsplit(text, "\n", -1);
    g_autofree gchar *group = NULL, *dflt = NULL;
    g_auto(GStrv) tag = NULL;
    guint depth = 0, tag_line = 0;

    for (guint i = 0; lines[i]; i++) {
        const gchar *l = lines[i];
        gboolean ends = g_str_has_prefix(l, ".SH") || (depth == 0 && g_str_equal(l, ".TP"));

        if (ends && tag) {
            add_entry(keys, group, tag, dflt, tag_line);
            g_clear_pointer(&tag, g_strfreev);
            g_clear_pointer(&dflt, g_free);
        }
        if (g_str_has_prefix(l, ".SH ")) {
            g_free(group);
            group = NULL;
            if (l[4] == '[' && g_str_has_suffix(l, "]")) {
                group = g_strndup(l + 5, strlen(l) - 6);
                g_ptr_array_add(groups, g_strdup(group));
            }
        } else if (g_str_equal(l, ".RS")) {
            depth++;
        } else if (g_str_equal(l, ".RE")) {
            g_assert_cmpuint(depth, >, 0);
            depth--;
        } else if (depth == 0 && g_str_equal(l, ".TP") && fixed_group(group) && lines[i + 1]) {
            tag = entry_tag(lines[i + 1]);
            tag_line = i + 2;
        } else if (tag && !dflt &&
                   (g_str_has_prefix(l, "Default: ") || g_str_has_prefix(l, "Defaults: "))) {
            g_autofree gchar *plain = unroff(strchr(l, ' ') + 1);
            if (g_str_has_suffix(plain, "."))
                plain[strlen(plain) - 1] = '\0';
            dflt = g_steal_pointer(&plain);
        }
    }
    g_assert_null(tag);
}

/* The text `text` as row `k` reads and writes it back. */
static gchar *
canonical(const VnConfigKey *k, const gchar *text)
{
    g_autoptr(VnTopology) t = vn_test_topology_new();
    g_autoptr(VnConfig) c = vn_config_new_default(t);
    g_autoptr(GError) error = NULL;

    if (!vn_config_key_read(k, k->key, text, t, c, &error))
        return g_strdup_printf("(refused: %s)", error->message);
    return vn_config_key_format(k, c);
}

static void
check(const gchar *file, GPtrArray *keys, GPtrArray *groups)
{
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    for (guint i = 0; i < keys->len; i++) {
        const DocKey *d = keys->pdata[i];
        const VnConfigKey *k = vn_config_schema_find(d->group, d->key);

        if (!k || !k->key)
            g_error("%s:%u: [%s] %s is not a key of vnuma.conf's schema", file, d->line, d->group,
                    d->key);
    }
    for (gsize r = 0; r < n; r++) {
        const VnConfigKey *k = &schema[r];
        const DocKey *found = NULL;
        g_autofree gchar *want = NULL, *got = NULL;

        if (!g_ptr_array_find_with_equal_func(groups, k->group, g_str_equal, NULL))
            g_error("%s: no group [%s]", file, k->group);
        if (!k->key)
            continue;
        for (guint i = 0; i < keys->len; i++) {
            const DocKey *d = keys->pdata[i];

            if (!g_str_equal(d->group, k->group) || !g_str_equal(d->key, k->key))
                continue;
            if (found)
                g_error("%s:%u: [%s] %s again (line %u)", file, d->line, k->group, k->key,
                        found->line);
            found = d;
        }
        if (!found)
            g_error("%s: [%s] %s is not documented", file, k->group, k->key);
        if (!found->value)
            g_error("%s:%u: [%s] %s: no default given", file, found->line, k->group, k->key);
        want = canonical(k, k->default_text);
        got = canonical(k, found->value);
        if (!g_str_equal(want, got))
            g_error("%s:%u: [%s] %s: default \"%s\", the schema's is \"%s\"", file, found->line,
                    k->group, k->key, found->value, k->default_text);
    }
}

typedef struct {
    const gchar *file;
    void (*read)(GPtrArray *keys, GPtrArray *groups);
} DocCase;

static const DocCase doc_cases[] = {
    { "tools/vnuma.conf", read_sample },
    { "doc/vnuma.conf.5", read_man },
};

static void
test_doc(gconstpointer data)
{
    const DocCase *d = data;
    g_autoptr(GPtrArray) keys = g_ptr_array_new_with_free_func((GDestroyNotify)doc_key_free);
    g_autoptr(GPtrArray) groups = g_ptr_array_new_with_free_func(g_free);

    d->read(keys, groups);
    g_assert_cmpuint(keys->len, >, 0);
    check(d->file, keys, groups);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_data_func("/config/docs/sample", &doc_cases[0], test_doc);
    g_test_add_data_func("/config/docs/man", &doc_cases[1], test_doc);
    return g_test_run();
}
