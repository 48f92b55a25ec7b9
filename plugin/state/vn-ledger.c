/* vn-ledger.c: the ledger file under its lock.
 *
 * Why flock on a separate lock file: the data file is replaced by rename at
 * every commit, so a lock on it would be on a file nobody opens any more.
 * Why our own temp name (ledger.json.tmp) rather than mkstemp: only the
 * lock holder writes it, and a temp left by a killed writer is simply
 * truncated by the next one instead of accumulating. */
#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <sys/file.h>
#include <sys/stat.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include "vn-ledger.h"
#include "vn-ledger-cache.h"

G_DEFINE_QUARK(vn-ledger-error-quark, vn_ledger_error);

#define LEDGER_FILE "ledger.json"
#define LOCK_FILE "ledger.lock"
#define CACHE_FILE "ledger.cache"

struct _VnLedger {
    gchar *dir;
    gchar *path;
    gchar *cache_path;
    gint lock_fd; /* -1: snapshot, not writable */
    gboolean was_missing;
    guint64 generation;
    GPtrArray *records;  /* of VnLedgerRecord* */
    GHashTable *as_read; /* vn_ledger_parse_keeping()'s, when opened for a change */
};

static VnLedger *
ledger_new(const gchar *dir)
{
    VnLedger *l = g_new0(VnLedger, 1);
    l->dir = g_strdup(dir);
    l->path = g_build_filename(dir, LEDGER_FILE, NULL);
    l->cache_path = g_build_filename(dir, CACHE_FILE, NULL);
    l->lock_fd = -1;
    l->records = g_ptr_array_new_with_free_func((GDestroyNotify)vn_ledger_record_free);
    return l;
}

void
vn_ledger_free(VnLedger *l)
{
    if (!l)
        return;
    if (l->lock_fd >= 0)
        close(l->lock_fd); /* releases the flock */
    g_ptr_array_unref(l->records);
    g_clear_pointer(&l->as_read, g_hash_table_unref);
    g_free(l->path);
    g_free(l->cache_path);
    g_free(l->dir);
    g_free(l);
}

static gboolean
io_error(GError **error, const gchar *what, const gchar *path, int err)
{
    g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_IO, "%s %s: %s", what, path,
                g_strerror(err));
    return FALSE;
}

gboolean
vn_ledger_flock(int fd, const gchar *lock_path, guint timeout_ms, gulong first_pause_us,
                gulong max_pause_us, const gchar *held, GError **error)
{
    gint64 deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    gulong pause_us = first_pause_us;
    while (flock(fd, LOCK_EX | LOCK_NB) < 0) {
        int err = errno;
        if (err == EWOULDBLOCK && g_get_monotonic_time() < deadline) {
            g_usleep(pause_us);
            pause_us = MIN(pause_us * 2, max_pause_us);
            continue;
        }
        if (err == EINTR)
            continue;
        if (err == EWOULDBLOCK)
            g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_LOCK, "%s: %s after %u ms",
                        lock_path, held, timeout_ms);
        else
            g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_LOCK, "cannot lock %s: %s",
                        lock_path, g_strerror(err));
        return FALSE;
    }
    return TRUE;
}

static gboolean
take_lock(VnLedger *l, guint timeout_ms, GError **error)
{
    if (g_mkdir_with_parents(l->dir, 0755) < 0)
        return io_error(error, "cannot create state directory", l->dir, errno);
    g_autofree gchar *lock_path = g_build_filename(l->dir, LOCK_FILE, NULL);
    int fd = open(lock_path, O_RDWR | O_CREAT | O_CLOEXEC, 0644);
    if (fd < 0)
        return io_error(error, "cannot open lock file", lock_path, errno);
    /* 1 ms, doubling to 4 ms: a holder never keeps the lock longer than
     * one read-plan-write, so a lock held for VN_LEDGER_LOCK_TIMEOUT_MS
     * means a stuck process, and waiting on it forever would hang every VM
     * start behind it */
    if (!vn_ledger_flock(fd, lock_path, timeout_ms, 1000, 4000, "still held by another process",
                         error)) {
        close(fd);
        return FALSE;
    }
    l->lock_fd = fd;
    return TRUE;
}

/* Writes ledger.cache for the records as they are now in ledger.json
 * (whose stamp is taken here, after the rename that put it in place).
 * A failure is no error: the next reader parses the JSON. */
