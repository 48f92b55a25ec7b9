/* vn-ledger-reapply.c: the re-apply book (vn-ledger-reapply.h). */
#include "vn-ledger-reapply.h"

typedef struct {
    VnLedgerRecord *seen; /* the record as first seen (a copy) */
    gint64 first_ms;
    guint failures; /* in a row, for this very record */
} Entry;

struct _VnReapply {
    guint max_failures;
    GHashTable *entries; /* uuid -> Entry */
};

static void
entry_free(gpointer p)
{
    Entry *e = p;

    vn_ledger_record_free(e->seen);
    g_free(e);
}

VnReapply *
vn_reapply_new(guint max_failures)
{
    VnReapply *t;

    g_return_val_if_fail(max_failures >= 1, NULL);
    t = g_new0(VnReapply, 1);
    t->max_failures = max_failures;
    t->entries = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, entry_free);
    return t;
}

void
vn_reapply_free(VnReapply *t)
{
    if (!t)
        return;
    g_hash_table_unref(t->entries);
    g_free(t);
}

const gchar *
vn_reapply_outcome_to_string(VnReapplyOutcome o)
{
    static const gchar *const names[] = { "applied", "retry", "gave-up" };

    G_STATIC_ASSERT(G_N_ELEMENTS(names) == VN_REAPPLY_OUTCOME_MAX);
    g_return_val_if_fail(o < VN_REAPPLY_OUTCOME_MAX, NULL);
    return names[o];
}

/* A running VM's record waiting for its live apply; holds and foreign
 * VMs are never applied by vnuma. */
static gboolean
wants_apply(const VnLedgerRecord *r)
{
    return r->needs_apply && r->state == VN_LEDGER_STATE_RUNNING && r->expires == 0 && !r->foreign;
}

GPtrArray *
vn_reapply_due(VnReapply *t, GPtrArray *records, gint64 now_ms, guint grace_ms)
{
    g_autoptr(GHashTable) keep = g_hash_table_new(g_str_hash, g_str_equal);
    GPtrArray *due = g_ptr_array_new();
    GHashTableIter it;
    gpointer key;

    for (guint i = 0; i < records->len; i++) {
        VnLedgerRecord *r = g_ptr_array_index(records, i);
        Entry *e;

        if (!wants_apply(r))
            continue;
        g_hash_table_add(keep, r->uuid);
        e = g_hash_table_lookup(t->entries, r->uuid);
        if (!e || !vn_ledger_record_equal(e->seen, r)) {
            /* new, or written anew: its count starts again */
            e = g_new0(Entry, 1);
            e->seen = vn_ledger_record_copy(r);
            e->first_ms = now_ms;
            g_hash_table_replace(t->entries, g_strdup(r->uuid), e);
            continue;
        }
        if (e->failures < t->max_failures && now_ms - e->first_ms >= (gint64)grace_ms)
            g_ptr_array_add(due, r);
    }
    g_hash_table_iter_init(&it, t->entries);
    while (g_hash_table_iter_next(&it, &key, NULL))
        if (!g_hash_table_contains(keep, key))
            g_hash_table_iter_remove(&it);
    return due;
}

VnReapplyOutcome
vn_reapply_note(VnReapply *t, const VnLedgerRecord *r, gboolean ok, guint *ret_failures)
{
    Entry *e = g_hash_table_lookup(t->entries, r->uuid);

    if (ok) {
        g_hash_table_remove(t->entries, r->uuid);
        if (ret_failures)
            *ret_failures = 0;
        return VN_REAPPLY_APPLIED;
    }
    if (!e || !vn_ledger_record_equal(e->seen, r)) {
        /* not the record this book holds: start its count here */
        e = g_new0(Entry, 1);
        e->seen = vn_ledger_record_copy(r);
        g_hash_table_replace(t->entries, g_strdup(r->uuid), e);
    }
    e->failures++;
    if (ret_failures)
        *ret_failures = e->failures;
    return e->failures >= t->max_failures ? VN_REAPPLY_GAVE_UP : VN_REAPPLY_RETRY;
}

guint
vn_reapply_given_up(const VnReapply *t)
{
    GHashTableIter it;
    gpointer value;
    guint n = 0;

    g_hash_table_iter_init(&it, t->entries);
    while (g_hash_table_iter_next(&it, NULL, &value))
        n += ((Entry *)value)->failures >= t->max_failures;
    return n;
}
