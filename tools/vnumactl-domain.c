/* vnumactl-domain.c: `vnumactl define` and `vnumactl place`.
 *
 *   define DOMAIN.xml  plan the domain, write the placement into its XML
 *                      and define it in libvirt
 *   place NAME         the same for the persistent definition of a domain
 *                      libvirt already has; effective at its next start
 *
 * Both share vn_engine_run() with `plan`, the daemon and the hook; only
 * the libvirt calls (vn-libvirt.h) are theirs.  --dry-run prints the
 * rewritten XML instead of defining it.
 */
#include "vnumactl.h"
#include "vn-cpulist.h"
#include "vn-domain.h"
#include "vn-engine.h"
#include "vn-libvirt.h"
#include "vn-plan.h"

#include <stdio.h>

typedef struct {
    gchar *connect;
    gboolean force;
    gboolean dry_run;
    VnSourceOptions source;
} DomainOptions;

static void
domain_options_clear(DomainOptions *o)
{
    g_free(o->connect);
    vn_source_options_clear(&o->source);
}

G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(DomainOptions, domain_options_clear)

static GOptionContext *
domain_context(DomainOptions *o, const gchar *summary)
{
    const GOptionEntry entries[] = {
        { "connect", 'c', 0, G_OPTION_ARG_STRING, &o->connect,
          "libvirt URI (default " VN_LIBVIRT_DEFAULT_URI ")", "URI" },
        { "force", 0, 0, G_OPTION_ARG_NONE, &o->force, "Replace hand-written pins and numatune",
          NULL },
        { "dry-run", 'n', 0, G_OPTION_ARG_NONE, &o->dry_run,
          "Print the rewritten XML; define nothing", NULL },
        { NULL },
    };

    return vn_cli_context_new(summary, entries, &o->source);
}

/* One line per guest cell (per node share when the guest sees one node:
 * interleave, spill): where it went. */
static void
print_placement(const VnPlacement *p)
{
    if (p->interleave)
        printf("  memory interleaved over these nodes, no guest cells:\n");
    else if (p->tiers == VN_TIERS_SPILL)
        printf("  one guest node; memory expected on these nodes (spill to the slow tier):\n");
    for (guint i = 0; i < p->cells->len; i++) {
        const VnCell *c = &g_array_index(p->cells, VnCell, i);
        g_autofree gchar *cpus = vn_cpulist_format(c->cpus);
        g_autofree gchar *vcpus = c->n_vcpus > 1    ? g_strdup_printf("vCPUs %u-%u", c->vcpu_first,
                                                                      c->vcpu_first + c->n_vcpus - 1)
                                  : c->n_vcpus == 1 ? g_strdup_printf("vCPU %u", c->vcpu_first)
                                                    : g_strdup("no vCPUs");
        printf("  cell %u: %s, %.1f GiB on node %u (CPUs %s)\n", c->id, vcpus,
               c->memory_kib / 1048576.0, c->node_os_id, cpus);
    }
}

static int
fail_place(const GError *error, GPtrArray *reasons)
{
    fprintf(stderr, "%s: %s\n", g_get_prgname(), error->message);
    for (guint i = 1; reasons && i < reasons->len; i++)
        fprintf(stderr, "  %s\n", (const gchar *)g_ptr_array_index(reasons, i));
    return g_error_matches(error, VN_PLAN_ERROR, VN_PLAN_ERROR_NO_FIT) ? VN_EXIT_NO_FIT
                                                                       : VN_EXIT_ERROR;
}

/* [placement] defragment = apply: the moves made live before the VM is
 * defined on one node; a failed move (every VM then put back) leaves the
 * split placement, with one line saying why.  *ret_xml and
 * *ret_placement: what to define (borrowed from `res`). */
static void
defragment(const DomainOptions *o, const VnConfig *config, const VnTopology *t,
           const VnEngineResult *res, const gchar **ret_xml, const VnPlacement **ret_placement)
{
    g_autoptr(GError) error = NULL;

    *ret_xml = res->xml;
    *ret_placement = res->placement;
    if (!res->moves || !res->split)
        return;
    if (vn_cli_defrag_apply(o->connect ? o->connect : VN_LIBVIRT_DEFAULT_URI, config, t, res->moves,
                            &error))
        return;
    fprintf(stderr, "%s: defragment: %s; moved VMs put back, placed split over nodes\n",
            g_get_prgname(), error->message);
    *ret_xml = res->split_xml;
    *ret_placement = res->split;
}

