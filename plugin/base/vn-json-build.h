/* vn-json-build.h: members of a JSON object being built with json-glib,
 * one call each, for the writers of plugin/ and the executables. */
#pragma once

#include <json-glib/json-glib.h>

void vn_json_add_int(JsonBuilder *b, const gchar *name, gint64 v);
/* NULL is written as null. */
void vn_json_add_string(JsonBuilder *b, const gchar *name, const gchar *v);
void vn_json_add_bool(JsonBuilder *b, const gchar *name, gboolean v);
/* An n x n row-major matrix as an array of rows; a value of 0 or less (not
 * measured, not known) is written as null. */
void vn_json_add_matrix(JsonBuilder *b, const gchar *name, const gint64 *m, guint n);
