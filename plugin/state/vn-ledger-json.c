/* vn-ledger-json.c: ledger.json, written and read with json-glib.
 *
 * Written compact, members at their default left out (needs_apply and
 * dedicated false, priority normal, hugepage_kib 0, no expires): the hook
 * parses the whole file at every VM start and json-glib's cost is per
 * value.  Ledgers that spell the defaults out (written before) load alike.
 *
 * Parsing is strict (unknown members, wrong types, duplicate uuids are
 * errors, and vn_json_parse() refuses deep nesting, trailing data and
 * duplicate members) because the file is only ever written by vn_ledger_format(): any
 * surprise in it is corruption, and the caller rebuilds from libvirt. */
#include <json-glib/json-glib.h>
#include "vn-cpulist.h"
#include "vn-json-parse.h"
#include "vn-ledger.h"

#define LEDGER_VERSION 1

static void
add_cell(JsonBuilder *b, const VnLedgerCell *c)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "id");
    json_builder_add_int_value(b, c->id);
    json_builder_set_member_name(b, "node");
    json_builder_add_int_value(b, c->node_os_id);
    json_builder_set_member_name(b, "cpus");
    json_builder_add_string_value(b, c->cpus);
    json_builder_set_member_name(b, "vcpus");
    json_builder_add_int_value(b, c->vcpus);
    json_builder_set_member_name(b, "memory_kib");
    json_builder_add_int_value(b, (gint64)c->memory_kib);
    if (c->vcpu_cpus) {
        json_builder_set_member_name(b, "vcpu_cpus");
        json_builder_begin_array(b);
        for (guint k = 0; k < c->vcpu_cpus->len; k++)
            json_builder_add_string_value(b, g_ptr_array_index(c->vcpu_cpus, k));
        json_builder_end_array(b);
    }
    json_builder_end_object(b);
}

static void
add_record(JsonBuilder *b, const VnLedgerRecord *r)
{
    json_builder_begin_object(b);
    json_builder_set_member_name(b, "uuid");
    json_builder_add_string_value(b, r->uuid);
    json_builder_set_member_name(b, "name");
    json_builder_add_string_value(b, r->name);
    json_builder_set_member_name(b, "state");
    json_builder_add_string_value(b, vn_ledger_state_to_string(r->state));
    /* members at their default are left out: each one costs the hook a
     * few thousand instructions to parse at every VM start */
    if (r->needs_apply) {
        json_builder_set_member_name(b, "needs_apply");
        json_builder_add_boolean_value(b, TRUE);
    }
    if (r->dedicated) {
        json_builder_set_member_name(b, "dedicated");
        json_builder_add_boolean_value(b, TRUE);
    }
    if (r->priority != VN_PRIORITY_NORMAL) {
        json_builder_set_member_name(b, "priority");
        json_builder_add_string_value(b, vn_priority_to_string(r->priority));
    }
    if (r->hugepage_kib) {
        json_builder_set_member_name(b, "hugepage_kib");
        json_builder_add_int_value(b, (gint64)r->hugepage_kib);
    }
    json_builder_set_member_name(b, "time");
    json_builder_add_int_value(b, r->time);
    if (r->expires) {
        json_builder_set_member_name(b, "expires");
        json_builder_add_int_value(b, r->expires);
    }
    if (r->foreign) {
        json_builder_set_member_name(b, "foreign");
        json_builder_add_boolean_value(b, TRUE);
    }
    if (r->whole) {
        json_builder_set_member_name(b, "whole");
        json_builder_add_boolean_value(b, TRUE);
    }
    if (r->allowed_cpus) {
        json_builder_set_member_name(b, "allowed_cpus");
        json_builder_add_string_value(b, r->allowed_cpus);
    }
    json_builder_set_member_name(b, "cells");
    json_builder_begin_array(b);
    for (guint i = 0; i < r->cells->len; i++)
        add_cell(b, &g_array_index(r->cells, VnLedgerCell, i));
    json_builder_end_array(b);
    json_builder_end_object(b);
}

