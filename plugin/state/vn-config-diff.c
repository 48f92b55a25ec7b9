/* vn-config-diff.c: two configs compared row by row of the schema, each
 * value as its row writes it back. */
#include "vn-config-diff.h"

#include "vn-config-schema.h"

static gboolean
differs(const VnConfigKey *k, const VnConfig *a, const VnConfig *b)
{
    g_autofree gchar *va = vn_config_key_format(k, a), *vb = vn_config_key_format(k, b);

    return !g_str_equal(va, vb);
}

/* A restart row, or one whose restart_with key changed as well: decided
 * on the file as read. */
static gboolean
needs_restart(const VnConfigKey *k, const VnConfig *running, const VnConfig *next)
{
    const VnConfigKey *with;

    if (k->reload == VN_CONFIG_RELOAD_RESTART)
        return TRUE;
    if (!k->restart_with)
        return FALSE;
    with = vn_config_schema_find(k->group, k->restart_with);
    g_return_val_if_fail(with != NULL, TRUE);
    return differs(with, running, next);
}

static gchar *
shown(const VnConfigKey *k, const VnConfig *c)
{
    g_autofree gchar *text = vn_config_key_format(k, c);

    return *text ? g_steal_pointer(&text) : g_strdup("(none)");
}

VnConfigDiff *
vn_config_diff(const VnConfig *running, const VnConfig *next)
{
    VnConfigDiff *d = g_new0(VnConfigDiff, 1);
    gsize n;
    const VnConfigKey *schema = vn_config_schema(&n);

    g_return_val_if_fail(running != NULL && next != NULL, NULL);
    d->changed = g_ptr_array_new_with_free_func(g_free);
    d->kept = g_ptr_array_new_with_free_func(g_free);
    d->kept_keys = g_ptr_array_new();
    for (gsize i = 0; i < n; i++) {
        const VnConfigKey *k = &schema[i];
        g_autofree gchar *name = NULL, *was = NULL, *now = NULL;

        if (!differs(k, running, next))
            continue;
        name = vn_config_key_name(k);
        if (needs_restart(k, running, next)) {
            g_ptr_array_add(d->kept, g_steal_pointer(&name));
            g_ptr_array_add(d->kept_keys, (gpointer)k);
            continue;
        }
        if (k->terse) {
            g_ptr_array_add(d->changed, g_strdup_printf("%s changed", name));
            continue;
        }
        was = shown(k, running);
        now = shown(k, next);
        g_ptr_array_add(d->changed, g_strdup_printf("%s %s -> %s", name, was, now));
    }
    return d;
}

void
vn_config_diff_keep_running(const VnConfigDiff *d, const VnConfig *running, VnConfig *next)
{
    g_return_if_fail(d != NULL && running != NULL && next != NULL);
    for (guint i = 0; i < d->kept_keys->len; i++)
        vn_config_key_copy(d->kept_keys->pdata[i], next, running);
}

void
vn_config_diff_free(VnConfigDiff *d)
{
    if (!d)
        return;
    g_ptr_array_unref(d->changed);
    g_ptr_array_unref(d->kept);
    g_ptr_array_unref(d->kept_keys);
    g_free(d);
}
