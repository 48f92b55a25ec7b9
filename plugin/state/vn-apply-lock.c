/* vn-apply-lock.c: the per-record apply lock (vn-apply-lock.h).
 *
 * A file per record rather than the ledger's lock: an apply waits for
 * libvirt (tens of seconds when the domain's job is busy), and the ledger
 * lock held that long would stall every VM start on the host. */
#include "vn-apply-lock.h"

#include <errno.h>
#include <fcntl.h>
#include <sys/file.h>
#include <unistd.h>
#include "vn-ledger.h"

struct _VnApplyLock {
    int fd;
};

/* Domain UUIDs and vnumad's "reservation:<id>" keys; nothing that could
 * leave the directory. */
static gchar *
lock_path(const gchar *state_dir, const gchar *uuid, GError **error)
{
    g_autofree gchar *base = NULL;

    for (const gchar *p = uuid; *p; p++)
        if (!g_ascii_isalnum(*p) && *p != '-' && *p != ':') {
            g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT,
                        "record key \"%s\": not a domain uuid", uuid);
            return NULL;
        }
    if (!*uuid) {
        g_set_error_literal(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT,
                            "record key \"\": not a domain uuid");
        return NULL;
    }
    base = g_strdup_printf("apply-%s.lock", uuid);
    return g_build_filename(state_dir, base, NULL);
}

VnApplyLock *
vn_apply_lock_take(const gchar *state_dir, const gchar *uuid, guint timeout_ms, GError **error)
{
    g_autofree gchar *path = lock_path(state_dir, uuid, error);
    VnApplyLock *l;
    int fd;

    if (!path)
        return NULL;
    if ((fd = open(path, O_RDWR | O_CREAT | O_CLOEXEC, 0644)) < 0) {
        int err = errno;
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_IO, "cannot open %s: %s", path,
                    g_strerror(err));
        return NULL;
    }
    /* an apply holds it for seconds: poll every 100 ms */
    if (!vn_ledger_flock(fd, path, timeout_ms, 100 * 1000, 100 * 1000,
                         "another apply of this record still runs", error)) {
        close(fd);
        return NULL;
    }
    l = g_new0(VnApplyLock, 1);
    l->fd = fd;
    return l;
}

void
vn_apply_lock_release(VnApplyLock *l)
{
    if (!l)
        return;
    close(l->fd); /* releases the flock */
    g_free(l);
}

gboolean
vn_apply_lock_held(const gchar *state_dir, const gchar *uuid)
{
    g_autofree gchar *path = lock_path(state_dir, uuid, NULL);
    gboolean held;
    int fd;

    if (!path || (fd = open(path, O_RDONLY | O_CLOEXEC)) < 0)
        return FALSE;
    /* shared: never keeps an exclusive taker out for more than this call */
    held = flock(fd, LOCK_SH | LOCK_NB) < 0 && errno == EWOULDBLOCK;
    close(fd);
    return held;
}