/* A record as read (a copy: the caller may change or free the record
 * itself) and its text: the object json-glib read (from ledger.json) or
 * the compact text itself (from ledger.cache). */
typedef struct {
    VnLedgerRecord *record;
    JsonNode *node;
    gchar *text;
} AsRead;

static void
as_read_free(gpointer data)
{
    AsRead *a = data;
    vn_ledger_record_free(a->record);
    g_clear_pointer(&a->node, json_node_unref);
    g_free(a->text);
    g_free(a);
}

GHashTable *
vn_ledger_as_read_new(void)
{
    return g_hash_table_new_full(NULL, NULL, NULL, as_read_free);
}

static AsRead *
as_read_add(GHashTable *as_read, VnLedgerRecord *r)
{
    AsRead *a = g_new0(AsRead, 1);
    a->record = vn_ledger_record_copy(r);
    g_hash_table_insert(as_read, r, a);
    return a;
}

void
vn_ledger_as_read_add_text(GHashTable *as_read, VnLedgerRecord *r, const gchar *text)
{
    as_read_add(as_read, r)->text = g_strdup(text);
}

static gchar *
node_text(JsonNode *node)
{
    g_autoptr(JsonGenerator) gen = json_generator_new();
    json_generator_set_root(gen, node);
    json_generator_set_pretty(gen, FALSE); /* compact: the hook reads it at every start */
    return json_generator_to_data(gen, NULL);
}

/* `r` as compact JSON: as read when it still equals what was read
 * (keyed by address: a record freed and another allocated there is
 * caught by the comparison), else built anew. */
static gchar *
record_text(const VnLedgerRecord *r, GHashTable *as_read)
{
    AsRead *a = as_read ? g_hash_table_lookup(as_read, r) : NULL;
    if (a && vn_ledger_record_equal(r, a->record)) {
        if (a->text)
            return g_strdup(a->text);
        return node_text(a->node);
    }
    g_autoptr(JsonBuilder) b = json_builder_new();
    add_record(b, r);
    g_autoptr(JsonNode) node = json_builder_get_root(b);
    return node_text(node);
}

GPtrArray *
vn_ledger_record_texts(GPtrArray *records, GHashTable *as_read)
{
    GPtrArray *texts = g_ptr_array_new_full(records->len, g_free);
    for (guint i = 0; i < records->len; i++)
        g_ptr_array_add(texts, record_text(g_ptr_array_index(records, i), as_read));
    return texts;
}

/* The document around the records' texts, as json-glib's compact
 * generator writes it (the unit tests hold the two byte for byte
 * alike): generating the envelope once and the records one by one lets
 * an unchanged record's text be reused as read. */
gchar *
vn_ledger_format_texts(GPtrArray *texts, guint64 generation)
{
    g_autoptr(GString) s = g_string_new(NULL);
    g_string_append_printf(s, "{\"version\":%d,\"generation\":%" G_GUINT64_FORMAT ",\"domains\":[",
                           LEDGER_VERSION, generation);
    for (guint i = 0; i < texts->len; i++) {
        if (i)
            g_string_append_c(s, ',');
        g_string_append(s, g_ptr_array_index(texts, i));
    }
    g_string_append(s, "]}\n");
    return g_string_free(g_steal_pointer(&s), FALSE);
}

gchar *
vn_ledger_format(GPtrArray *records, guint64 generation)
{
    return vn_ledger_format_reusing(records, generation, NULL);
}

gchar *
vn_ledger_format_reusing(GPtrArray *records, guint64 generation, GHashTable *as_read)
{
    g_autoptr(GPtrArray) texts = vn_ledger_record_texts(records, as_read);
    return vn_ledger_format_texts(texts, generation);
}

/* --- parsing --- */

typedef struct {
    const gchar *origin;
    GError **error;
    guint record, cell; /* where a NULL `where` below points */
    gboolean in_cell;
} Ctx;

/* `where`, or for NULL the record (and cell) being read: built only on
 * the error path (the hook reads every record at every VM start). */
