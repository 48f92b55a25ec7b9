/* vn-irq-apply.c: a NIC's interrupt affinities and queue masks written,
 * the values before saved, and restored on reset.
 *
 * Each value goes in one write(2) on the open file (procfs and sysfs
 * take a value per write; a rename into them is impossible).  EIO on
 * smp_affinity_list is the kernel refusing to move a managed interrupt
 * (irq_can_set_affinity_usr()): reported, never retried. */
#include "vn-irq.h"

#include <errno.h>
#include <fcntl.h>
#include <glib/gstdio.h>
#include <string.h>
#include <unistd.h>

#include "vn-cpulist.h"
#include "vn-json-build.h"
#include "vn-json-parse.h"

#define SAVED_FILE "irq-saved.json"
#define SAVED_VERSION 1

typedef struct {
    gchar *rel;   /* path below the sysroot */
    gchar *value; /* to write */
    gchar *old;   /* as read */
    gchar *what;  /* "irq 61", "ens1f0 rx-0 RPS" */
    gboolean irq;
} Write;

static void
write_free(gpointer p)
{
    Write *w = p;

    g_free(w->rel);
    g_free(w->value);
    g_free(w->old);
    g_free(w->what);
    g_free(w);
}

static void
add_write(GPtrArray *writes, gchar *rel, gchar *value, const gchar *old, gchar *what, gboolean irq)
{
    Write *w = g_new0(Write, 1);

    w->rel = rel;
    w->value = value;
    w->old = g_strdup(old);
    w->what = what;
    w->irq = irq;
    g_ptr_array_add(writes, w);
}

static void
queue_writes(GPtrArray *writes, const VnNic *n, const GPtrArray *queues, const GPtrArray *masks,
             const gchar *file, const gchar *label, guint n_cpus)
{
    for (guint i = 0; i < queues->len && i < masks->len; i++) {
        const VnNicQueue *q = queues->pdata[i];
        g_autoptr(VnBitmap) old = q->mask ? vn_cpumask_parse(q->mask, n_cpus, NULL) : NULL;

        if (!q->mask || (old && vn_bitmap_equal(old, masks->pdata[i])))
            continue; /* unreadable (single-queue XPS), or in place */
        add_write(writes,
                  g_build_filename("sys/class/net", n->netdev, "queues", q->name, file, NULL),
                  vn_cpumask_format(masks->pdata[i], n_cpus), q->mask,
                  g_strdup_printf("%s %s %s", n->netdev, q->name, label), FALSE);
    }
}

/* What differs between `n` as read and plan `p`. */
static GPtrArray *
nic_writes(const VnNic *n, const VnIrqNicPlan *p, guint n_cpus, GPtrArray *ret_left)
{
    GPtrArray *writes = g_ptr_array_new_with_free_func(write_free);

    for (guint k = 0; k < p->targets->len && k < n->irqs->len; k++) {
        const VnIrqTarget *t = &g_array_index(p->targets, VnIrqTarget, k);
        const VnNicIrq *irq = n->irqs->pdata[k];
        g_autoptr(VnBitmap) old = NULL;

        if (t->left) {
            if (ret_left)
                g_ptr_array_add(
                    ret_left, g_strdup_printf("irq %u: smp_affinity_list is read-only: left at %s",
                                              irq->irq, irq->affinity ? irq->affinity : "?"));
            continue;
        }
        if (!t->cpus)
            continue;
        old = irq->affinity ? vn_cpulist_parse(irq->affinity, n_cpus, NULL) : NULL;
        if (old && vn_bitmap_equal(old, t->cpus))
            continue;
        add_write(writes, g_strdup_printf("proc/irq/%u/smp_affinity_list", irq->irq),
                  vn_cpulist_format(t->cpus), irq->affinity ? irq->affinity : "",
                  g_strdup_printf("irq %u", irq->irq), TRUE);
    }
    if (n->netdev) {
        queue_writes(writes, n, n->rx, p->rps, "rps_cpus", "RPS", n_cpus);
        queue_writes(writes, n, n->tx, p->xps, "xps_cpus", "XPS", n_cpus);
    }
    return writes;
}

