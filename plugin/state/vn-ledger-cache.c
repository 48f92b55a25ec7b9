/* vn-ledger-cache.c: ledger.cache in GVariant form (see the header).
 *
 * One GVariant of type CACHE_TYPE, sealed (vn-sealed.h), laid out flat so that reading it
 * costs a few checks per record instead of a GVariant per value (a
 * GVariant tuple per record cost the hook more than json-glib did):
 *   (dev, ino, size, mtime_ns, ctime_ns, generation,
 *    records: fixed-size CacheRecord rows,
 *    cells:   fixed-size CacheCell rows, each record's a run of them,
 *    pins:    string offsets of the cells' vCPU pins, each cell's a run
 *             of them (none for a cell without vcpu_cpus),
 *    strings: NUL-terminated UTF-8 strings, referred to by byte offset)
 * The two row types are GVariant tuples of fixed-size members, so
 * g_variant_get_fixed_array() hands them out as the C structs below
 * (same members, same order, same alignment).  Every offset, count and
 * value is checked before use, as vn-ledger-json.c checks ledger.json's:
 * a record from the cache is one the JSON reader would have accepted. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "vn-cpulist.h"
#include "vn-ledger-cache.h"
#include "vn-sealed.h"

#define CACHE_MAGIC "vnuma-ledger-cache-4"
#define RECORD_TYPE "(xxtuuuuuuuuuuuuuu)"
#define CELL_TYPE "(tuuuuuu)"
#define CACHE_TYPE "(tttttta" RECORD_TYPE "a" CELL_TYPE "auay)"

typedef struct {
    gint64 time, expires;
    guint64 hugepage_kib;
    guint32 state, priority, needs_apply, dedicated;
    guint32 uuid, name, text; /* offsets into the strings */
    guint32 first_cell, n_cells, foreign;
    guint32 has_allowed, allowed; /* allowed_cpus: set?, offset into the strings */
    guint32 whole, spare;         /* spare: 0, keeps the row 8-byte aligned */
} CacheRecord;

typedef struct {
    guint64 memory_kib;
    guint32 id, node_os_id, vcpus;
    guint32 cpus;              /* offset into the strings */
    guint32 first_pin, n_pins; /* vcpu_cpus: a run of the pins (0: none) */
} CacheCell;

G_STATIC_ASSERT(sizeof(CacheRecord) == 80);
G_STATIC_ASSERT(sizeof(CacheCell) == 32);

gboolean
vn_ledger_stamp_of(const gchar *path, VnLedgerStamp *ret_stamp)
{
    struct stat st;

    if (stat(path, &st) < 0)
        return FALSE;
    ret_stamp->dev = (guint64)st.st_dev;
    ret_stamp->ino = (guint64)st.st_ino;
    ret_stamp->size = (guint64)st.st_size;
    ret_stamp->mtime_ns =
        (guint64)st.st_mtim.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)st.st_mtim.tv_nsec;
    ret_stamp->ctime_ns =
        (guint64)st.st_ctim.tv_sec * G_GUINT64_CONSTANT(1000000000) + (guint64)st.st_ctim.tv_nsec;
    return TRUE;
}

