/* vnd-spec.c: request bodies -> VnRequest, strictly typed.
 *
 * json-glib gives integers as G_TYPE_INT64 and anything with a fraction or
 * an exponent as G_TYPE_DOUBLE; only the former is an integer here, so 4.0
 * vCPUs is refused rather than guessed. */
#include "vnd.h"
#include "vnd-spec.h"
#include "vn-json-parse.h"

#include <stdarg.h>
#include <string.h>

/* the request schema's limits are the core's (vn-request.h) */
#define MAX_MEMORY_MIB ((gint64)VN_REQUEST_MAX_MEMORY_MIB)
#define MAX_NAME 256

static const gchar *const plan_members[] = { "vcpus",      "memory_mib",     "dedicated",  "smt",
                                             "hugepages",  "iothreads",      "priority",   "cells",
                                             "cell_sizes", "devices",        "domain_xml", "force",
                                             "explain",    "distinct_nodes", "tiers",      "memory",
                                             NULL };
static const gchar *const fit_members[] = { "vcpus",          "memory_mib", "dedicated",  "smt",
                                            "hugepages",      "iothreads",  "priority",   "cells",
                                            "cell_sizes",     "devices",    "domain_xml", "force",
                                            "distinct_nodes", NULL };
static const gchar *const reserve_members[] = {
    "vcpus", "memory_mib",     "dedicated", "smt",        "hugepages", "iothreads", "priority",
    "cells", "cell_sizes",     "devices",   "domain_xml", "force",     "ttl_s",     "name",
    "uuid",  "distinct_nodes", NULL
};
static const gchar *const vm_members[] = { "vcpus",      "memory_mib", "dedicated",      "smt",
                                           "hugepages",  "iothreads",  "priority",       "cells",
                                           "cell_sizes", "devices",    "distinct_nodes", "tiers",
                                           "memory",     NULL };

const gchar *const *
vnd_spec_members(VndSpecKind kind)
{
    switch (kind) {
    case VND_SPEC_FIT:
        return fit_members;
    case VND_SPEC_RESERVE:
        return reserve_members;
    default:
        return plan_members;
    }
}

void
vnd_spec_free(VndSpec *s)
{
    if (!s)
        return;
    vn_request_free(s->request);
    g_free(s->domain_xml);
    g_free(s->name);
    g_free(s);
}

static gboolean G_GNUC_PRINTF(3, 4) bad(GError **error, const gchar *member, const gchar *fmt, ...)
{
    g_autofree gchar *what = NULL;
    va_list args;

    va_start(args, fmt);
    what = g_strdup_vprintf(fmt, args);
    va_end(args);
    g_set_error(error, VND_ERROR, VND_ERROR_BAD_REQUEST, "%s: %s", member, what);
    return FALSE;
}

static gboolean
holds(JsonNode *n, GType type)
{
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == type;
}

/* The member `name` in *ret_n when it holds a value of `type` (NULL when
 * absent); FALSE with "name: must" when it holds something else. */
static gboolean
get_typed(JsonObject *o, const gchar *name, GType type, const gchar *must, JsonNode **ret_n,
          GError **error)
{
    JsonNode *n = json_object_get_member(o, name);

    *ret_n = NULL;
    if (n && !holds(n, type))
        return bad(error, name, "%s", must);
    *ret_n = n;
    return TRUE;
}

/* An integer member within [min, max]; absent leaves *ret alone. */
static gboolean
get_int(JsonObject *o, const gchar *name, gint64 min, gint64 max, gint64 *ret, GError **error)
{
    g_autofree gchar *must = g_strdup_printf(
        "must be an integer from %" G_GINT64_FORMAT " to %" G_GINT64_FORMAT, min, max);
    JsonNode *n;

    if (!get_typed(o, name, G_TYPE_INT64, must, &n, error))
        return FALSE;
    if (n && (json_node_get_int(n) < min || json_node_get_int(n) > max))
        return bad(error, name, "%s", must);
    if (n)
        *ret = json_node_get_int(n);
    return TRUE;
}

