/* vn-json-build.c: see vn-json-build.h. */
#include "vn-json-build.h"

void
vn_json_add_int(JsonBuilder *b, const gchar *name, gint64 v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_int_value(b, v);
}

void
vn_json_add_string(JsonBuilder *b, const gchar *name, const gchar *v)
{
    json_builder_set_member_name(b, name);
    if (v)
        json_builder_add_string_value(b, v);
    else
        json_builder_add_null_value(b);
}

void
vn_json_add_bool(JsonBuilder *b, const gchar *name, gboolean v)
{
    json_builder_set_member_name(b, name);
    json_builder_add_boolean_value(b, v);
}

void
vn_json_add_matrix(JsonBuilder *b, const gchar *name, const gint64 *m, guint n)
{
    json_builder_set_member_name(b, name);
    json_builder_begin_array(b);
    for (guint i = 0; i < n; i++) {
        json_builder_begin_array(b);
        for (guint j = 0; j < n; j++)
            if (m[i * n + j] > 0)
                json_builder_add_int_value(b, m[i * n + j]);
            else
                json_builder_add_null_value(b);
        json_builder_end_array(b);
    }
    json_builder_end_array(b);
}
