/* vnumactl apply NAME: apply the domain's reservation live.
 *
 * The qemu hook starts this, detached, after `started` when it planned a
 * placement the domain's XML does not carry.  It connects to libvirt
 * (--connect URI, default qemu:///system), waits for the domain to run
 * (--timeout, default 60 s, longer than libvirt's 30 s job wait), pins vCPUs,
 * emulator and IOThreads, moves the memory nodeset when the domain's mode
 * allows it, then clears the record's needs_apply flag.  Then the VM's
 * data path follows it (vn-dataplane.h): its vhost workers go to the
 * emulator's CPUs, the data-plane processes vnuma.conf [dataplane] names
 * for it (and for no other VM) to its CPUs and nodes.  With
 * --dataplane-only, only that last step runs, without libvirt: the hook
 * asks for it at `started` when no live pin is due.  One line per step on
 * stdout (the hook sends it to <state_dir>/apply.log).  The pins happen
 * under the record's apply lock (vn-apply-lock.h), so the hook's helper
 * and vnumad's re-apply of a record it left unapplied take turns; the
 * flag is cleared only when the record still places the VM as applied.
 * The domain's persistent definition follows the applied placement when
 * it records a vnuma placement (vn_live_apply_persistent()); when it
 * cannot, one warning line on stderr says why and the apply still counts. */
#include <libvirt/libvirt.h>
#include <libvirt/virterror.h>
#include "vnumactl.h"

#include "vn-apply-lock.h"
#include "vn-dataplane.h"
#include "vn-ledger.h"
#include "vn-live-apply.h"

static void
quiet_libvirt(void *data, virErrorPtr e)
{
    /* errors are reported through GError, once, by us */
}

static void
print_log(const gchar *name, const GPtrArray *log)
{
    for (guint i = 0; i < log->len; i++)
        g_print("%s: %s\n", name, (const gchar *)g_ptr_array_index(log, i));
}

/* The data path after the pins; `config` NULL (unreadable, the reason in
 * `config_error`) steers nothing and fails. */
static gboolean
follow_dataplane(const VnLedgerRecord *r, const VnConfig *config, const GError *config_error,
                 GError **error)
{
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    if (!config) {
        g_set_error(error, VN_DATAPLANE_ERROR, VN_DATAPLANE_ERROR_SPEC,
                    "data path of %s not steered: %s", r->name, config_error->message);
        return FALSE;
    }
    gboolean ok = vn_dataplane_follow(r, config, log, error);
    print_log(r->name, log);
    return ok;
}

/* Whether `now` places the VM as `applied` did: the same record but for
 * needs_apply and the time of its writing. */
static gboolean
same_placement(const VnLedgerRecord *now, const VnLedgerRecord *applied)
{
    g_autoptr(VnLedgerRecord) x = vn_ledger_record_copy(now);

    x->needs_apply = applied->needs_apply;
    x->time = applied->time;
    return vn_ledger_record_equal(x, applied);
}

/* Under the ledger lock: the record still there, same placement, applied.
 * A record written anew meanwhile (a move, the hook) keeps its needs_apply
 * for its own apply. */
static gboolean
mark_applied(const gchar *dir, const VnLedgerRecord *applied, GError **error)
{
    g_autoptr(VnLedger) l = vn_ledger_open(dir, error);
    if (!l)
        return FALSE;
    VnLedgerRecord *r = vn_ledger_lookup(l, applied->uuid);
    if (!r)
        return TRUE; /* stopped meanwhile: nothing to record */
    if (!same_placement(r, applied)) {
        g_print("%s: its record changed meanwhile: needs_apply left as it is\n", applied->name);
        return TRUE;
    }
    if (!r->needs_apply)
        return TRUE;
    r->needs_apply = FALSE;
    return vn_ledger_commit(l, error);
}

/* The live pins through libvirt, then the record marked applied. */
static gboolean
pin_live(const gchar *uri, const gchar *dir, const VnLiveApplyHost *host, const VnLedgerRecord *r,
         guint timeout_s, GError **error)
{
    const gchar *name = r->name;
    g_autofree gchar *warning = NULL;
    virSetErrorFunc(NULL, quiet_libvirt);
    virConnectPtr conn = virConnectOpen(uri);
    if (!conn) {
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT,
                    "cannot connect to %s: %s", uri, virGetLastErrorMessage());
        return FALSE;
    }
    virDomainPtr dom = virDomainLookupByName(conn, name);
    g_autoptr(GPtrArray) log = g_ptr_array_new_with_free_func(g_free);
    gboolean ok = dom && vn_live_apply(dom, r, timeout_s, host, log, &warning, error);
    print_log(name, log);
    if (warning)
        g_printerr("%s: warning: %s\n", g_get_prgname(), warning);
    if (!dom)
        g_set_error(error, VN_LIVE_APPLY_ERROR, VN_LIVE_APPLY_ERROR_LIBVIRT, "no domain %s: %s",
                    name, virGetLastErrorMessage());
    if (dom)
        virDomainFree(dom);
    virConnectClose(conn);
    if (!ok || !mark_applied(dir, r, error))
        return FALSE;
    g_autofree gchar *nodes = vn_ledger_record_nodes_string(r);
    g_print("%s: placement applied on node(s) %s%s\n", name, nodes,
            warning ? " (its persistent definition not updated)" : "");
    return TRUE;
}