static gboolean
get_bool(JsonObject *o, const gchar *name, gboolean *ret, GError **error)
{
    JsonNode *n;

    if (!get_typed(o, name, G_TYPE_BOOLEAN, "must be true or false", &n, error))
        return FALSE;
    if (n)
        *ret = json_node_get_boolean(n);
    return TRUE;
}

/* A string member, borrowed; absent = NULL. */
static gboolean
get_string(JsonObject *o, const gchar *name, const gchar **ret, GError **error)
{
    JsonNode *n;

    *ret = NULL;
    if (!get_typed(o, name, G_TYPE_STRING, "must be a string", &n, error))
        return FALSE;
    *ret = n ? json_node_get_string(n) : NULL;
    return TRUE;
}

/* An element `where` of an array of objects with only the members
 * `allowed`: its object in *ret_o. */
static gboolean
get_element_object(JsonNode *n, const gchar *where, const gchar *const *allowed, JsonObject **ret_o,
                   GError **error)
{
    g_autoptr(GList) members = NULL;

    if (!JSON_NODE_HOLDS_OBJECT(n)) {
        g_autofree gchar *names = g_strjoinv("\", \"", (gchar **)allowed);
        return bad(error, where, "must be an object {\"%s\"}", names);
    }
    members = json_object_get_members(json_node_get_object(n));
    for (GList *l = members; l; l = l->next)
        if (!g_strv_contains(allowed, l->data)) {
            g_autofree gchar *shown = vn_json_escape(l->data);
            return bad(error, where, "unknown member \"%s\"", shown);
        }
    *ret_o = json_node_get_object(n);
    return TRUE;
}

static gboolean
require(JsonObject *o, const gchar *name, GError **error)
{
    return json_object_has_member(o, name) || bad(error, name, "required");
}

/* "2M", "1G" or the page size in KiB. */
static gboolean
get_hugepages(JsonObject *o, guint64 *ret_kib, GError **error)
{
    JsonNode *n = json_object_get_member(o, "hugepages");
    gint64 kib = 0;

    if (!n)
        return TRUE;
    if (holds(n, G_TYPE_STRING)) {
        const gchar *s = json_node_get_string(n);
        kib = g_str_equal(s, "2M")   ? (gint64)VN_REQUEST_HUGEPAGE_2M_KIB
              : g_str_equal(s, "1G") ? (gint64)VN_REQUEST_HUGEPAGE_1G_KIB
                                     : 0;
    } else if (holds(n, G_TYPE_INT64)) {
        kib = json_node_get_int(n);
    }
    if (kib != (gint64)VN_REQUEST_HUGEPAGE_2M_KIB && kib != (gint64)VN_REQUEST_HUGEPAGE_1G_KIB)
        return bad(error, "hugepages", "must be \"2M\", \"1G\", 2048 or 1048576 (KiB)");
    *ret_kib = (guint64)kib;
    return TRUE;
}

/* "tiers": off | spill | guest (the VM's own, over [placement] tiers);
 * "memory": "interleave" (its memory interleaved over several nodes
 * instead of guest cells). */
static gboolean
get_memory_wishes(JsonObject *o, VnRequest *r, GError **error)
{
    const gchar *tiers, *memory;

    if (!get_string(o, "tiers", &tiers, error) || !get_string(o, "memory", &memory, error))
        return FALSE;
    if (tiers && !vn_tiers_from_string(tiers, &r->tiers)) {
        g_autofree gchar *shown = vn_json_quote(tiers);
        return bad(error, "tiers", "%s is not one of off, spill, guest", shown);
    }
    r->tiers_set = tiers != NULL;
    if (memory && g_strcmp0(memory, "interleave") != 0) {
        g_autofree gchar *shown = vn_json_quote(memory);
        return bad(error, "memory", "%s is not \"interleave\", the one memory wish there is",
                   shown);
    }
    if (memory)
        r->interleave = VN_INTERLEAVE_WISH;
    return TRUE;
}

