/* vn-history.c: reading and appending the decision history (format:
 * vn-history.h). */
#include "vn-history.h"

#include <errno.h>
#include <fcntl.h>
#include <string.h>
#include <unistd.h>
#include <glib/gstdio.h>
#include <json-glib/json-glib.h>
#include "vn-json-parse.h"
#include "vn-json-build.h"

G_DEFINE_QUARK(vn-history-error-quark, vn_history_error);

VnHistoryEntry *
vn_history_entry_new(const gchar *time, const gchar *vm, const gchar *phase, const gchar *decision,
                     const gchar *nodes, const gchar *reason)
{
    VnHistoryEntry *e = g_new0(VnHistoryEntry, 1);

    e->time = g_strdup(time);
    e->vm = g_strdup(vm);
    e->phase = g_strdup(phase ? phase : "");
    e->decision = g_strdup(decision);
    e->nodes = g_strdup(nodes ? nodes : "");
    e->reason = g_strdup(reason ? reason : "");
    return e;
}

void
vn_history_entry_free(VnHistoryEntry *e)
{
    if (!e)
        return;
    g_free(e->time);
    g_free(e->vm);
    g_free(e->phase);
    g_free(e->decision);
    g_free(e->nodes);
    g_free(e->reason);
    g_free(e);
}

/* A string member, or NULL when absent; FALSE when present but not a
 * string. */
static gboolean
member_string(JsonObject *o, const gchar *name, const gchar **ret)
{
    JsonNode *n = json_object_get_member(o, name);

    *ret = NULL;
    if (!n)
        return TRUE;
    if (!JSON_NODE_HOLDS_VALUE(n) || json_node_get_value_type(n) != G_TYPE_STRING)
        return FALSE;
    *ret = json_node_get_string(n);
    return TRUE;
}

VnHistoryEntry *
vn_history_parse_line(const gchar *line, const gchar *origin, GError **error)
{
    static const gchar *const keys[] = { "time", "vm", "phase", "decision", "nodes", "reason" };
    g_autoptr(GError) local = NULL;
    g_autoptr(JsonNode) root = vn_json_parse(line, strlen(line), &local);
    const gchar *v[G_N_ELEMENTS(keys)];
    JsonObject *o;

    if (!root) {
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE, "%s: %s", origin,
                    local->message);
        return NULL;
    }
    if (!JSON_NODE_HOLDS_OBJECT(root)) {
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE, "%s: not a JSON object",
                    origin);
        return NULL;
    }
    o = json_node_get_object(root);
    for (guint i = 0; i < G_N_ELEMENTS(keys); i++)
        if (!member_string(o, keys[i], &v[i])) {
            g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE,
                        "%s: \"%s\" is not a string", origin, keys[i]);
            return NULL;
        }
    if (!v[0] || !v[1] || !v[3]) {
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_PARSE, "%s: \"%s\" is missing",
                    origin,
                    !v[0]   ? "time"
                    : !v[1] ? "vm"
                            : "decision");
        return NULL;
    }
    return vn_history_entry_new(v[0], v[1], v[2], v[3], v[4], v[5]);
}

/* Appends the entries of one file to `out`; a missing file adds none. */
static gboolean
read_file(const gchar *path, GPtrArray *out, GError **error)
{
    g_autofree gchar *text = NULL;
    g_autoptr(GError) local = NULL;
    g_auto(GStrv) lines = NULL;

    if (!g_file_get_contents(path, &text, NULL, &local)) {
        if (g_error_matches(local, G_FILE_ERROR, G_FILE_ERROR_NOENT))
            return TRUE;
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_IO, "%s: cannot read: %s", path,
                    local->message);
        return FALSE;
    }
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_autofree gchar *origin = NULL;
        VnHistoryEntry *e;

        if (!*g_strstrip(lines[i]))
            continue;
        origin = g_strdup_printf("%s:%u", path, i + 1);
        if (!(e = vn_history_parse_line(lines[i], origin, error)))
            return FALSE;
        g_ptr_array_add(out, e);
    }
    return TRUE;
}

GPtrArray *
vn_history_read(const gchar *state_dir, guint max_entries, GError **error)
{
    g_autoptr(GPtrArray) all =
        g_ptr_array_new_with_free_func((GDestroyNotify)vn_history_entry_free);
    g_autofree gchar *path = g_build_filename(state_dir, VN_HISTORY_FILE, NULL);
    g_autofree gchar *old = g_strconcat(path, ".1", NULL);

    if (!read_file(old, all, error) || !read_file(path, all, error))
        return NULL;
    if (max_entries && all->len > max_entries)
        g_ptr_array_remove_range(all, 0, all->len - max_entries);
    return g_steal_pointer(&all);
}

static gchar *
entry_line(const VnHistoryEntry *e)
{
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonNode) root = NULL;
    const gchar *const names[] = { "time", "vm", "phase", "decision", "nodes", "reason" };
    const gchar *const values[] = { e->time, e->vm, e->phase, e->decision, e->nodes, e->reason };
    g_autofree gchar *text = NULL;

    json_builder_begin_object(b);
    for (guint i = 0; i < G_N_ELEMENTS(names); i++) {
        vn_json_add_string(b, names[i], values[i] ? values[i] : "");
    }
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    text = json_to_string(root, FALSE);
    return g_strconcat(text, "\n", NULL);
}

gboolean
vn_history_append(const gchar *state_dir, const VnHistoryEntry *e, GError **error)
{
    g_autofree gchar *path = g_build_filename(state_dir, VN_HISTORY_FILE, NULL);
    g_autofree gchar *line = entry_line(e);
    GStatBuf st;
    gssize n;
    int fd, err;

    if (g_mkdir_with_parents(state_dir, 0755) < 0) {
        err = errno;
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_IO, "%s: cannot create: %s",
                    state_dir, g_strerror(err));
        return FALSE;
    }
    if (g_stat(path, &st) == 0 && st.st_size > VN_HISTORY_MAX_BYTES) {
        g_autofree gchar *old = g_strconcat(path, ".1", NULL);
        g_rename(path, old);
    }
    fd = open(path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644);
    if (fd < 0) {
        err = errno;
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_IO, "%s: cannot open: %s", path,
                    g_strerror(err));
        return FALSE;
    }
    n = write(fd, line, strlen(line));
    err = errno;
    close(fd);
    if (n != (gssize)strlen(line)) {
        g_set_error(error, VN_HISTORY_ERROR, VN_HISTORY_ERROR_IO, "%s: cannot append: %s", path,
                    n < 0 ? g_strerror(err) : "short write");
        return FALSE;
    }
    return TRUE;
}