void
vn_irq_nic_drift(const VnNic *n, const VnIrqNicPlan *p, guint n_cpus, VnIrqDrift *ret)
{
    g_autoptr(GPtrArray) writes = nic_writes(n, p, n_cpus, NULL);

    *ret = (VnIrqDrift){ .irqs = n->irqs->len, .rps = n->rx->len, .xps = n->tx->len };
    if (!p->cpus)
        return; /* nothing planned: nothing off the plan */
    for (guint i = 0; i < writes->len; i++) {
        const Write *w = writes->pdata[i];
        if (w->irq)
            ret->irqs_off++;
        else if (g_str_has_suffix(w->rel, "rps_cpus"))
            ret->rps_off++;
        else
            ret->xps_off++;
    }
}

/* One write(2) of `value`; FALSE with errno set. */
static gboolean
write_value(const gchar *sysroot, const gchar *rel, const gchar *value)
{
    g_autofree gchar *path = g_build_filename(sysroot && *sysroot ? sysroot : "/", rel, NULL);
    g_autofree gchar *line = g_strdup_printf("%s\n", value);
    int fd = open(path, O_WRONLY | O_TRUNC | O_CLOEXEC);
    ssize_t n;
    int saved;

    if (fd < 0)
        return FALSE;
    n = write(fd, line, strlen(line));
    saved = errno;
    if (close(fd) < 0 && n >= 0)
        return FALSE;
    errno = saved;
    return n == (ssize_t)strlen(line);
}

/* ---- irq-saved.json: {"version": 1, "saved": {"<rel>": "<value>"}} ---- */

static gchar *
saved_path(const gchar *state_dir)
{
    return g_build_filename(state_dir, SAVED_FILE, NULL);
}

/* rel -> value; empty when there is no file. */
static GHashTable *
saved_load(const gchar *state_dir, GError **error)
{
    g_autofree gchar *path = saved_path(state_dir);
    g_autoptr(GHashTable) saved = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    g_autoptr(JsonNode) root = NULL;
    JsonObject *o, *entries;
    g_autoptr(GList) members = NULL;

    if (!g_file_test(path, G_FILE_TEST_EXISTS))
        return g_steal_pointer(&saved);
    root = vn_json_parse_file(path, error);
    if (!root)
        return NULL;
    o = JSON_NODE_HOLDS_OBJECT(root) ? json_node_get_object(root) : NULL;
    entries = o && json_object_has_member(o, "saved") &&
                      JSON_NODE_HOLDS_OBJECT(json_object_get_member(o, "saved"))
                  ? json_object_get_object_member(o, "saved")
                  : NULL;
    if (!entries || json_object_get_int_member_with_default(o, "version", 0) != SAVED_VERSION) {
        g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_SAVED,
                    "%s: not a saved-values file of this version", path);
        return NULL;
    }
    members = json_object_get_members(entries);
    for (GList *l = members; l; l = l->next) {
        JsonNode *v = json_object_get_member(entries, l->data);
        if (!JSON_NODE_HOLDS_VALUE(v) || json_node_get_value_type(v) != G_TYPE_STRING) {
            g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_SAVED, "%s: \"%s\" is not a string", path,
                        (const gchar *)l->data);
            return NULL;
        }
        g_hash_table_insert(saved, g_strdup(l->data), g_strdup(json_node_get_string(v)));
    }
    return g_steal_pointer(&saved);
}

static gint
str_cmp(gconstpointer a, gconstpointer b)
{
    return strcmp(a, b);
}

/* Removes `path`; one that is not there is fine. */
static gboolean
remove_file(const gchar *path, GError **error)
{
    if (g_unlink(path) == 0 || errno == ENOENT)
        return TRUE;
    g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_SAVED, "%s: %s", path, g_strerror(errno));
    return FALSE;
}