static gboolean
get_enums(JsonObject *o, VnRequest *r, GError **error)
{
    const gchar *smt, *priority;

    if (!get_string(o, "smt", &smt, error) || !get_string(o, "priority", &priority, error))
        return FALSE;
    if (smt && !vn_smt_policy_from_string(smt, &r->smt)) {
        g_autofree gchar *shown = vn_json_quote(smt);
        return bad(error, "smt", "%s is not one of prefer, isolate, require", shown);
    }
    if (smt && !r->dedicated)
        return bad(error, "smt", "only meaningful with \"dedicated\": true");
    if (priority && !vn_priority_from_string(priority, &r->priority)) {
        g_autofree gchar *shown = vn_json_quote(priority);
        return bad(error, "priority", "%s is not one of low, normal, high", shown);
    }
    return get_memory_wishes(o, r, error);
}

static gboolean
get_device(JsonNode *n, guint i, VnRequest *r, GError **error)
{
    static const gchar *const allowed[] = { "node", "iothread", "name", NULL };
    g_autofree gchar *where = g_strdup_printf("devices[%u]", i);
    gint64 node = -1, iothread = 0;
    const gchar *name = NULL;
    JsonObject *o;

    if (!get_element_object(n, where, allowed, &o, error))
        return FALSE;
    if (!get_int(o, "node", 0, VN_REQUEST_MAX_NODE_ID, &node, error) ||
        !get_int(o, "iothread", 0, VN_REQUEST_MAX_IOTHREADS, &iothread, error) ||
        !get_string(o, "name", &name, error)) {
        g_prefix_error(error, "%s.", where);
        return FALSE;
    }
    if (node < 0)
        return bad(error, where, "\"node\" is required");
    {
        g_autofree gchar *fallback = g_strdup_printf("device %u", i + 1);
        vn_request_add_device(r, (guint)node, (gint)iothread, name ? name : fallback);
    }
    return TRUE;
}

static gboolean
get_devices(JsonObject *o, VnRequest *r, GError **error)
{
    JsonNode *n = json_object_get_member(o, "devices");
    JsonArray *a;

    if (!n)
        return TRUE;
    if (!JSON_NODE_HOLDS_ARRAY(n))
        return bad(error, "devices", "must be an array");
    a = json_node_get_array(n);
    if (json_array_get_length(a) > VN_REQUEST_MAX_DEVICES)
        return bad(error, "devices", "at most %d", VN_REQUEST_MAX_DEVICES);
    for (guint i = 0; i < json_array_get_length(a); i++)
        if (!get_device(json_array_get_element(a, i), i, r, error))
            return FALSE;
    return TRUE;
}

/* cell_sizes[i]: {"vcpus", "memory_mib"}, appended to r's cell sizes and
 * added to its vcpus and memory_kib. */
static gboolean
get_cell_size(JsonNode *n, guint i, VnRequest *r, GError **error)
{
    static const gchar *const allowed[] = { "vcpus", "memory_mib", NULL };
    g_autofree gchar *where = g_strdup_printf("cell_sizes[%u]", i);
    gint64 vcpus = -1, mib = -1;
    JsonObject *o;

    if (!get_element_object(n, where, allowed, &o, error))
        return FALSE;
    if (!get_int(o, "vcpus", 0, VN_REQUEST_MAX_VCPUS, &vcpus, error) ||
        !get_int(o, "memory_mib", 1, MAX_MEMORY_MIB, &mib, error)) {
        g_prefix_error(error, "%s.", where);
        return FALSE;
    }
    if (vcpus < 0 || mib < 0)
        return bad(error, where, "\"%s\" is required", vcpus < 0 ? "vcpus" : "memory_mib");
    vn_request_add_cell_size(r, (guint)vcpus, (guint64)mib * 1024);
    r->vcpus += (guint)vcpus;
    r->memory_kib += (guint64)mib * 1024;
    return TRUE;
}