static gchar *
path_of(const Ctx *x, const gchar *where)
{
    if (where)
        return g_strdup(where);
    if (x->in_cell)
        return g_strdup_printf("domains[%u].cells[%u]", x->record, x->cell);
    return g_strdup_printf("domains[%u]", x->record);
}

static gboolean
fail(Ctx *x, const gchar *where, const gchar *what)
{
    g_autofree gchar *w = path_of(x, where);
    g_set_error(x->error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT, "%s: %s: %s", x->origin, w,
                what);
    return FALSE;
}

/* fail() for member `name` of `where`. */
static gboolean
fail_member(Ctx *x, const gchar *where, const gchar *name, const gchar *what)
{
    g_autofree gchar *path = path_of(x, where);
    g_autofree gchar *w = g_strdup_printf("%s.%s", path, name);
    return fail(x, w, what);
}

/* Checks that `o` has only members from `allowed` (NULL-terminated). */
static gboolean
only_members(Ctx *x, const gchar *where, JsonObject *o, const gchar *const *allowed)
{
    JsonObjectIter iter;
    const gchar *name;
    json_object_iter_init(&iter, o);
    while (json_object_iter_next(&iter, &name, NULL)) {
        if (!g_strv_contains(allowed, name)) {
            g_autofree gchar *quoted = vn_json_quote(name);
            g_autofree gchar *m = g_strdup_printf("unknown member %s", quoted);
            return fail(x, where, m);
        }
    }
    return TRUE;
}

static gboolean
get_uint(Ctx *x, const gchar *where, JsonObject *o, const gchar *name, guint64 max, guint64 *ret)
{
    JsonNode *n = json_object_get_member(o, name);
    if (!n)
        return fail_member(x, where, name, "missing");
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_INT64)
        return fail_member(x, where, name, "not an integer");
    gint64 v = json_node_get_int(n);
    if (v < 0 || (guint64)v > max)
        return fail_member(x, where, name, "out of range");
    *ret = (guint64)v;
    return TRUE;
}

static const gchar *
get_string(Ctx *x, const gchar *where, JsonObject *o, const gchar *name)
{
    JsonNode *n = json_object_get_member(o, name);
    if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING) {
        fail_member(x, where, name, n ? "not a string" : "missing");
        return NULL;
    }
    return json_node_get_string(n);
}

static gboolean
get_bool(Ctx *x, const gchar *where, JsonObject *o, const gchar *name, gboolean *ret)
{
    JsonNode *n = json_object_get_member(o, name);
    if (!n || !JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_BOOLEAN)
        return fail_member(x, where, name, n ? "not a boolean" : "missing");
    *ret = json_node_get_boolean(n);
    return TRUE;
}

/* get_bool() for a member left out when FALSE. */
static gboolean
get_optional_bool(Ctx *x, const gchar *where, JsonObject *o, const gchar *name, gboolean *ret)
{
    if (!json_object_has_member(o, name)) {
        *ret = FALSE;
        return TRUE;
    }
    return get_bool(x, where, o, name, ret);
}

static JsonArray *
get_array(Ctx *x, const gchar *where, JsonObject *o, const gchar *name)
{
    JsonNode *n = json_object_get_member(o, name);
    if (!n || !JSON_NODE_HOLDS_ARRAY(n)) {
        fail_member(x, where, name, n ? "not an array" : "missing");
        return NULL;
    }
    return json_node_get_array(n);
}