static gboolean
saved_store(const gchar *state_dir, GHashTable *saved, GError **error)
{
    g_autofree gchar *path = saved_path(state_dir);
    g_autoptr(JsonBuilder) b = json_builder_new();
    g_autoptr(JsonGenerator) gen = json_generator_new();
    g_autoptr(JsonNode) root = NULL;
    g_autoptr(GList) keys = g_list_sort(g_hash_table_get_keys(saved), str_cmp);
    g_autofree gchar *text = NULL;

    if (g_hash_table_size(saved) == 0)
        return remove_file(path, error);
    json_builder_begin_object(b);
    vn_json_add_int(b, "version", SAVED_VERSION);
    json_builder_set_member_name(b, "saved");
    json_builder_begin_object(b);
    for (GList *l = keys; l; l = l->next)
        vn_json_add_string(b, l->data, g_hash_table_lookup(saved, l->data));
    json_builder_end_object(b);
    json_builder_end_object(b);
    root = json_builder_get_root(b);
    json_generator_set_root(gen, root);
    json_generator_set_pretty(gen, TRUE);
    text = json_generator_to_data(gen, NULL);
    if (g_mkdir_with_parents(state_dir, 0755) < 0 ||
        !g_file_set_contents_full(path, text, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644, NULL)) {
        g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_SAVED, "%s: cannot be written: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

/* Saves the old value of every write not saved yet. */
static gboolean
save_before(const gchar *state_dir, const GPtrArray *writes, GError **error)
{
    g_autoptr(GHashTable) saved = saved_load(state_dir, error);
    gboolean added = FALSE;

    if (!saved)
        return FALSE;
    for (guint i = 0; i < writes->len; i++) {
        const Write *w = writes->pdata[i];
        if (!g_hash_table_contains(saved, w->rel) && *w->old) {
            g_hash_table_insert(saved, g_strdup(w->rel), g_strdup(w->old));
            added = TRUE;
        }
    }
    return !added || saved_store(state_dir, saved, error);
}

/* Puts back the first `done` writes, last first. */
static void
roll_back(const gchar *sysroot, const GPtrArray *writes, guint done)
{
    while (done-- > 0) {
        const Write *w = writes->pdata[done];
        (void)write_value(sysroot, w->rel, w->old);
    }
}

gboolean
vn_irq_apply_nic(const gchar *sysroot, const gchar *state_dir, const VnNic *n,
                 const VnIrqNicPlan *p, guint n_cpus, GPtrArray *ret_changed, GPtrArray *ret_left,
                 GError **error)
{
    g_autoptr(GPtrArray) writes = nic_writes(n, p, n_cpus, ret_left);
    g_autoptr(GPtrArray) changed = g_ptr_array_new_with_free_func(g_free);
    guint done = 0;

    if (writes->len && !save_before(state_dir, writes, error))
        return FALSE;
    for (guint i = 0; i < writes->len; i++) {
        const Write *w = writes->pdata[i];
        int e;

        if (write_value(sysroot, w->rel, w->value)) {
            g_ptr_array_add(changed, g_strdup_printf("%s: %s -> %s", w->what, w->old, w->value));
            done = i + 1;
            continue;
        }
        e = errno;
        if (w->irq && e == EIO) {
            if (ret_left)
                g_ptr_array_add(ret_left, g_strdup_printf("%s: the kernel refuses to move it "
                                                          "(a managed interrupt): left at %s",
                                                          w->what, w->old));
            continue;
        }
        roll_back(sysroot, writes, done);
        g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_WRITE,
                    "%s: %s: cannot write %s: %s; nothing of %s was changed", p->name, w->what,
                    w->rel, g_strerror(e), p->name);
        return FALSE;
    }
    for (guint i = 0; ret_changed && i < changed->len; i++)
        g_ptr_array_add(ret_changed, g_strdup(changed->pdata[i]));
    return TRUE;
}

gboolean
vn_irq_reset(const gchar *sysroot, const gchar *state_dir, GPtrArray *ret_log, GError **error)
{
    g_autoptr(GHashTable) saved = saved_load(state_dir, error);
    g_autoptr(GList) keys = NULL;
    guint failed = 0;

    if (!saved)
        return FALSE;
    keys = g_list_sort(g_hash_table_get_keys(saved), str_cmp);
    for (GList *l = keys; l; l = l->next) {
        const gchar *rel = l->data, *value = g_hash_table_lookup(saved, rel);
        g_autofree gchar *path = g_build_filename(sysroot && *sysroot ? sysroot : "/", rel, NULL);
        gchar *line;

        if (!g_file_test(path, G_FILE_TEST_EXISTS))
            line = g_strdup_printf("%s: gone (the device went away): nothing to restore", rel);
        else if (write_value(sysroot, rel, value))
            line = g_strdup_printf("%s: restored %s", rel, value);
        else {
            line = g_strdup_printf("%s: cannot restore %s: %s", rel, value, g_strerror(errno));
            failed++;
            if (ret_log)
                g_ptr_array_add(ret_log, line);
            else
                g_free(line);
            continue;
        }
        if (ret_log)
            g_ptr_array_add(ret_log, line);
        else
            g_free(line);
        g_hash_table_remove(saved, rel);
    }
    if (!saved_store(state_dir, saved, error))
        return FALSE;
    if (!failed) {
        g_autofree gchar *managed = g_build_filename(state_dir, VN_IRQ_MANAGED_FILE, NULL);
        (void)g_unlink(managed);
    }
    if (failed) {
        g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_WRITE,
                    "%u saved value(s) could not be restored (kept in %s)", failed, SAVED_FILE);
        return FALSE;
    }
    return TRUE;
}

