/* vnumactl apply NAME: apply the domain's reservation live (issue 5).
 *
 * The qemu hook starts this, detached, after `started` when it planned a
 * placement the domain's XML does not carry.  It connects to libvirt
 * (--connect URI, default qemu:///system), waits for the domain to run
 * (--timeout, default 60 s, longer than libvirt's 30 s job wait), pins vCPUs,
 * emulator and IOThreads, moves the memory nodeset when the domain's mode
 * allows it, then clears the record's needs_apply flag.  One line per step
 * on stdout (the hook sends it to <state_dir>/apply.log). */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include "vnumactl.h"

#include "vn-ledger.h"
#include "vn-live-apply.h"

static void quiet_libvirt(void *data, virErrorPtr e)
{
    /* errors are reported through GError, once, by us */
}

static gchar *state_dir_or_config(const gchar *given, GError **error)
{
    VnSourceOptions none = { 0 };
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;
    if (given)
        return g_strdup(given);
    if (!vn_source_load(&none, &t, NULL, &config, error))
        return NULL;
    return g_strdup(config->state_dir);
}

/* Under the ledger lock: the record still there, same placement, applied. */
static gboolean mark_applied(const gchar *dir, const VnLedgerRecord *applied, GError **error)
{
    g_autoptr(VnLedger) l = vn_ledger_open(dir, error);
    if (!l)
        return FALSE;
    VnLedgerRecord *r = vn_ledger_lookup(l, applied->uuid);
    if (!r)
        return TRUE;   /* stopped meanwhile: nothing to record */
    r->needs_apply = FALSE;
    return vn_ledger_commit(l, error);
}

static int apply(const gchar *uri, const gchar *dir, const gchar *name, guint timeout_s)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = vn_ledger_snapshot(dir, &error);
    if (!snap)
        return vn_cli_fail(error);
    VnLedgerRecord *found = vn_ledger_lookup_name(snap, name);
    if (!found)
        return vn_cli_fail_printf("no reservation for domain \"%s\" in %s", name, dir);
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_copy(found);
    virSetErrorFunc(NULL, quiet_libvirt);
    virConnectPtr conn = virConnectOpen(uri);
    if (!conn)
        return vn_cli_fail_printf("cannot connect to %s: %s", uri, virGetLastErrorMessage());
    virDomainPtr dom = virDomainLookupByName(conn, name);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = dom && vn_live_apply(dom, r, timeout_s, log, &error);
    for (guint i = 0; i < log->len; i++)
        g_print("%s: %s\n", name, (const gchar *)g_ptr_array_index(log, i));
    if (!dom)
        g_set_error(&error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT,
                    "no domain %s: %s", name, virGetLastErrorMessage());
    if (dom)
        virDomainFree(dom);
    virConnectClose(conn);
    if (!ok || !mark_applied(dir, r, &error))
        return vn_cli_fail(error);
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    g_print("%s: placement applied on node(s) %s\n", name, nodes);
    return VN_EXIT_OK;
}

int
vn_cmd_apply(int argc, char **argv)
{
    g_autofree gchar *uri = NULL;
    g_autofree gchar *state_dir = NULL;
    gint timeout_s = 60;
    const GOptionEntry entries[] = {
        { "connect", 'c', 0, G_OPTION_ARG_STRING, &uri,
          "libvirt URI (default qemu:///system)", "URI" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
          "Ledger directory (default: $VNUMA_STATE_DIR, else vnuma.conf)", "DIR" },
        { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
          "Seconds to wait for the domain to run (default 60)", "S" },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx =
        vn_cli_context_new("NAME - apply a domain's reserved placement to it while it runs",
                           entries, NULL);
    g_autoptr(GError) error = NULL;
    const gchar *name = NULL;

    if (!vn_cli_parse_args(ctx, &argc, &argv, 1, &name))
        return VN_EXIT_ERROR;
    if (!name)
        return vn_cli_fail_printf("usage: vnumactl apply [OPTIONS] NAME");
    if (timeout_s < 0 || timeout_s > 3600)
        return vn_cli_fail_printf("--timeout %d: not within 0..3600 seconds", timeout_s);
    if (!state_dir && g_getenv("VNUMA_STATE_DIR"))
        state_dir = g_strdup(g_getenv("VNUMA_STATE_DIR"));
    g_autofree gchar *dir = state_dir_or_config(state_dir, &error);
    if (!dir)
        return vn_cli_fail(error);
    return apply(uri ? uri : "qemu:///system", dir, name, (guint)timeout_s);
}
