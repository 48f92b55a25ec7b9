/* vn-topology-isolated.c: a topology loader run in a short-lived child.
 *
 * Why: hwloc parses files vnuma did not write (hwloc XML from another
 * host, synthetic strings, captured sysfs trees), and hwloc 2.9 has bugs
 * that crash the process reading them (an object without complete_cpuset
 * makes hwloc_topology_load() read through NULL; an empty node/online
 * trips an assert).  A shape check of the input only stops the bugs known
 * today; a child process stops the next one too.  The parent never runs
 * hwloc on the input: the child runs the loader, and writes the finished
 * topology back as the topology cache's JSON object (vn-topology-cache.h),
 * which the parent parses with vn_json_parse() and rebuilds through
 * vn_topology_finish() like any cached topology.  A child that dies by a
 * signal, exits without a whole answer or takes too long is an error that
 * names the input.
 *
 * fork() without exec(): the child only runs this library's own code on
 * the copy of the parent's memory, then _exit()s (no atexit handlers, no
 * stdio flush of the parent's buffers).  Callers are single-threaded when
 * they load a topology (vnumactl, the hook, vnumad before it serves); a
 * child stuck on a lock another thread held at fork() time would only run
 * into the timeout.
 */
#include "vn-topology-source.h"
#include "vn-topology-source-private.h"
#include "vn-topology-cache.h"
#include "vn-json-parse.h"

#include <errno.h>
#include <fcntl.h>
#include <poll.h>
#include <signal.h>
#include <string.h>
#include <unistd.h>
#include <glib-unix.h>
#include <sys/prctl.h>
#include <sys/resource.h>
#include <sys/wait.h>

/* The key the child writes and the parent expects: this is no cache. */
#define ISOLATED_KEY "isolated-load"

/* Signals a crash raises: back to the default action in the child, so a
 * crash is a death by that signal (not a sanitizer's or the parent's
 * handler running in the child). */
static const int crash_signals[] = { SIGSEGV, SIGBUS, SIGFPE, SIGILL, SIGABRT, SIGSYS, SIGTRAP };

/* ---- child ---- */

/* The answer: {"topology": <the cache's bytes, base64>} or {"error": {"code", "message"}}. */
static gchar *
child_answer(VnTopologyLoadFunc load, const gchar *arg)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = load(arg, &error);
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;

    json_builder_begin_object(b);
    if (t) {
        g_autoptr(GBytes) bytes = vn_topology_cache_to_bytes(t, ISOLATED_KEY);
        gsize len = 0;
        const guchar *data = g_bytes_get_data(bytes, &len);
        g_autofree gchar *encoded = g_base64_encode(data, len);
        json_builder_set_member_name(b, "topology");
        json_builder_add_string_value(b, encoded);
    } else {
        json_builder_set_member_name(b, "error");
        json_builder_begin_object(b);
        json_builder_set_member_name(b, "code");
        json_builder_add_int_value(b, error->domain == VN_TOPOLOGY_SOURCE_ERROR
                                          ? error->code
                                          : VN_TOPOLOGY_SOURCE_ERROR_HWLOC);
        json_builder_set_member_name(b, "message");
        json_builder_add_string_value(b, error->message);
        json_builder_end_object(b);
    }
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    return json_to_string(root, FALSE);
}

static gboolean
write_all(int fd, const gchar *data, gsize len)
{
    while (len > 0) {
        ssize_t n = write(fd, data, len);
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return FALSE;
        data += n;
        len -= (gsize)n;
    }
    return TRUE;
}

static void G_GNUC_NORETURN
child_run(int fd, pid_t parent, VnTopologyLoadFunc load, const gchar *arg)
{
    const struct rlimit no_core = { 0, 0 };
    gchar *answer;
    gboolean ok;

    /* die with the parent; no core file per bad input */
    prctl(PR_SET_PDEATHSIG, SIGKILL);
    if (getppid() != parent)
        _exit(125);
    setrlimit(RLIMIT_CORE, &no_core);
    for (gsize i = 0; i < G_N_ELEMENTS(crash_signals); i++)
        signal(crash_signals[i], SIG_DFL);
    answer = child_answer(load, arg);
    ok = write_all(fd, answer, strlen(answer));
    /* freed before _exit(): a leak checker (valgrind) checks the child too */
    g_free(answer);
    _exit(ok ? 0 : 124);
}

/* ---- parent ---- */

/* Reads the child's answer until EOF, at most VN_TOPOLOGY_ISOLATED_MAX_BYTES,
 * until `deadline` (monotonic µs).  FALSE on timeout; *ret_too_large when
 * the child wrote more than the limit. */
static gboolean
read_answer(int fd, gint64 deadline, GByteArray *buf, gboolean *ret_too_large)
{
    guint8 chunk[16384];

    *ret_too_large = FALSE;
    for (;;) {
        struct pollfd p = { .fd = fd, .events = POLLIN };
        gint64 left = deadline - g_get_monotonic_time();
        ssize_t n;
        int rc;

        if (left <= 0)
            return FALSE;
        rc = poll(&p, 1, (int)MIN(left / 1000 + 1, G_MAXINT));
        if (rc < 0 && errno == EINTR)
            continue;
        if (rc == 0)
            continue; /* the deadline check above ends it */
        n = read(fd, chunk, sizeof(chunk));
        if (n < 0 && errno == EINTR)
            continue;
        if (n <= 0)
            return TRUE; /* EOF (or an error: the child's status tells) */
        if (buf->len + (gsize)n > VN_TOPOLOGY_ISOLATED_MAX_BYTES) {
            *ret_too_large = TRUE;
            return TRUE;
        }
        g_byte_array_append(buf, chunk, (guint)n);
    }
}