GBytes *
vn_ledger_cache_build(const VnLedgerStamp *stamp, guint64 generation, GPtrArray *records,
                      GPtrArray *texts)
{
    g_autoptr(GArray) rows = g_array_sized_new(FALSE, TRUE, sizeof(CacheRecord), records->len);
    g_autoptr(GArray) cells = g_array_new(FALSE, TRUE, sizeof(CacheCell));
    g_autoptr(GArray) pins = g_array_new(FALSE, TRUE, sizeof(guint32));
    g_autoptr(GString) strings = g_string_sized_new(records->len * 256);

    g_return_val_if_fail(records->len == texts->len, NULL);
    for (guint i = 0; i < records->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(records, i);
        CacheRecord row = {
            .time = r->time,
            .expires = r->expires,
            .hugepage_kib = r->hugepage_kib,
            .state = r->state,
            .priority = r->priority,
            .needs_apply = r->needs_apply != FALSE,
            .dedicated = r->dedicated != FALSE,
            .uuid = vn_sealed_strings_add(strings, r->uuid),
            .name = vn_sealed_strings_add(strings, r->name),
            .text = vn_sealed_strings_add(strings, g_ptr_array_index(texts, i)),
            .first_cell = cells->len,
            .n_cells = r->cells->len,
            .foreign = r->foreign != FALSE,
            .has_allowed = r->allowed_cpus != NULL,
            .allowed = vn_sealed_strings_add(strings, r->allowed_cpus ? r->allowed_cpus : ""),
            .whole = r->whole != FALSE,
        };
        for (guint c = 0; c < r->cells->len; c++) {
            const VnLedgerCell *lc = &g_array_index(r->cells, VnLedgerCell, c);
            CacheCell cell = { .memory_kib = lc->memory_kib,
                               .id = lc->id,
                               .node_os_id = lc->node_os_id,
                               .vcpus = lc->vcpus,
                               .cpus = vn_sealed_strings_add(strings, lc->cpus),
                               .first_pin = pins->len,
                               .n_pins = lc->vcpu_cpus ? lc->vcpu_cpus->len : 0 };
            for (guint k = 0; k < cell.n_pins; k++) {
                guint32 at = vn_sealed_strings_add(strings, g_ptr_array_index(lc->vcpu_cpus, k));
                g_array_append_val(pins, at);
            }
            g_array_append_val(cells, cell);
        }
        g_array_append_val(rows, row);
    }
    GVariant *v_rows = g_variant_new_fixed_array(G_VARIANT_TYPE(RECORD_TYPE), rows->data, rows->len,
                                                 sizeof(CacheRecord));
    GVariant *v_cells = g_variant_new_fixed_array(G_VARIANT_TYPE(CELL_TYPE), cells->data,
                                                  cells->len, sizeof(CacheCell));
    GVariant *v_pins =
        g_variant_new_fixed_array(G_VARIANT_TYPE_UINT32, pins->data, pins->len, sizeof(guint32));
    GVariant *v_strings =
        g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, strings->str, strings->len, 1);
    GVariant *v = g_variant_new("(tttttt@a" RECORD_TYPE "@a" CELL_TYPE "@au@ay)", stamp->dev,
                                stamp->ino, stamp->size, stamp->mtime_ns, stamp->ctime_ns,
                                generation, v_rows, v_cells, v_pins, v_strings);
    return vn_sealed_wrap(v, CACHE_MAGIC);
}

typedef struct {
    const gchar *data;
    gsize len;
    const guint32 *pins; /* the pins' string offsets */
    gsize n_pins;
} Strings;

/* A cell's vCPU pins, checked as vn-ledger-json.c's parse_vcpu_cpus()
 * checks them (a CPU list a vCPU, the count of the cell's vCPUs). */
static gboolean
read_pins(VnLedgerRecord *r, const CacheCell *c, const Strings *s)
{
    if (c->n_pins == 0)
        return TRUE;
    if (c->n_pins != c->vcpus || c->first_pin > s->n_pins || c->n_pins > s->n_pins - c->first_pin)
        return FALSE;
    for (guint32 k = 0; k < c->n_pins; k++) {
        const gchar *pin = vn_sealed_strings_at(s->data, s->len, s->pins[c->first_pin + k]);
        g_autoptr(VnBitmap) set = pin ? vn_cpulist_parse(pin, 65536, NULL) : NULL;
        if (!set || vn_bitmap_is_empty(set))
            return FALSE;
        vn_ledger_record_add_vcpu_pin(r, pin);
    }
    return TRUE;
}

/* One row, checked as vn-ledger-json.c's parse_record() and parse_cell()
 * check theirs. */
static VnLedgerRecord *
read_record(const CacheRecord *row, const CacheCell *cells, gsize n_cells, const Strings *s,
            const gchar **ret_text)
{
    const gchar *uuid = vn_sealed_strings_at(s->data, s->len, row->uuid);
    const gchar *name = vn_sealed_strings_at(s->data, s->len, row->name);
    const gchar *text = vn_sealed_strings_at(s->data, s->len, row->text);
    const gchar *allowed = vn_sealed_strings_at(s->data, s->len, row->allowed);

    if (!uuid || !name || !text || text[0] != '{' || row->state >= VN_LEDGER_STATE_MAX ||
        row->priority >= VN_PRIORITY_MAX || row->needs_apply > 1 || row->dedicated > 1 ||
        row->foreign > 1 || row->has_allowed > 1 || !allowed || row->whole > 1 || row->spare ||
        row->hugepage_kib > (guint64)G_MAXINT64 || row->time < 0 || row->expires < 0 ||
        row->first_cell > n_cells || row->n_cells > n_cells - row->first_cell)
        return NULL;
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_new(uuid, name);
    r->state = row->state;
    r->priority = row->priority;
    r->needs_apply = row->needs_apply;
    r->dedicated = row->dedicated;
    r->foreign = row->foreign;
    r->whole = row->whole;
    r->allowed_cpus = row->has_allowed ? g_strdup(allowed) : NULL;
    r->hugepage_kib = row->hugepage_kib;
    r->time = row->time;
    r->expires = row->expires;
    for (guint32 i = 0; i < row->n_cells; i++) {
        const CacheCell *c = &cells[row->first_cell + i];
        const gchar *cpus = vn_sealed_strings_at(s->data, s->len, c->cpus);
        if (!cpus || c->id > G_MAXUINT16 || c->node_os_id > G_MAXUINT16 || c->vcpus > G_MAXUINT16 ||
            c->memory_kib > (guint64)G_MAXINT64)
            return NULL;
        vn_ledger_record_add_cell(r, c->id, c->node_os_id, c->vcpus, cpus, c->memory_kib);
        if (!read_pins(r, c, s))
            return NULL;
    }
    *ret_text = text;
    return g_steal_pointer(&r);
}