/* cell_sizes: the VM cell by cell; r's vcpus, memory_kib and cells become
 * the cells' sums and count. */
static gboolean
get_cell_sizes(JsonObject *o, VnRequest *r, GError **error)
{
    JsonNode *n = json_object_get_member(o, "cell_sizes");
    JsonArray *a = n && JSON_NODE_HOLDS_ARRAY(n) ? json_node_get_array(n) : NULL;

    if (!a || json_array_get_length(a) == 0 || json_array_get_length(a) > VN_REQUEST_MAX_CELL_SIZES)
        return bad(error, "cell_sizes",
                   "must be an array of 1 to %d cells {\"vcpus\", \"memory_mib\"}",
                   VN_REQUEST_MAX_CELL_SIZES);
    for (guint i = 0; i < json_array_get_length(a); i++)
        if (!get_cell_size(json_array_get_element(a, i), i, r, error))
            return FALSE;
    r->cells = json_array_get_length(a);
    if (r->vcpus == 0)
        return bad(error, "cell_sizes", "no cell has vCPUs (at least one needs some)");
    if (r->vcpus > VN_REQUEST_MAX_VCPUS || r->memory_kib / 1024 > (guint64)MAX_MEMORY_MIB)
        return bad(error, "cell_sizes",
                   "the cells hold %u vCPUs and %" G_GUINT64_FORMAT " MiB, more than "
                   "a VM may (%d vCPUs, %" G_GINT64_FORMAT " MiB)",
                   r->vcpus, r->memory_kib / 1024, VN_REQUEST_MAX_VCPUS, MAX_MEMORY_MIB);
    return TRUE;
}

/* With cell_sizes, "vcpus", "memory_mib" and "cells" may be left out;
 * given, they must say what the cells say. */
static gboolean
check_cell_sizes(JsonObject *o, const VnRequest *r, gint64 vcpus, gint64 mib, gint64 cells,
                 GError **error)
{
    if (json_object_has_member(o, "vcpus") && (guint64)vcpus != r->vcpus)
        return bad(error, "vcpus", "%" G_GINT64_FORMAT ", but cell_sizes hold %u vCPUs", vcpus,
                   r->vcpus);
    if (json_object_has_member(o, "memory_mib") && (guint64)mib * 1024 != r->memory_kib)
        return bad(error, "memory_mib",
                   "%" G_GINT64_FORMAT ", but cell_sizes hold %" G_GUINT64_FORMAT " MiB", mib,
                   r->memory_kib / 1024);
    if (json_object_has_member(o, "cells") && (guint64)cells != r->cells)
        return bad(error, "cells", "%" G_GINT64_FORMAT ", but cell_sizes has %u cells", cells,
                   r->cells);
    return TRUE;
}

static VnRequest *
request_from_body(JsonObject *o, GError **error)
{
    g_autoptr(VnRequest) r = vn_request_new();
    gint64 vcpus = 0, mib = 0, iothreads = 0, cells = 0;
    gboolean sized = json_object_has_member(o, "cell_sizes");

    if ((!sized && (!require(o, "vcpus", error) || !require(o, "memory_mib", error))) ||
        !get_int(o, "vcpus", 1, VN_REQUEST_MAX_VCPUS, &vcpus, error) ||
        !get_int(o, "memory_mib", 1, MAX_MEMORY_MIB, &mib, error) ||
        !get_bool(o, "dedicated", &r->dedicated, error) ||
        !get_bool(o, "distinct_nodes", &r->distinct_nodes, error) ||
        !get_hugepages(o, &r->hugepage_kib, error) ||
        !get_int(o, "iothreads", 0, VN_REQUEST_MAX_IOTHREADS, &iothreads, error) ||
        !get_int(o, "cells", 0, VN_REQUEST_MAX_CELLS, &cells, error) || !get_enums(o, r, error) ||
        !get_devices(o, r, error))
        return NULL;
    r->iothreads = (guint)iothreads;
    if (r->distinct_nodes && !sized && !cells) {
        bad(error, "distinct_nodes", "only meaningful with \"cells\" or \"cell_sizes\"");
        return NULL;
    }
    if (sized) {
        if (!get_cell_sizes(o, r, error) || !check_cell_sizes(o, r, vcpus, mib, cells, error))
            return NULL;
        /* identical cells: the even split, as "cells" alone plans it */
        vn_request_forget_even_cell_sizes(r);
        return g_steal_pointer(&r);
    }
    r->vcpus = (guint)vcpus;
    r->memory_kib = (guint64)mib * 1024;
    r->cells = (guint)cells;
    if (r->cells > r->vcpus) {
        bad(error, "cells", "more cells (%u) than vCPUs (%u)", r->cells, r->vcpus);
        return NULL;
    }
    return g_steal_pointer(&r);
}

