/* vn-probe-json.c: a probe with its derived distances and findings. */
#include "vn-probe-json.h"

#include "vn-json-build.h"
#include "vn-placement-json.h"
#include "vn-probe-file.h"

static void
add_distances(JsonBuilder *b, const gchar *name, const guint *d, guint n)
{
    g_autofree gint64 *m = g_new(gint64, (gsize)n * n);

    for (guint i = 0; i < n * n; i++)
        m[i] = d[i];
    vn_json_add_matrix(b, name, m, n);
}

static void
add_findings(JsonBuilder *b, GPtrArray *findings)
{
    json_builder_set_member_name(b, "findings");
    json_builder_begin_array(b);
    for (guint i = 0; findings && i < findings->len; i++) {
        const VnProbeFinding *f = g_ptr_array_index(findings, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "kind");
        json_builder_add_string_value(b, vn_probe_finding_kind_to_string(f->kind));
        json_builder_set_member_name(b, "text");
        json_builder_add_string_value(b, f->text);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

JsonNode *
vn_probe_report_to_json(const VnProbe *p, const VnTopology *t, const gchar *boot_id,
                        gdouble seconds, GPtrArray *findings, GPtrArray *notes)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autofree guint *derived = vn_probe_distances(p);

    g_return_val_if_fail(p && t && p->n_nodes == t->n_nodes, NULL);
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "probe");
    json_builder_add_value(b, vn_probe_file_to_json(p, t, boot_id));
    json_builder_set_member_name(b, "milliseconds");
    json_builder_add_int_value(b, (gint64)(seconds * 1000 + 0.5));
    add_distances(b, "distances", derived, p->n_nodes);
    add_distances(b, "firmware_distances", t->distance, t->n_nodes);
    add_findings(b, findings);
    vn_json_add_strings(b, "notes", notes);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}
