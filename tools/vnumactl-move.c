/* vnumactl-move.c: a VM moved live and recorded, and the defragmentation
 * moves of `define`/`place` (vnumactl.h).
 *
 * One path for every live move, the rebalancer's: the moved record
 * applied through libvirt (vCPU and emulator pins, the memory nodeset;
 * the kernel migrates the pages), the data path following it, then the
 * record written to the ledger under its lock.  Live first, ledger
 * second: a move libvirt refuses leaves the ledger as it was.  The VM's
 * persistent definition follows inside the live apply (vn_live_apply());
 * when it cannot, one warning line on stderr, and the move stands. */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include "vnumactl.h"
#include "vn-dataplane.h"
#include "vn-live-apply.h"

#include <stdio.h>
#include <string.h>

static void
quiet_libvirt(void *data, virErrorPtr e)
{
    /* reported once, through GError */
}

gboolean
vn_cli_move_live(virConnectPtr conn, const VnConfig *config, const VnTopology *t,
                 const VnLedgerRecord *moved, GPtrArray *steps, gchar **ret_warning, GError **error)
{
    const VnLiveApplyHost host = { .t = t, .memory_mode = config->memory_mode };
    g_autofree gchar *warning = NULL;
    g_autoptr(VnLedger) l = vn_ledger_open(config->state_dir, error);
    g_autoptr(GError) dataplane_error = NULL;
    g_autoptr(VnLedgerRecord) rec = NULL;
    g_autoptr(GPtrArray) own = steps ? NULL : g_ptr_array_new_with_free_func(g_free);
    GPtrArray *log = steps ? steps : own;
    virDomainPtr dom;
    gboolean ok;

    if (!l)
        return FALSE;
    if (!vn_ledger_lookup(l, moved->uuid)) {
        g_set_error(error, VN_LEDGER_ERROR, VN_LEDGER_ERROR_CORRUPT, "%s left the ledger meanwhile",
                    moved->name);
        return FALSE;
    }
    if (!(dom = virDomainLookupByName(conn, moved->name))) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT, "no domain %s: %s",
                    moved->name, virGetLastErrorMessage());
        return FALSE;
    }
    ok = vn_live_apply(dom, moved, 30, &host, log, &warning, error);
    virDomainFree(dom);
    if (!ok)
        return FALSE;
    if (warning)
        g_printerr("%s: warning: %s\n", g_get_prgname(), warning);
    /* the data path follows the VM: vhost workers, [dataplane] processes;
     * a failure there is reported but does not undo the move */
    if (!vn_dataplane_follow(moved, config, log, &dataplane_error))
        g_printerr("%s: %s: data path: %s\n", g_get_prgname(), moved->name,
                   dataplane_error->message);
    rec = vn_ledger_record_copy(moved);
    rec->time = g_get_real_time() / G_USEC_PER_SEC;
    /* applied live just now, whole: nothing left for vnumad to re-apply */
    rec->needs_apply = FALSE;
    vn_ledger_put(l, g_steal_pointer(&rec));
    if (!vn_ledger_commit(l, error))
        return FALSE;
    if (ret_warning)
        *ret_warning = g_steal_pointer(&warning);
    return TRUE;
}

virConnectPtr
vn_cli_connect(const gchar *uri, GError **error)
{
    virConnectPtr conn;

    virSetErrorFunc(NULL, quiet_libvirt);
    if (!(conn = virConnectOpen(uri)))
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT,
                    "cannot connect to %s: %s", uri, virGetLastErrorMessage());
    return conn;
}

/* "move web1 cell 0: node 0 -> 1 (2 vCPUs, 512 MiB)" */
static gchar *
move_text(const VnTopology *t, const VnEngineMove *m)
{
    return g_strdup_printf("move %s cell %u: node %u -> %u (%u vCPU%s, %" G_GUINT64_FORMAT " MiB)",
                           m->vm, m->cell, t->nodes[m->from_node].os_id, t->nodes[m->to_node].os_id,
                           m->vcpus, m->vcpus == 1 ? "" : "s", m->memory_kib / 1024);
}

/* XML comments may not hold "--". */
static void
print_comment_line(const gchar *text)
{
    g_auto(GStrv) parts = g_strsplit(text, "--", -1);
    g_autofree gchar *safe = g_strjoinv("- -", parts);

    printf("     %s\n", safe);
}

void
vn_cli_print_defrag(const VnTopology *t, VnDefragment mode, const VnEngineResult *res,
                    gboolean xml_comment)
{
    const gchar *name = vn_defragment_to_string(mode);
    g_autofree gchar *head = NULL;

    if (mode == VN_DEFRAGMENT_OFF || (!res->moves && !res->defrag_note))
        return;
    if (!res->moves)
        head = g_strdup_printf("[placement] defragment = %s: %s", name, res->defrag_note);
    else if (mode == VN_DEFRAGMENT_APPLY)
        head = g_strdup_printf("[placement] defragment = %s: these moves first, then the VM on "
                               "node %u alone:",
                               name, res->defrag_node);
    else
        head = g_strdup_printf("[placement] defragment = %s: placed split over nodes; these "
                               "moves would have placed it on node %u alone:",
                               name, res->defrag_node);
    if (xml_comment) {
        printf("<!-- vnuma\n");
        print_comment_line(head);
    } else {
        printf("%s\n", head);
    }
    for (guint i = 0; res->moves && i < res->moves->len; i++) {
        g_autofree gchar *line = move_text(t, &g_array_index(res->moves, VnEngineMove, i));
        if (xml_comment)
            print_comment_line(line);
        else
            printf("  %s\n", line);
    }
    if (xml_comment)
        printf("-->\n");
}

/* Puts back the first `n` moves, last first: each VM's record as it was,
 * applied live and recorded.  Reports what it cannot put back. */
static void
undo_moves(virConnectPtr conn, const VnConfig *config, const VnTopology *t, GArray *moves, guint n)
{
    for (guint i = n; i-- > 0;) {
        const VnEngineMove *m = &g_array_index(moves, VnEngineMove, i);
        g_autoptr(GError) error = NULL;
        if (!vn_cli_move_live(conn, config, t, m->before, NULL, NULL, &error))
            g_printerr("%s: defragment: %s not put back: %s\n", g_get_prgname(), m->vm,
                       error->message);
    }
}

gboolean
vn_cli_defrag_apply(const gchar *uri, const VnConfig *config, const VnTopology *t, GArray *moves,
                    GError **error)
{
    virConnectPtr conn = vn_cli_connect(uri, error);

    if (!conn)
        return FALSE;
    for (guint i = 0; i < moves->len; i++) {
        const VnEngineMove *m = &g_array_index(moves, VnEngineMove, i);
        g_autofree gchar *line = move_text(t, m);
        g_autofree gchar *warning = NULL;
        if (!vn_cli_move_live(conn, config, t, m->after, NULL, &warning, error)) {
            g_prefix_error(error, "%s: ", line);
            /* the failed one too: some of its pins may have changed */
            undo_moves(conn, config, t, moves, i + 1);
            virConnectClose(conn);
            return FALSE;
        }
        printf("defragment: %s: moved%s\n", line,
               warning ? " (its persistent definition not updated)" : "");
    }
    virConnectClose(conn);
    return TRUE;
}