gboolean
vn_ledger_cache_parse(GBytes *data, const VnLedgerStamp *stamp, GPtrArray **ret_records,
                      guint64 *ret_generation, GHashTable **ret_as_read)
{
    g_autoptr(GVariant) v = NULL;
    g_autoptr(GVariant) v_rows = NULL, v_cells = NULL, v_pins = NULL, v_strings = NULL;
    VnLedgerStamp st;
    guint64 generation;
    gsize n_rows = 0, n_cells = 0;
    Strings strings;

    g_return_val_if_fail(data != NULL, FALSE);
    v = vn_sealed_open(data, CACHE_MAGIC, G_VARIANT_TYPE(CACHE_TYPE));
    if (!v)
        return FALSE;
    g_variant_get(v, "(tttttt@a" RECORD_TYPE "@a" CELL_TYPE "@au@ay)", &st.dev, &st.ino, &st.size,
                  &st.mtime_ns, &st.ctime_ns, &generation, &v_rows, &v_cells, &v_pins, &v_strings);
    if (generation > (guint64)G_MAXINT64)
        return FALSE;
    if (stamp && memcmp(stamp, &st, sizeof(st)) != 0)
        return FALSE;
    const CacheRecord *rows = g_variant_get_fixed_array(v_rows, &n_rows, sizeof(CacheRecord));
    const CacheCell *cells = g_variant_get_fixed_array(v_cells, &n_cells, sizeof(CacheCell));
    strings.data = g_variant_get_fixed_array(v_strings, &strings.len, 1);
    strings.pins = g_variant_get_fixed_array(v_pins, &strings.n_pins, sizeof(guint32));
    /* an empty fixed array may come back as NULL */
    if ((n_rows && !rows) || (n_cells && !cells) || (strings.len && !strings.data) ||
        (strings.n_pins && !strings.pins))
        return FALSE;

    g_autoptr(GPtrArray) recs =
        g_ptr_array_new_full((guint)n_rows, (GDestroyNotify)vn_ledger_record_free);
    g_autoptr(GHashTable) as_read = ret_as_read ? vn_ledger_as_read_new() : NULL;
    g_autoptr(GHashTable) seen = g_hash_table_new(g_str_hash, g_str_equal);
    for (gsize i = 0; i < n_rows; i++) {
        const gchar *text = NULL;
        VnLedgerRecord *r = read_record(&rows[i], cells, n_cells, &strings, &text);

        if (!r)
            return FALSE;
        g_ptr_array_add(recs, r);
        if (!g_hash_table_add(seen, r->uuid))
            return FALSE;
        if (as_read)
            vn_ledger_as_read_add_text(as_read, r, text);
    }
    vn_ledger_records_sort(recs);
    *ret_records = g_steal_pointer(&recs);
    *ret_generation = generation;
    if (ret_as_read)
        *ret_as_read = g_steal_pointer(&as_read);
    return TRUE;
}

gboolean
vn_ledger_cache_read(const gchar *path, const VnLedgerStamp *stamp, GPtrArray **ret_records,
                     guint64 *ret_generation, GHashTable **ret_as_read)
{
    gchar *contents = NULL;
    gsize len = 0;

    if (!g_file_get_contents(path, &contents, &len, NULL))
        return FALSE;
    g_autoptr(GBytes) data = g_bytes_new_take(contents, len);
    return vn_ledger_cache_parse(data, stamp, ret_records, ret_generation, ret_as_read);
}

gboolean
vn_ledger_cache_write(const gchar *path, GBytes *cache)
{
    g_autofree gchar *tmp = g_strconcat(path, ".tmp", NULL);
    gsize len = 0;
    const gchar *data = g_bytes_get_data(cache, &len);

    if (g_file_set_contents_full(tmp, data, (gssize)len, G_FILE_SET_CONTENTS_NONE, 0644, NULL) &&
        rename(tmp, path) == 0)
        return TRUE;
    g_unlink(tmp);
    g_unlink(path);
    return FALSE;
}
