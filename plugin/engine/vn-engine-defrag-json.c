/* vn-engine-defrag-json.c: the defragmentation moves of an engine run as
 * JSON, for `vnumactl plan --json` and vnumad's plan (vn-engine.h). */
#include "vn-engine.h"
#include "vn-json-build.h"
#include "vn-placement-json.h"

void
vn_engine_defrag_add_json(JsonObject *o, const VnTopology *t, VnDefragment mode,
                          const VnEngineResult *res)
{
    g_autoptr(JsonBuilder) b = NULL;
    g_autoptr(JsonNode) node = NULL;

    if (mode == VN_DEFRAGMENT_OFF || (!res->moves && !res->defrag_note))
        return;
    b = json_builder_new();
    json_builder_begin_object(b);
    vn_json_add_string(b, "mode", vn_defragment_to_string(mode));
    json_builder_set_member_name(b, "moves");
    json_builder_begin_array(b);
    for (guint i = 0; res->moves && i < res->moves->len; i++) {
        const VnEngineMove *m = &g_array_index(res->moves, VnEngineMove, i);
        json_builder_begin_object(b);
        vn_move_add_json_members(b, t, m->vm, m->cell, m->from_node, m->to_node, m->vcpus,
                                 m->memory_kib);
        json_builder_end_object(b);
    }
    json_builder_end_array(b);
    if (res->moves) {
        vn_json_add_int(b, "node", res->defrag_node);
        /* APPLY: the placement given is the one after the moves */
        vn_json_add_bool(b, "placed_after_moves", mode == VN_DEFRAGMENT_APPLY);
    }
    if (res->defrag_note)
        vn_json_add_string(b, "note", res->defrag_note);
    json_builder_end_object(b);
    node = json_builder_get_root(b);
    json_object_set_member(o, "defragment", g_steal_pointer(&node));
}