/* "vcpu_cpus": one CPU list a vCPU of the cell (`vcpus` of them). */
static gboolean
parse_vcpu_cpus(Ctx *x, const gchar *where, JsonObject *o, guint64 vcpus, VnLedgerRecord *r)
{
    JsonArray *pins;

    if (!json_object_has_member(o, "vcpu_cpus"))
        return TRUE;
    if (!(pins = get_array(x, where, o, "vcpu_cpus")))
        return FALSE;
    if (json_array_get_length(pins) != vcpus)
        return fail_member(x, where, "vcpu_cpus", "not one CPU list a vCPU of the cell");
    for (guint k = 0; k < json_array_get_length(pins); k++) {
        JsonNode *e = json_array_get_element(pins, k);
        const gchar *list = JSON_NODE_HOLDS_VALUE(e) && json_node_get_value_type(e) == G_TYPE_STRING
                                ? json_node_get_string(e)
                                : NULL;
        g_autoptr(VnBitmap) set = list ? vn_cpulist_parse(list, 65536, NULL) : NULL;
        if (!set || vn_bitmap_is_empty(set))
            return fail_member(x, where, "vcpu_cpus", "holds something that is not a CPU list");
        vn_ledger_record_add_vcpu_pin(r, list);
    }
    return TRUE;
}

static gboolean
parse_cell(Ctx *x, const gchar *where, JsonNode *n, VnLedgerRecord *r)
{
    static const gchar *const allowed[] = { "id",         "node",      "cpus", "vcpus",
                                            "memory_kib", "vcpu_cpus", NULL };
    if (!JSON_NODE_HOLDS_OBJECT(n))
        return fail(x, where, "not an object");
    JsonObject *o = json_node_get_object(n);
    guint64 id, node, vcpus, mem;
    const gchar *cpus;
    if (!only_members(x, where, o, allowed) || !get_uint(x, where, o, "id", G_MAXUINT16, &id) ||
        !get_uint(x, where, o, "node", G_MAXUINT16, &node) ||
        !get_uint(x, where, o, "vcpus", G_MAXUINT16, &vcpus) ||
        !get_uint(x, where, o, "memory_kib", G_MAXINT64, &mem) ||
        !(cpus = get_string(x, where, o, "cpus")))
        return FALSE;
    vn_ledger_record_add_cell(r, id, node, vcpus, cpus, mem);
    return parse_vcpu_cpus(x, where, o, vcpus, r);
}

static gboolean
parse_record_enums(Ctx *x, const gchar *where, JsonObject *o, VnLedgerRecord *r)
{
    const gchar *s = get_string(x, where, o, "state");
    if (!s)
        return FALSE;
    if (!vn_ledger_state_from_string(s, &r->state))
        return fail(x, where, "state is neither reserved nor running");
    if (!json_object_has_member(o, "priority"))
        return TRUE; /* normal, as vn_ledger_record_new() left it */
    s = get_string(x, where, o, "priority");
    if (!s)
        return FALSE;
    if (!vn_priority_from_string(s, &r->priority))
        return fail(x, where, "unknown priority");
    return TRUE;
}

static VnLedgerRecord *
parse_record(Ctx *x, guint index, JsonNode *n)
{
    static const gchar *const allowed[] = { "uuid",      "name",     "state",        "needs_apply",
                                            "dedicated", "priority", "hugepage_kib", "time",
                                            "cells",     "expires",  "foreign",      "allowed_cpus",
                                            "whole",     NULL };
    const gchar *where = NULL; /* domains[index] */
    x->record = index;
    x->in_cell = FALSE;
    if (!JSON_NODE_HOLDS_OBJECT(n)) {
        fail(x, where, "not an object");
        return NULL;
    }
    JsonObject *o = json_node_get_object(n);
    const gchar *uuid, *name;
    if (!only_members(x, where, o, allowed) || !(uuid = get_string(x, where, o, "uuid")) ||
        !(name = get_string(x, where, o, "name")))
        return NULL;
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_new(uuid, name);
    guint64 huge = 0, time;
    JsonArray *cells;
    if (!parse_record_enums(x, where, o, r) ||
        !get_optional_bool(x, where, o, "needs_apply", &r->needs_apply) ||
        !get_optional_bool(x, where, o, "dedicated", &r->dedicated) ||
        !get_optional_bool(x, where, o, "foreign", &r->foreign) ||
        !get_optional_bool(x, where, o, "whole", &r->whole) ||
        (json_object_has_member(o, "hugepage_kib") &&
         !get_uint(x, where, o, "hugepage_kib", G_MAXINT64, &huge)) ||
        !get_uint(x, where, o, "time", G_MAXINT64, &time) ||
        !(cells = get_array(x, where, o, "cells")))
        return NULL;
    r->hugepage_kib = huge;
    r->time = (gint64)time;
    if (json_object_has_member(o, "expires")) {
        guint64 expires;
        if (!get_uint(x, where, o, "expires", G_MAXINT64, &expires))
            return NULL;
        r->expires = (gint64)expires;
    }
    if (json_object_has_member(o, "allowed_cpus")) {
        const gchar *list = get_string(x, where, o, "allowed_cpus");
        g_autoptr(VnBitmap) set = list ? vn_cpulist_parse(list, 65536, NULL) : NULL;
        if (!set) {
            if (list)
                fail_member(x, where, "allowed_cpus", "not a CPU list");
            return NULL;
        }
        r->allowed_cpus = g_strdup(list);
    }
    for (guint i = 0; i < json_array_get_length(cells); i++) {
        x->cell = i;
        x->in_cell = TRUE;
        if (!parse_cell(x, NULL, json_array_get_element(cells, i), r))
            return NULL;
        x->in_cell = FALSE;
    }
    return g_steal_pointer(&r);
}