static void
write_cache(VnLedger *l, GPtrArray *texts)
{
    VnLedgerStamp stamp;

    if (!vn_ledger_stamp_of(l->path, &stamp)) {
        g_unlink(l->cache_path);
        return;
    }
    g_autoptr(GBytes) cache = vn_ledger_cache_build(&stamp, l->generation, l->records, texts);
    vn_ledger_cache_write(l->cache_path, cache);
}

static void
take_records(VnLedger *l, GPtrArray *recs, GHashTable *as_read)
{
    g_ptr_array_unref(l->records);
    l->records = recs;
    g_clear_pointer(&l->as_read, g_hash_table_unref);
    l->as_read = as_read;
}

/* Reads the file into `l`; missing = empty + was_missing.  From
 * ledger.cache when it was derived from this very ledger.json, else by
 * parsing the JSON (and, holding the lock, writing the cache for the
 * next reader). */
static gboolean
read_file(VnLedger *l, GError **error)
{
    VnLedgerStamp stamp;
    GPtrArray *recs = NULL;
    GHashTable *as_read = NULL;

    if (vn_ledger_stamp_of(l->path, &stamp) &&
        vn_ledger_cache_read(l->cache_path, &stamp, &recs, &l->generation,
                             l->lock_fd >= 0 ? &as_read : NULL)) {
        take_records(l, recs, as_read);
        return TRUE;
    }

    g_autofree gchar *text = NULL;
    gsize len = 0;
    g_autoptr(GError) local = NULL;
    if (!g_file_get_contents(l->path, &text, &len, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT)) {
            l->was_missing = TRUE;
            return TRUE;
        }
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_IO, "cannot read ledger: %s",
                    local->message);
        return FALSE;
    }
    /* only a ledger opened for a change (locked) writes its records back */
    if (!vn_ledger_parse_keeping(text, len, l->path, &recs, &l->generation,
                                 l->lock_fd >= 0 ? &as_read : NULL, error))
        return FALSE;
    take_records(l, recs, as_read);
    if (l->lock_fd >= 0) {
        g_autoptr(GPtrArray) texts = vn_ledger_record_texts(l->records, l->as_read);
        write_cache(l, texts);
    }
    return TRUE;
}

VnLedger *
vn_ledger_open_with_timeout(const gchar *state_dir, guint timeout_ms, GError **error)
{
    g_return_val_if_fail(state_dir != NULL, NULL);
    g_autoptr(VnLedger) l = ledger_new(state_dir);
    if (!take_lock(l, timeout_ms, error) || !read_file(l, error))
        return NULL;
    return g_steal_pointer(&l);
}

VnLedger *
vn_ledger_open(const gchar *state_dir, GError **error)
{
    return vn_ledger_open_with_timeout(state_dir, VN_LEDGER_LOCK_TIMEOUT_MS, error);
}

VnLedger *
vn_ledger_open_fresh(const gchar *state_dir, GError **error)
{
    g_return_val_if_fail(state_dir != NULL, NULL);
    g_autoptr(VnLedger) l = ledger_new(state_dir);
    if (!take_lock(l, VN_LEDGER_LOCK_TIMEOUT_MS, error))
        return NULL;
    l->was_missing = TRUE;
    return g_steal_pointer(&l);
}

/* The first free name of ledger.json.corrupt-<now>[.N].  The lock is held
 * and every writer of the directory takes it, so a name found free stays
 * free until the rename. */
static gchar *
set_aside(const VnLedger *l, gint64 now, GError **error)
{
    g_autofree gchar *base = g_strdup_printf("%s.corrupt-%" G_GINT64_FORMAT, l->path, now);
    for (guint n = 0; n < 100; n++) {
        g_autofree gchar *aside = n ? g_strdup_printf("%s.%u", base, n) : g_strdup(base);
        if (g_file_test(aside, G_FILE_TEST_EXISTS))
            continue;
        if (rename(l->path, aside) < 0) {
            io_error(error, "cannot set aside", l->path, errno);
            return NULL;
        }
        return g_steal_pointer(&aside);
    }
    g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_IO,
                "cannot set aside %s: 100 copies named %s* exist already", l->path, base);
    return NULL;
}