static int
wait_child(pid_t pid)
{
    int status = 0;

    while (waitpid(pid, &status, 0) < 0 && errno == EINTR)
        ;
    return status;
}

/* Accessors that never trip json-glib's checks (fatal under
 * G_DEBUG=fatal-warnings) on an answer of the wrong shape. */
static JsonObject *
object_member(JsonObject *o, const gchar *name)
{
    JsonNode *n = json_object_get_member(o, name);
    return n && JSON_NODE_HOLDS_OBJECT(n) ? json_node_get_object(n) : NULL;
}

static gboolean
value_member(JsonObject *o, const gchar *name, GType type)
{
    JsonNode *n = json_object_get_member(o, name);
    return n && JSON_NODE_HOLDS_VALUE(n) && json_node_get_value_type(n) == type;
}

/* The child's answer, once it exited 0. */
static VnTopology *
parse_answer(const GByteArray *buf, const gchar *what, GError **error)
{
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = vn_json_parse((const gchar *)buf->data, buf->len, &local);
    JsonObject *o, *e;
    VnTopology *t;

    if (!root || !JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: the import process answered no topology", what);
        return NULL;
    }
    o = json_node_get_object(root);
    if (value_member(o, "topology", G_TYPE_STRING)) {
        gsize len = 0;
        guchar *decoded = g_base64_decode(json_object_get_string_member(o, "topology"), &len);
        g_autoptr(GBytes) bytes = g_bytes_new_take(decoded, len);
        t = vn_topology_cache_from_bytes(bytes, what, ISOLATED_KEY, &local);
        if (!t)
            g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID,
                        "%s: the import process answered a bad topology: %s", what,
                        local ? local->message : "wrong key");
        return t;
    }
    e = object_member(o, "error");
    if (e && value_member(e, "code", G_TYPE_INT64) && value_member(e, "message", G_TYPE_STRING)) {
        gint64 code = json_object_get_int_member(e, "code");
        if (code < 0 || code >= VN_TOPOLOGY_SOURCE_ERROR_MAX)
            code = VN_TOPOLOGY_SOURCE_ERROR_HWLOC;
        g_set_error_literal(error, VN_TOPOLOGY_SOURCE_ERROR, (gint)code,
                            json_object_get_string_member(e, "message"));
        return NULL;
    }
    g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                "%s: the import process answered neither a topology nor an error", what);
    return NULL;
}

/* One line for a child that gave no usable answer; FALSE when it exited 0. */
static gboolean
child_failed(int status, gboolean timed_out, guint timeout_ms, gboolean too_large,
             const gchar *what, GError **error)
{
    if (timed_out && timeout_ms % 1000 == 0)
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc did not finish reading it within %u s (import process killed)", what,
                    timeout_ms / 1000);
    else if (timed_out)
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc did not finish reading it within %u ms (import process killed)",
                    what, timeout_ms);
    else if (WIFSIGNALED(status))
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc crashed reading it (signal %d)", what, WTERMSIG(status));
    else if (too_large)
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_INVALID,
                    "%s: topology larger than %d bytes", what, VN_TOPOLOGY_ISOLATED_MAX_BYTES);
    else if (!WIFEXITED(status) || WEXITSTATUS(status) != 0)
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_HWLOC,
                    "%s: hwloc failed reading it (import process exited with status %d)", what,
                    WIFEXITED(status) ? WEXITSTATUS(status) : -1);
    else
        return FALSE;
    return TRUE;
}

VnTopology *
vn_topology_load_isolated_timeout(VnTopologyLoadFunc load, const gchar *arg, const gchar *what,
                                  guint timeout_ms, GError **error)
{
    g_autoptr(GByteArray) buf = NULL;
    g_autoptr(GError) local = NULL;
    gint64 deadline;
    gboolean complete, too_large;
    pid_t parent = getpid(), pid;
    int fds[2], status;

    g_return_val_if_fail(load != NULL && arg != NULL && what != NULL, NULL);
    if (!g_unix_open_pipe(fds, FD_CLOEXEC, &local)) {
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                    "%s: cannot start the import process: %s", what, local->message);
        return NULL;
    }
    pid = fork();
    if (pid < 0) {
        int e = errno;
        close(fds[0]);
        close(fds[1]);
        g_set_error(error, VN_TOPOLOGY_SOURCE_ERROR, VN_TOPOLOGY_SOURCE_ERROR_IO,
                    "%s: cannot start the import process: fork: %s", what, g_strerror(e));
        return NULL;
    }
    if (pid == 0) {
        close(fds[0]);
        child_run(fds[1], parent, load, arg);
    }
    close(fds[1]);
    /* allocated after fork(), so the child holds nothing of this frame */
    buf = g_byte_array_new();
    deadline = g_get_monotonic_time() + (gint64)timeout_ms * 1000;
    complete = read_answer(fds[0], deadline, buf, &too_large);
    close(fds[0]);
    if (!complete || too_large)
        kill(pid, SIGKILL);
    status = wait_child(pid);
    if (child_failed(status, !complete, timeout_ms, too_large, what, error))
        return NULL;
    return parse_answer(buf, what, error);
}

VnTopology *
vn_topology_load_isolated(VnTopologyLoadFunc load, const gchar *arg, const gchar *what,
                          GError **error)
{
    return vn_topology_load_isolated_timeout(load, arg, what, VN_TOPOLOGY_ISOLATED_TIMEOUT_S * 1000,
                                             error);
}
