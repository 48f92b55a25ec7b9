/* vn-placement-json.c: placement -> JSON (json-glib builder). */
#include "vn-placement-json.h"
#include "vn-cpulist.h"
#include "vn-size.h"
#include "vn-json-build.h"

static void
add_cpulist(JsonBuilder *b, const gchar *member, const VnBitmap *cpus)
{
    g_autofree gchar *s = vn_cpulist_format(cpus);

    vn_json_add_string(b, member, s);
}

static void
add_cell(JsonBuilder *b, const VnCell *c)
{
    g_autoptr(VnBitmap) vcpus = vn_bitmap_new(c->vcpu_first + c->n_vcpus);

    for (guint v = c->vcpu_first; v < c->vcpu_first + c->n_vcpus; v++)
        vn_bitmap_set(vcpus, v);
    json_builder_begin_object(b);
    vn_json_add_int(b, "id", c->id);
    vn_json_add_int(b, "node", c->node_os_id);
    add_cpulist(b, "vcpus", vcpus);
    add_cpulist(b, "cpus", c->cpus);
    vn_json_add_int(b, "memory_mib", (gint64)vn_size_kib_to_mib(c->memory_kib));
    json_builder_end_object(b);
}

static void
add_candidates(JsonBuilder *b, const VnTopology *t, const VnPlacement *p)
{
    json_builder_set_member_name(b, "candidates");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->candidates->len; i++) {
        const VnCandidate *c = g_ptr_array_index(p->candidates, i);
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "nodes");
        json_builder_begin_array(b);
        for (guint n = 0; n < c->nodes->len; n++)
            json_builder_add_int_value(b, t->nodes[g_array_index(c->nodes, guint, n)].os_id);
        json_builder_end_array(b);
        vn_json_add_bool(b, "feasible", c->feasible);
        vn_json_add_bool(b, "chosen", c->chosen);
        if (c->feasible) {
            vn_json_add_int(b, "internal_distance", c->internal_distance);
            vn_json_add_int(b, "device_distance", c->device_distance);
            json_builder_set_member_name(b, "load_after");
            json_builder_add_double_value(b, c->load_after);
        }
        if (c->note) {
            vn_json_add_string(b, "note", c->note);
        }
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
}

void
vn_json_add_strings(JsonBuilder *b, const gchar *member, GPtrArray *strings)
{
    json_builder_set_member_name(b, member);
    json_builder_begin_array(b);
    for (guint i = 0; strings && i < strings->len; i++)
        json_builder_add_string_value(b, g_ptr_array_index(strings, i));
    json_builder_end_array(b);
}

static void
add_placement(JsonBuilder *b, const VnTopology *t, const VnPlacement *p)
{
    json_builder_set_member_name(b, "placement");
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "cells");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->cells->len; i++)
        add_cell(b, &g_array_index(p->cells, VnCell, i));
    json_builder_end_array(b);
    json_builder_set_member_name(b, "vcpu_pins");
    json_builder_begin_array(b);
    for (guint v = 0; v < p->vcpu_pins->len; v++) {
        g_autofree gchar *s = vn_cpulist_format(g_ptr_array_index(p->vcpu_pins, v));
        json_builder_add_string_value(b, s);
    }
    json_builder_end_array(b);
    json_builder_set_member_name(b, "emulator");
    json_builder_begin_object(b);
    add_cpulist(b, "cpus", p->emulator_cpus);
    json_builder_end_object(b);
    json_builder_set_member_name(b, "iothreads");
    json_builder_begin_array(b);
    for (guint i = 0; i < p->iothreads->len; i++) {
        const VnIOThreadPin *io = &g_array_index(p->iothreads, VnIOThreadPin, i);
        json_builder_begin_object(b);
        vn_json_add_int(b, "id", io->id);
        add_cpulist(b, "cpus", io->cpus);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    vn_json_add_bool(b, "dedicated", p->dedicated);
    vn_json_add_int(b, "threads_per_core", p->threads_per_core);
    if (p->dies > 1)
        vn_json_add_int(b, "dies", p->dies);
    if (p->tiers != VN_TIERS_OFF)
        vn_json_add_string(b, "tiers", vn_tiers_to_string(p->tiers));
    if (p->interleave)
        vn_json_add_bool(b, "interleave", TRUE);
    if (p->self_overcommitted)
        vn_json_add_bool(b, "self_overcommitted", TRUE);
    vn_json_add_int(b, "hugepage_kib", (gint64)p->hugepage_kib);
    if (p->isolated_cpus && !vn_bitmap_is_empty(p->isolated_cpus))
        add_cpulist(b, "isolated_cpus", p->isolated_cpus);
    json_builder_end_object(b);
}

JsonNode *
vn_placement_to_json(const VnTopology *t, const VnPlacement *p, gboolean with_candidates)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    add_placement(b, t, p);
    vn_json_add_strings(b, "reasons", p->reasons);
    vn_json_add_strings(b, "warnings", p->warnings);
    if (with_candidates)
        add_candidates(b, t, p);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

JsonNode *
vn_plan_error_to_json(const GError *error, GPtrArray *reasons)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    vn_json_add_string(b, "error", error->message);
    vn_json_add_strings(b, "reasons", reasons);
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

void
vn_move_add_json_members(JsonBuilder *b, const VnTopology *t, const gchar *vm, guint cell,
                         guint from_node, guint to_node, guint vcpus, guint64 memory_kib)
{
    vn_json_add_string(b, "vm", vm);
    vn_json_add_int(b, "cell", cell);
    vn_json_add_int(b, "from", t->nodes[from_node].os_id);
    vn_json_add_int(b, "to", t->nodes[to_node].os_id);
    vn_json_add_int(b, "vcpus", vcpus);
    vn_json_add_int(b, "memory_mib", (gint64)vn_size_kib_to_mib(memory_kib));
}

static void
add_move(JsonBuilder *b, const VnTopology *t, const VnMove *m, gboolean applied, GPtrArray *steps,
         const gchar *warning)
{
    json_builder_begin_object(b);
    vn_move_add_json_members(b, t, m->vm, m->cell, m->from_node, m->to_node, m->vcpus,
                             m->memory_kib);
    if (m->from_domain >= 0 && m->to_domain >= 0) {
        /* a guest die between two cache domains of one node */
        vn_json_add_int(b, "from_cache_domain", m->from_domain);
        vn_json_add_int(b, "to_cache_domain", m->to_domain);
    }
    if (m->domains) {
        json_builder_set_member_name(b, "cache_domains");
        json_builder_begin_array(b);
        for (guint j = 0; j < m->domains->len; j++)
            json_builder_add_int_value(b, g_array_index(m->domains, guint, j));
        json_builder_end_array(b);
    }
    vn_json_add_string(b, "reason", m->reason);
    vn_json_add_bool(b, "applied", applied);
    if (steps && steps->len)
        vn_json_add_strings(b, "steps", steps);
    if (warning)
        vn_json_add_string(b, "warning", warning);
    json_builder_end_object(b);
}

void
vn_moves_add_json(JsonBuilder *b, const VnTopology *t, GPtrArray *moves, GPtrArray *notes,
                  const gboolean *applied, GPtrArray *steps, gchar **warnings)
{
    json_builder_set_member_name(b, "moves");
    json_builder_begin_array(b);
    for (guint i = 0; i < moves->len; i++)
        add_move(b, t, g_ptr_array_index(moves, i), applied && applied[i],
                 steps ? g_ptr_array_index(steps, i) : NULL, warnings ? warnings[i] : NULL);
    json_builder_end_array(b);
    vn_json_add_strings(b, "notes", notes);
}