VnLedger *
vn_ledger_open_setting_aside(const gchar *state_dir, gint64 now, gchar **ret_set_aside,
                             GError **error)
{
    g_return_val_if_fail(state_dir != NULL, NULL);
    g_autoptr(VnLedger) l = ledger_new(state_dir);
    g_autoptr(GError) corrupt = NULL;
    if (!take_lock(l, VN_LEDGER_LOCK_TIMEOUT_MS, error))
        return NULL;
    if (read_file(l, &corrupt)) {
        *ret_set_aside = NULL;
        return g_steal_pointer(&l);
    }
    if (!g_error_matches(corrupt, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT)) {
        g_propagate_error(error, g_steal_pointer(&corrupt));
        return NULL;
    }
    g_autofree gchar *aside = set_aside(l, now, error);
    if (!aside)
        return NULL;
    l->was_missing = TRUE; /* read_file() left the records empty */
    *ret_set_aside = g_strdup_printf("%s; set aside as %s", corrupt->message, aside);
    return g_steal_pointer(&l);
}

VnLedger *
vn_ledger_snapshot(const gchar *state_dir, GError **error)
{
    g_return_val_if_fail(state_dir != NULL, NULL);
    g_autoptr(VnLedger) l = ledger_new(state_dir);
    if (!read_file(l, error))
        return NULL;
    return g_steal_pointer(&l);
}

static gboolean
write_all(int fd, const gchar *buf, gsize len)
{
    while (len > 0) {
        gssize n = write(fd, buf, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        buf += n;
        len -= (gsize)n;
    }
    return TRUE;
}

/* temp + fsync + rename + fsync(dir): old or new file after any crash. */
static gboolean
replace_file(const gchar *dir, const gchar *path, const gchar *text, GError **error)
{
    g_autofree gchar *tmp = g_strconcat(path, ".tmp", NULL);
    int fd = open(tmp, O_WRONLY | O_CREAT | O_TRUNC | O_CLOEXEC, 0644);
    if (fd < 0)
        return io_error(error, "cannot create", tmp, errno);
    if (!write_all(fd, text, strlen(text)) || fsync(fd) < 0) {
        int err = errno;
        close(fd);
        unlink(tmp);
        return io_error(error, "cannot write", tmp, err);
    }
    close(fd);
    if (rename(tmp, path) < 0) {
        int err = errno;
        unlink(tmp);
        return io_error(error, "cannot replace", path, err);
    }
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    if (dfd >= 0) {
        fsync(dfd);
        close(dfd);
    }
    return TRUE;
}

gboolean
vn_ledger_commit(VnLedger *l, GError **error)
{
    g_return_val_if_fail(l != NULL, FALSE);
    g_return_val_if_fail(l->lock_fd >= 0, FALSE); /* snapshots are read-only */
    g_autoptr(GPtrArray) texts = vn_ledger_record_texts(l->records, l->as_read);
    g_autofree gchar *text = vn_ledger_format_texts(texts, l->generation + 1);
    if (!replace_file(l->dir, l->path, text, error))
        return FALSE;
    l->generation++;
    l->was_missing = FALSE;
    write_cache(l, texts);
    return TRUE;
}

gboolean
vn_ledger_was_missing(const VnLedger *l)
{
    return l->was_missing;
}
const gchar *
vn_ledger_path(const VnLedger *l)
{
    return l->path;
}
guint64
vn_ledger_generation(const VnLedger *l)
{
    return l->generation;
}
GPtrArray *
vn_ledger_records(const VnLedger *l)
{
    return l->records;
}

VnLedgerRecord *
vn_ledger_lookup(const VnLedger *l, const gchar *uuid)
{
    for (guint i = 0; i < l->records->len; i++) {
        VnLedgerRecord *r = g_ptr_array_index(l->records, i);
        if (g_strcmp0(r->uuid, uuid) == 0)
            return r;
    }
    return NULL;
}

VnLedgerRecord *
vn_ledger_lookup_name(const VnLedger *l, const gchar *name)
{
    for (guint i = 0; i < l->records->len; i++) {
        VnLedgerRecord *r = g_ptr_array_index(l->records, i);
        if (g_strcmp0(r->name, name) == 0)
            return r;
    }
    return NULL;
}

gboolean
vn_ledger_remove(VnLedger *l, const gchar *uuid)
{
    VnLedgerRecord *r = vn_ledger_lookup(l, uuid);
    return r && g_ptr_array_remove(l->records, r);
}

void
vn_ledger_put(VnLedger *l, VnLedgerRecord *r)
{
    g_return_if_fail(r != NULL && r->uuid != NULL);
    vn_ledger_remove(l, r->uuid);
    g_ptr_array_add(l->records, r);
}
