/* vn-test-files.h: the files of a fixture directory, for tests that
 * discover their cases by listing one. */
#pragma once

#include <glib.h>

/* The names of `dir`'s entries that end in `suffix` (NULL: all of them),
 * sorted, without "." and ".."; the test fails when `dir` cannot be
 * opened. */
GPtrArray *vn_test_dir_names(const gchar *dir, const gchar *suffix);
/* The same entries as paths: `dir`/name. */
GPtrArray *vn_test_dir_paths(const gchar *dir, const gchar *suffix);