/* domain_xml excludes the VM members: the domain says all of it. */
static gboolean
get_domain_xml(JsonObject *o, VndSpec *s, GError **error)
{
    const gchar *xml;

    if (!get_string(o, "domain_xml", &xml, error))
        return FALSE;
    if (!xml)
        return TRUE;
    for (guint i = 0; vm_members[i]; i++)
        if (json_object_has_member(o, vm_members[i]))
            return bad(error, vm_members[i],
                       "not allowed with \"domain_xml\" (the domain says it)");
    if (!*xml)
        return bad(error, "domain_xml", "empty");
    s->domain_xml = g_strdup(xml);
    return TRUE;
}

/* A control character (a newline, a tab, an escape) in a name would
 * break the log lines, metrics labels and status tables that show it. */
static gboolean
has_control(const gchar *s)
{
    for (; *s; s++)
        if ((guchar)*s < 0x20 || *s == 0x7f)
            return TRUE;
    return FALSE;
}

static gboolean
get_reservation(JsonObject *o, VndSpec *s, GError **error)
{
    gint64 ttl = VND_RESERVATION_TTL_DEFAULT;
    const gchar *name, *uuid;

    if (!get_int(o, "ttl_s", 1, VND_RESERVATION_TTL_MAX, &ttl, error) ||
        !get_string(o, "name", &name, error) || !get_string(o, "uuid", &uuid, error))
        return FALSE;
    /* a hold for the domain with this UUID (a cloud controller knows its
     * instance's UUID before libvirt knows its name): the hook takes it
     * at that domain's prepare by UUID, whatever the domain is called */
    if (uuid && name)
        return bad(error, "uuid", "give \"name\" or \"uuid\", not both");
    if (uuid && !g_uuid_string_is_valid(uuid))
        return bad(error, "uuid", "must be a UUID such as 2a2a2a2a-0000-4000-8000-00000000002a");
    if (uuid) {
        s->ttl_s = (guint)ttl;
        s->name = g_ascii_strdown(uuid, -1);
        return TRUE;
    }
    if (name && (!*name || strlen(name) > MAX_NAME || strchr(name, '/') ||
                 !g_utf8_validate(name, -1, NULL) || has_control(name)))
        return bad(error, "name", "must be 1 to %d characters without '/' or control characters",
                   MAX_NAME);
    s->ttl_s = (guint)ttl;
    s->name = g_strdup(name);
    return TRUE;
}

VndSpec *
vnd_spec_parse(JsonObject *body, VndSpecKind kind, GError **error)
{
    g_autoptr(VndSpec) s = g_new0(VndSpec, 1);

    if (!get_domain_xml(body, s, error) || !get_bool(body, "force", &s->force, error) ||
        !get_bool(body, "explain", &s->explain, error))
        return NULL;
    if (s->force && !s->domain_xml) {
        bad(error, "force", "only meaningful with \"domain_xml\"");
        return NULL;
    }
    if (kind == VND_SPEC_RESERVE && !get_reservation(body, s, error))
        return NULL;
    if (!s->domain_xml && !(s->request = request_from_body(body, error)))
        return NULL;
    return g_steal_pointer(&s);
}
