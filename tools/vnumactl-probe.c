/* vnumactl probe: measure this host's node distances.
 *
 *   vnumactl probe [--json] [--save] [--seconds N] [--quick]
 *                  [--config FILE] [--state-dir DIR]
 *
 * Measures the live host (vn-probe-measure.h), prints the latency and
 * bandwidth matrices, the distances derived from them, the firmware's and
 * where they disagree (vn-probe.h); --save keeps the probe for
 * `[topology] distances = measured` (vn-probe-file.h). */
#include "vnumactl.h"

#include "vn-boot-id.h"
#include "vn-probe-file.h"
#include "vn-probe-json.h"
#include "vn-probe-measure.h"
#include "vn-topology-source.h"

typedef struct {
    gboolean json, save, quick;
    gdouble seconds;
    gchar *config_file;
    gchar *state_dir;
} ProbeOptions;

static void
probe_options_clear(ProbeOptions *o)
{
    g_free(o->config_file);
    g_free(o->state_dir);
}
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(ProbeOptions, probe_options_clear)

/* Rows CPU nodes, columns memory nodes; "-" where not measured. */
static void
print_matrix(const VnTopology *t, const gchar *title, const gdouble *m, const guint *d)
{
    guint n = t->n_nodes;

    g_print("%s:\nnode", title);
    for (guint j = 0; j < n; j++)
        g_print(" %7u", t->nodes[j].os_id);
    g_print("\n");
    for (guint i = 0; i < n; i++) {
        if (vn_topology_node_ncpus(t, i) == 0)
            continue;
        g_print("%3u:", t->nodes[i].os_id);
        for (guint j = 0; j < n; j++) {
            gboolean known = m ? m[i * n + j] > 0 : d[i * n + j] > 0;
            if (!known)
                g_print(" %7s", "-");
            else if (m)
                g_print(" %7.1f", m[i * n + j]);
            else
                g_print(" %7u", d[i * n + j]);
        }
        g_print("\n");
    }
}

static void
print_text(const VnTopology *t, const VnProbe *p, gdouble seconds, GPtrArray *findings,
           GPtrArray *notes)
{
    g_autofree guint *derived = vn_probe_distances(p);

    g_print("source: %s\nmeasured in %.1f s; rows: CPU nodes, columns: memory nodes\n\n", t->source,
            seconds);
    print_matrix(t, "latency of a dependent random pointer walk (ns)", p->latency_ns, NULL);
    print_matrix(t, "\nsequential read bandwidth, one thread (MB/s)", p->bandwidth_mbs, NULL);
    print_matrix(t, "\nmeasured distances (10 x latency / local latency)", NULL, derived);
    print_matrix(t, "\nfirmware distances", NULL, t->distance);
    g_print("\n");
    if (findings->len == 0)
        g_print("the firmware table agrees with the measurements\n");
    for (guint i = 0; i < findings->len; i++)
        g_print("%s\n", ((VnProbeFinding *)g_ptr_array_index(findings, i))->text);
    for (guint i = 0; notes && i < notes->len; i++)
        g_print("not measured: %s\n", (const gchar *)g_ptr_array_index(notes, i));
}

/* --state-dir, else the config's (which $VNUMA_STATE_DIR overrides). */
static gboolean
save(const ProbeOptions *o, const VnTopology *t, const VnProbe *p, GError **error)
{
    g_autoptr(VnConfig) config = NULL;
    g_autofree gchar *path = NULL;

    if (!o->state_dir && !(config = vn_config_load(o->config_file, t, error)))
        return FALSE;
    if (!vn_probe_file_save(p, t, o->state_dir ? o->state_dir : config->state_dir, "/", &path,
                            error))
        return FALSE;
    g_printerr("%s: saved %s\n", g_get_prgname(), path);
    return TRUE;
}

static gboolean
run(const ProbeOptions *o, GError **error)
{
    g_autoptr(VnTopology) t = vn_topology_load_live(error);
    g_autoptr(VnProbe) p = NULL;
    g_autoptr(GPtrArray) notes = NULL, findings = NULL;
    g_autofree gchar *boot = vn_boot_id_read("/");
    VnProbeOptions po;
    gint64 start;
    gdouble seconds;

    if (!t)
        return FALSE;
    po = (VnProbeOptions){
        .seconds = o->seconds > 0 ? o->seconds : vn_probe_default_seconds(t, o->quick),
        .buffer_bytes = o->quick ? VN_PROBE_QUICK_BUFFER_BYTES : VN_PROBE_BUFFER_BYTES,
    };
    start = g_get_monotonic_time();
    if (!(p = vn_probe_measure(t, &po, &notes, error)))
        return FALSE;
    seconds = (gdouble)(g_get_monotonic_time() - start) / 1e6;
    findings = vn_probe_compare(p, t);
    if (o->json) {
        g_autoptr(JsonNode) node = vn_probe_report_to_json(p, t, boot, seconds, findings, notes);
        vn_cli_print_json(node);
    } else {
        print_text(t, p, seconds, findings, notes);
    }
    return !o->save || save(o, t, p, error);
}

int
vn_cmd_probe(int argc, char **argv)
{
    g_auto(ProbeOptions) o = { .seconds = -1 }; /* -1: not given */
    const GOptionEntry entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &o.json, "Print one JSON object", NULL },
        { "save", 0, 0, G_OPTION_ARG_NONE, &o.save,
          "Keep the probe, with this boot's id, for [topology] distances = measured", NULL },
        { "seconds", 0, 0, G_OPTION_ARG_DOUBLE, &o.seconds,
          "Time for the whole run (default: 0.15 s a node pair, at most 10)", "N" },
        { "quick", 0, 0, G_OPTION_ARG_NONE, &o.quick,
          "Smaller buffers and 0.03 s a node pair (at most 2 s)", NULL },
        { "config", 0, 0, G_OPTION_ARG_FILENAME, &o.config_file,
          "vnuma.conf, for the state directory of --save", "FILE" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &o.state_dir,
          "With --save: where to keep the probe (default: the config's)", "DIR" },
        { NULL },
    };
    g_autoptr(GOptionContext) context =
        vn_cli_context_new("Measure the latency and read bandwidth from each CPU node to each\n"
                           "memory node of this host, the distances they give, and where the\n"
                           "firmware's distance table disagrees.",
                           entries, NULL);
    g_autoptr(GError) error = NULL;

    if (!vn_cli_parse(context, &argc, &argv))
        return VN_EXIT_ERROR;
    if (o.seconds != -1 && !(o.seconds > 0 && o.seconds <= 600))
        return vn_cli_fail_printf("--seconds %g: give a time above 0 and at most 600", o.seconds);
    if (!run(&o, &error))
        return vn_cli_fail(error);
    return VN_EXIT_OK;
}