/* <state_dir>/irq-managed: "IRQ NODE" per interrupt vnuma placed, for the
 * irqbalance policy script; removed when there is none. */
static gboolean
write_managed(const gchar *state_dir, const GString *text, GError **error)
{
    g_autofree gchar *path = g_build_filename(state_dir, VN_IRQ_MANAGED_FILE, NULL);

    if (!text->len)
        return remove_file(path, error);
    if (g_mkdir_with_parents(state_dir, 0755) < 0 ||
        !g_file_set_contents_full(path, text->str, -1, G_FILE_SET_CONTENTS_CONSISTENT, 0644,
                                  NULL)) {
        g_set_error(error, VN_IRQ_ERROR, VN_IRQ_ERROR_SAVED, "%s: cannot be written: %s", path,
                    g_strerror(errno));
        return FALSE;
    }
    return TRUE;
}

GHashTable *
vn_irq_managed_read(const gchar *state_dir)
{
    g_autofree gchar *path = g_build_filename(state_dir, VN_IRQ_MANAGED_FILE, NULL);
    g_autofree gchar *text = NULL;
    g_auto(GStrv) lines = NULL;
    GHashTable *irqs = g_hash_table_new(g_direct_hash, g_direct_equal);

    if (!g_file_get_contents(path, &text, NULL, NULL))
        return irqs;
    lines = g_strsplit(text, "\n", -1);
    for (guint i = 0; lines[i]; i++) {
        g_auto(GStrv) fields = g_strsplit(lines[i], " ", 2);
        guint64 irq;
        if (fields[0] && g_ascii_string_to_unsigned(fields[0], 10, 0, G_MAXUINT, &irq, NULL))
            g_hash_table_add(irqs, GUINT_TO_POINTER((guint)irq));
    }
    return irqs;
}

static void
add_managed(GString *text, const VnIrqNicPlan *p)
{
    gint node = vn_bitmap_next(p->nodes, -1);

    for (guint k = 0; k < p->targets->len; k++) {
        const VnIrqTarget *t = &g_array_index(p->targets, VnIrqTarget, k);
        if (t->cpus && !t->left)
            g_string_append_printf(text, "%u %d\n", t->irq, node);
    }
}

guint
vn_irq_apply_all(const gchar *sysroot, const gchar *state_dir, const VnIrqHost *h,
                 const VnIrqPlan *p, guint n_cpus, GPtrArray *ret_changed, GPtrArray *ret_left,
                 GPtrArray *ret_failed)
{
    g_autoptr(GString) managed = g_string_new(NULL);
    g_autoptr(GError) error = NULL;
    guint failed = 0;

    for (guint i = 0; i < h->nics->len && i < p->nics->len; i++) {
        const VnIrqNicPlan *np = p->nics->pdata[i];
        g_autoptr(GError) local = NULL;

        if (!np->cpus)
            continue;
        if (!vn_irq_apply_nic(sysroot, state_dir, h->nics->pdata[i], np, n_cpus, ret_changed,
                              ret_left, &local)) {
            g_ptr_array_add(ret_failed, g_strdup(local->message));
            failed++;
            continue;
        }
        add_managed(managed, np);
    }
    if (!write_managed(state_dir, managed, &error)) {
        g_ptr_array_add(ret_failed, g_strdup(error->message));
        failed++;
    }
    return failed;
}