/* The pins (unless `dataplane_only`), then the data path.  The config is
 * read for [dataplane] only: a broken one still lets the pins happen. */
static int
apply(const gchar *uri, const gchar *dir, const VnLiveApplyHost *host, const VnConfig *config,
      const GError *config_error, const gchar *name, guint timeout_s, gboolean dataplane_only)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnLedger) snap = vn_ledger_snapshot(dir, &error);
    g_autoptr(VnApplyLock) lock = NULL;
    if (!snap)
        return vn_cli_fail(error);
    VnLedgerRecord *found = vn_ledger_lookup_name(snap, name);
    if (!found)
        return vn_cli_fail_printf("no reservation for domain \"%s\" in %s", name, dir);
    if (!dataplane_only) {
        /* one apply of a record at a time (vnumad re-applies what a failed
         * one left): after a wait, the record as it is then */
        g_autofree gchar *uuid = g_strdup(found->uuid);
        if (!(lock = vn_apply_lock_take(dir, uuid, timeout_s * 1000, &error)))
            return vn_cli_fail(error);
        g_clear_pointer(&snap, vn_ledger_free);
        if (!(snap = vn_ledger_snapshot(dir, &error)))
            return vn_cli_fail(error);
        if (!(found = vn_ledger_lookup(snap, uuid)))
            return vn_cli_fail_printf("domain \"%s\" left %s meanwhile", name, dir);
    }
    g_autoptr(VnLedgerRecord) r = vn_ledger_record_copy(found);
    if (!dataplane_only && !pin_live(uri, dir, host, r, timeout_s, &error))
        return vn_cli_fail(error);
    if (!follow_dataplane(r, config, config_error, &error))
        return vn_cli_fail(error);
    return VN_EXIT_OK;
}

/* This host's topology (the live host or $VNUMA_TOPOLOGY, for the
 * persistent definition) and vnuma.conf, as vn_source_load() reads them
 * without options; a broken config still leaves the topology. */
static void
host_source(VnTopology **ret_t, VnConfig **ret_config, GError **config_error,
            GError **topology_error)
{
    VnSourceOptions none = { 0 };

    if (vn_source_load(&none, ret_t, NULL, ret_config, config_error))
        return;
    vn_source_load(&none, ret_t, NULL, NULL, topology_error);
}

int
vn_cmd_apply(int argc, char **argv)
{
    g_autofree gchar *uri = NULL;
    g_autofree gchar *state_dir = NULL;
    gint timeout_s = 60;
    gboolean dataplane_only = FALSE;
    const GOptionEntry entries[] = {
        { "connect", 'c', 0, G_OPTION_ARG_STRING, &uri, "libvirt URI (default qemu:///system)",
          "URI" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
          "Ledger directory (default: $VNUMA_STATE_DIR, else vnuma.conf)", "DIR" },
        { "timeout", 0, 0, G_OPTION_ARG_INT, &timeout_s,
          "Seconds to wait for the domain to run (default 60)", "S" },
        { "dataplane-only", 0, 0, G_OPTION_ARG_NONE, &dataplane_only,
          "Only steer the data path (vhost workers, [dataplane] processes); no libvirt", NULL },
        { NULL }
    };
    g_autoptr(GOptionContext) ctx = vn_cli_context_new(
        "NAME - apply a domain's reserved placement to it while it runs", entries, NULL);
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
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(GError) topology_error = NULL;
    host_source(&t, &config, &error, &topology_error);
    if (!config && !state_dir)
        return vn_cli_fail(error);
    const gchar *dir = state_dir ? state_dir : config->state_dir;
    const VnLiveApplyHost host = {
        .t = t,
        .why = topology_error ? topology_error->message : NULL,
        .memory_mode = config ? config->memory_mode : VN_MEMORY_MODE_AUTO,
    };
    return apply(uri ? uri : "qemu:///system", dir, &host, config, error, name, (guint)timeout_s,
                 dataplane_only);
}
