/* vn-ledger-reclaim.c: drop records of domains that no longer run.
 *
 * libvirt keeps <run_dir>/<name>.xml (the status XML) exactly while a
 * domain runs, and writes it atomically, so its presence is a race-free
 * "still running" test that needs no libvirt call (the hook must not make
 * one). */
#include "vn-ledger.h"

typedef struct {
    const gchar *run_dir;
    gint64 now;
    guint grace_s;
} Keep;

static gboolean
still_running(const VnLedgerRecord *r, const Keep *k)
{
    g_autofree gchar *file = g_strconcat(r->name, ".xml", NULL);
    g_autofree gchar *path = g_build_filename(k->run_dir, file, NULL);
    if (g_file_test(path, G_FILE_TEST_EXISTS))
        return TRUE;
    /* a hold with a deadline lives until it, and no longer */
    if (r->expires)
        return k->now < r->expires;
    return r->state == VN_LEDGER_STATE_RESERVED && k->now - r->time < (gint64)k->grace_s;
}

static gboolean
not_expired(const VnLedgerRecord *r, const Keep *k)
{
    return !r->expires || k->now < r->expires;
}

/* Removes the records `keep` says no to; their names in `ret_removed`. */
static guint
remove_unless(VnLedger *l, gboolean (*keep)(const VnLedgerRecord *, const Keep *), const Keep *k,
              GPtrArray **ret_removed)
{
    g_autoptr(GPtrArray) removed = g_ptr_array_new_with_free_func(g_free);
    GPtrArray *recs = vn_ledger_records(l);
    for (guint i = recs->len; i-- > 0;) {
        VnLedgerRecord *r = g_ptr_array_index(recs, i);
        if (keep(r, k))
            continue;
        g_ptr_array_add(removed, g_strdup(r->name));
        g_ptr_array_remove_index(recs, i);
    }
    guint n = removed->len;
    if (ret_removed)
        *ret_removed = g_steal_pointer(&removed);
    return n;
}

guint
vn_ledger_reclaim(VnLedger *l, const gchar *run_dir, gint64 now, guint reserved_grace_s,
                  GPtrArray **ret_removed)
{
    Keep k = { .run_dir = run_dir, .now = now, .grace_s = reserved_grace_s };
    return remove_unless(l, still_running, &k, ret_removed);
}

guint
vn_ledger_reclaim_expired(VnLedger *l, gint64 now, GPtrArray **ret_removed)
{
    Keep k = { .now = now };
    return remove_unless(l, not_expired, &k, ret_removed);
}

VnLedgerRecord *
vn_ledger_take_reservation(VnLedger *l, const gchar *name, gint64 now)
{
    GPtrArray *recs = vn_ledger_records(l);
    for (guint i = 0; i < recs->len; i++) {
        VnLedgerRecord *r = g_ptr_array_index(recs, i);
        if (!r->expires || g_strcmp0(r->name, name) != 0)
            continue;
        VnLedgerRecord *held = g_ptr_array_steal_index(recs, i);
        if (now < held->expires)
            return held;
        vn_ledger_record_free(held);
        return NULL;
    }
    return NULL;
}
