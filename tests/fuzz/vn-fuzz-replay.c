/* vn-fuzz-replay.c: runs a fuzz target over files without libFuzzer.
 *
 *   test-fuzz-replay-NAME [--tap] NAME PATH...
 * Every file of each PATH (a directory, a file or a glob pattern) is one
 * g_test case /fuzz/NAME/FILE that feeds it to LLVMFuzzerTestOneInput():
 * the regression crashers of tests/fuzz/corpus/NAME/ and the seeds stay
 * fixed in every build, gcc ones included.  A crash or an abort of the
 * target's checks fails the case. */
#include "vn-fuzz.h"

#include <glob.h>
#include <string.h>

/* One case: `data` is the file's path. */
static void
replay_one(gconstpointer data)
{
    g_autoptr(GError) error = NULL;
    g_autofree gchar *contents = NULL;
    gsize len;

    if (!g_file_get_contents(data, &contents, &len, &error))
        g_error("%s", error->message);
    /* a copy of exactly `len` bytes, so ASan sees a read past the end as
     * libFuzzer would (contents has a NUL after them); never NULL, as
     * libFuzzer's data is not for an empty input */
    g_autofree guint8 *exact = g_malloc(MAX(len, 1));
    memcpy(exact, contents, len);
    LLVMFuzzerTestOneInput(exact, len);
}

static gint
compare_names(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

/* The files of one argument: a directory's regular files (not recursed,
 * an empty one is fine), or the files a glob(3) pattern matches (at least
 * one: a seed list gone stale must not pass by replaying nothing). */
static GPtrArray *
list_files(const gchar *pattern)
{
    g_autoptr(GPtrArray) files = g_ptr_array_new_with_free_func(g_free);
    g_autoptr(GError) error = NULL;
    g_autoptr(GDir) dir = NULL;
    const gchar *name;
    glob_t g;

    if (!g_file_test(pattern, G_FILE_TEST_IS_DIR)) {
        if (glob(pattern, 0, NULL, &g) != 0)
            g_error("%s: no file matches", pattern);
        for (size_t i = 0; i < g.gl_pathc; i++)
            if (g_file_test(g.gl_pathv[i], G_FILE_TEST_IS_REGULAR))
                g_ptr_array_add(files, g_strdup(g.gl_pathv[i]));
        globfree(&g);
        return g_steal_pointer(&files);
    }
    if (!(dir = g_dir_open(pattern, 0, &error)))
        g_error("%s", error->message);
    while ((name = g_dir_read_name(dir))) {
        g_autofree gchar *file = g_build_filename(pattern, name, NULL);
        if (name[0] != '.' && g_file_test(file, G_FILE_TEST_IS_REGULAR))
            g_ptr_array_add(files, g_steal_pointer(&file));
    }
    g_ptr_array_sort(files, compare_names);
    return g_steal_pointer(&files);
}

int
main(int argc, char **argv)
{
    g_autoptr(GHashTable) seen = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, NULL);
    g_autoptr(GPtrArray) paths = g_ptr_array_new_with_free_func(g_free);
    guint n = 0;

    g_test_init(&argc, &argv, NULL);
    if (argc < 3) {
        g_printerr("usage: %s [--tap] TARGET PATH...\n", argv[0]);
        return 2;
    }
    LLVMFuzzerInitialize(&argc, &argv);
    for (int i = 2; i < argc; i++) {
        g_autoptr(GPtrArray) files = list_files(argv[i]);
        for (guint j = 0; j < files->len; j++) {
            g_autofree gchar *base = g_path_get_basename(files->pdata[j]);
            g_autofree gchar *test = g_strdup_printf("/fuzz/%s/%s", argv[1], base);
            /* two seeds of one name in different folders: keep both */
            while (g_hash_table_contains(seen, test)) {
                g_free(test);
                test = g_strdup_printf("/fuzz/%s/%s-%u", argv[1], base, ++n);
            }
            g_hash_table_add(seen, g_strdup(test));
            g_ptr_array_add(paths, g_strdup(files->pdata[j]));
            g_test_add_data_func(test, g_ptr_array_index(paths, paths->len - 1), replay_one);
        }
    }
    return g_test_run();
}