static GPtrArray *
parse_records(Ctx *x, JsonArray *domains, GHashTable *as_read)
{
    g_autoptr(GPtrArray) recs =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (guint i = 0; i < json_array_get_length(domains); i++) {
        JsonNode *n = json_array_get_element(domains, i);
        VnLedgerRecord *r = parse_record(x, i, n);
        if (!r)
            return NULL;
        g_ptr_array_add(recs, r);
        if (as_read)
            as_read_add(as_read, r)->node = json_node_ref(n);
        if (!g_hash_table_add(seen, r->uuid)) {
            g_autofree gchar *quoted = vn_json_quote(r->uuid);
            g_autofree gchar *w = g_strdup_printf("domains[%u].uuid", i);
            g_autofree gchar *m = g_strdup_printf("%s recorded twice", quoted);
            fail(x, w, m);
            return NULL;
        }
    }
    vn_ledger_records_sort(recs);
    return g_steal_pointer(&recs);
}

gboolean
vn_ledger_parse(const gchar *text, gsize len, const gchar *origin, GPtrArray **ret_records,
                guint64 *ret_generation, GError **error)
{
    return vn_ledger_parse_keeping(text, len, origin, ret_records, ret_generation, NULL, error);
}

gboolean
vn_ledger_parse_keeping(const gchar *text, gsize len, const gchar *origin, GPtrArray **ret_records,
                        guint64 *ret_generation, GHashTable **ret_as_read, GError **error)
{
    static const gchar *const allowed[] = { "version", "generation", "domains", NULL };
    Ctx x = { .origin = origin, .error = error };
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = vn_json_parse(text, len, &local);
    if (!root) {
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT, "%s: %s", origin,
                    local->message);
        return FALSE;
    }
    if (!JSON_NODE_HOLDS_OBJECT(root))
        return fail(&x, "top level", "not an object");
    JsonObject *o = json_node_get_object(root);
    guint64 version, generation;
    JsonArray *domains;
    if (!only_members(&x, "top level", o, allowed) ||
        !get_uint(&x, "top level", o, "version", G_MAXINT32, &version) ||
        !get_uint(&x, "top level", o, "generation", G_MAXINT64, &generation) ||
        !(domains = get_array(&x, "top level", o, "domains")))
        return FALSE;
    if (version != LEDGER_VERSION)
        return fail(&x, "version", "unsupported ledger version");
    g_autoptr(GHashTable) as_read = ret_as_read ? vn_ledger_as_read_new() : NULL;
    GPtrArray *recs = parse_records(&x, domains, as_read);
    if (!recs)
        return FALSE;
    *ret_records = recs;
    *ret_generation = generation;
    if (ret_as_read)
        *ret_as_read = g_steal_pointer(&as_read);
    return TRUE;
}
