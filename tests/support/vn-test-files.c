/* vn-test-files.c: see vn-test-files.h. */
#include "vn-test-files.h"

static gint
compare_names(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

GPtrArray *
vn_test_dir_names(const gchar *dir, const gchar *suffix)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(GDir) d = g_dir_open(dir, 0, &error);
    GPtrArray *names = g_ptr_array_new_with_free_func(g_free);
    const gchar *name;

    g_assert_no_error(error);
    while ((name = g_dir_read_name(d)))
        if (!suffix || g_str_has_suffix(name, suffix))
            g_ptr_array_add(names, g_strdup(name));
    g_ptr_array_sort(names, compare_names);
    return names;
}

GPtrArray *
vn_test_dir_paths(const gchar *dir, const gchar *suffix)
{
    GPtrArray *paths = vn_test_dir_names(dir, suffix);

    for (guint i = 0; i < paths->len; i++) {
        gchar *name = paths->pdata[i];
        paths->pdata[i] = g_build_filename(dir, name, NULL);
        g_free(name);
    }
    return paths;
}