/* Places `d` on the host the source options describe; prints the XML on
 * --dry-run (after the defragmentation moves, as an XML comment), else
 * makes the moves and defines it.  Returns the exit status. */
static int
place_and_define(const DomainOptions *o, VnLibvirt *virt, VnDomain *d, VnEngineIntent intent,
                 const gchar *done)
{
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(VnLedger) ledger = NULL;
    g_auto(VnEngineResult) res = { 0 };
    g_autofree gchar *name = NULL;
    VnDomainWriteOptions wo = { .force = o->force };
    const gchar *xml;
    const VnPlacement *placement;

    /* one ledger read: the VMs defragmentation may move are those the load counts */
    if (!vn_source_load_with_ledger(&o->source, &t, &load, &config, &ledger, &error))
        return vn_cli_fail(error);
    wo.memory_mode = config->memory_mode;
    const VnEngineHost host = { .t = t,
                                .load = load,
                                .policy = config->policy,
                                .sysroot = o->source.sysroot,
                                .defragment = config->defragment,
                                .ledger = ledger };
    if (!vn_engine_run(d, &host, intent, &wo, &res, &error))
        return fail_place(error, res.reasons);
    vn_cli_print_warnings(res.placement);
    if (o->dry_run) {
        vn_cli_print_defrag(t, config->defragment, &res, TRUE);
        fputs(res.xml, stdout);
        return VN_EXIT_OK;
    }
    vn_cli_print_defrag(t, config->defragment, &res, FALSE);
    defragment(o, config, t, &res, &xml, &placement);
    if (!vn_libvirt_define(virt, xml, &name, &error))
        return vn_cli_fail(error);
    printf("Domain '%s' %s on %s:\n", name, done, vn_libvirt_uri(virt));
    print_placement(placement);
    return VN_EXIT_OK;
}

int
vn_cmd_define(int argc, char **argv)
{
    g_auto(DomainOptions) o = { 0 };
    g_autoptr(GOptionContext) ctx =
        domain_context(&o, "Place DOMAIN.xml on this host and define it in libvirt");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;
    g_autoptr(VnLibvirt) virt = NULL;
    const gchar *path = NULL;

    if (!vn_cli_parse_args(ctx, &argc, &argv, 1, &path))
        return VN_EXIT_ERROR;
    if (!path)
        return vn_cli_fail_printf("DOMAIN.xml is required (see --help)");
    if (!(d = vn_domain_load_file(path, &error)))
        return vn_cli_fail(error);
    if (!o.dry_run && !(virt = vn_libvirt_open(o.connect, &error)))
        return vn_cli_fail(error);
    return place_and_define(&o, virt, d, VN_ENGINE_DEFINE, "defined");
}

int
vn_cmd_place(int argc, char **argv)
{
    g_auto(DomainOptions) o = { 0 };
    g_autoptr(GOptionContext) ctx =
        domain_context(&o, "Place a defined domain again: rewrite its persistent definition "
                           "(effective at its next start)");
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;
    g_autoptr(VnLibvirt) virt = NULL;
    g_autofree gchar *xml = NULL;
    g_autofree gchar *what = NULL;
    const gchar *name = NULL;
    gboolean active = FALSE;
    int rc;

    if (!vn_cli_parse_args(ctx, &argc, &argv, 1, &name))
        return VN_EXIT_ERROR;
    if (!name)
        return vn_cli_fail_printf("NAME is required (see --help)");
    if (!(virt = vn_libvirt_open(o.connect, &error)) ||
        !(xml = vn_libvirt_get_definition(virt, name, &active, &error)))
        return vn_cli_fail(error);
    what = g_strdup_printf("%s (libvirt definition)", name);
    if (!(d = vn_domain_load_buffer(xml, strlen(xml), what, &error)))
        return vn_cli_fail(error);
    rc = place_and_define(&o, virt, d, VN_ENGINE_PLACE, "placed");
    if (rc == VN_EXIT_OK && !o.dry_run)
        printf("Effective at its next start%s.\n",
               active ? " (it is running: it keeps its current placement until then)" : "");
    return rc;
}
