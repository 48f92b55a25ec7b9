/* vnumactl topology: the host as vnuma sees it.
 *
 * Text: one row per node (CPUs, memory, load, hugepages), each node's
 * memory tier and why, the HMAT figures when the source has them, one row per
 * cache domain (the CPUs of a node that share an L3), then the distance
 * matrix in numactl --hardware's layout, then what the source did not say.  --json: the shape of
 * plugin/report/vn-topology-json.h.  For this host or a --sysroot capture,
 * AutoNUMA last: kernel.numa_balancing and the counters since boot (one
 * read: rates need two, vnumad's GET /v1/host has them), "autonuma" in
 * JSON (vn-autonuma-report.h). */
#include "vnumactl.h"

#include "vn-autonuma-report.h"
#include "vn-cpulist.h"
#include "vn-topology-json.h"
#include "vn-size.h"

/* "2M", "1G", "64K": a hugepage size in the kernel's words. */
static gchar *
page_size_text(guint64 kib)
{
    if (kib % (1024 * 1024) == 0)
        return g_strdup_printf("%" G_GUINT64_FORMAT "G", kib / (1024 * 1024));
    if (kib % 1024 == 0)
        return g_strdup_printf("%" G_GUINT64_FORMAT "M", kib / 1024);
    return g_strdup_printf("%" G_GUINT64_FORMAT "K", kib);
}

/* "2M:100/512 1G:0/4" (free/total pages), "-" when none. */
static gchar *
hugepages_text(const VnNode *n)
{
    g_autoptr(GString) s = g_string_new(NULL);

    for (guint h = 0; n->hugepages && h < n->hugepages->len; h++) {
        const VnHugepages *hp = &g_array_index(n->hugepages, VnHugepages, h);
        g_autofree gchar *size = page_size_text(hp->size_kib);

        g_string_append_printf(s, "%s%s:%" G_GUINT64_FORMAT "/%" G_GUINT64_FORMAT,
                               s->len ? " " : "", size, hp->free, hp->total);
    }
    return g_strdup(s->len ? s->str : "-");
}

/* What is special about a node: memory-only, CPU sharing, subtype. */
static gchar *
node_notes(const VnTopology *t, guint i)
{
    const VnNode *n = &t->nodes[i];
    g_autoptr(GPtrArray) notes = g_ptr_array_new_with_free_func(g_free);

    if (n->subtype)
        g_ptr_array_add(notes, g_strdup(n->subtype));
    if (n->cpu_owner >= 0)
        g_ptr_array_add(
            notes, g_strdup_printf("shares the CPUs of node %u", t->nodes[n->cpu_owner].os_id));
    else if (vn_topology_node_is_memory_only(t, i))
        g_ptr_array_add(notes, g_strdup("memory only"));
    g_ptr_array_add(notes, NULL);
    return g_strjoinv(", ", (gchar **)notes->pdata);
}

static void
print_node(const VnTopology *t, const VnLoad *load, guint i, gint cpus_width)
{
    const VnNode *n = &t->nodes[i];
    const VnNodeLoad *l = &load->nodes[i];
    g_autofree gchar *cpus = vn_cpulist_format(n->cpus);
    g_autofree gchar *free_mib =
        n->mem_free_kib == G_MAXUINT64
            ? g_strdup("-")
            : g_strdup_printf("%" G_GUINT64_FORMAT, vn_size_kib_to_mib(n->mem_free_kib));
    g_autofree gchar *cache_mib =
        n->mem_free_kib == G_MAXUINT64
            ? g_strdup("-")
            : g_strdup_printf("%" G_GUINT64_FORMAT, vn_size_kib_to_mib(n->mem_reclaimable_kib));
    g_autofree gchar *busy =
        l->cpu_busy < 0 ? g_strdup("-") : g_strdup_printf("%.0f%%", l->cpu_busy * 100.0);
    g_autofree gchar *hugepages = hugepages_text(n);
    g_autofree gchar *notes = node_notes(t, i);
    g_autofree gchar *line = NULL;

    line = g_strdup_printf(
        "%4u  %-*s %4u %10" G_GUINT64_FORMAT " %10s %10s %5s %6u %10" G_GUINT64_FORMAT "  %-18s %s",
        n->os_id, cpus_width, *cpus ? cpus : "-", vn_topology_node_ncpus(t, i),
        vn_size_kib_to_mib(n->mem_total_kib), free_mib, cache_mib, busy, l->committed_vcpus,
        vn_size_kib_to_mib(l->committed_memory_kib), hugepages, notes);
    g_print("%s\n", g_strchomp(line));
}

static void
print_nodes(const VnTopology *t, const VnLoad *load)
{
    gint width = 4;

    for (guint i = 0; i < t->n_nodes; i++) {
        g_autofree gchar *cpus = vn_cpulist_format(t->nodes[i].cpus);
        width = MAX(width, (gint)strlen(cpus));
    }
    g_print("%4s  %-*s %4s %10s %10s %10s %5s %6s %10s  %-18s %s\n", "node", width, "cpus", "ncpu",
            "total MiB", "free MiB", "cache MiB", "busy", "vcpus", "commit MiB",
            "hugepages free/all", "notes");
    for (guint i = 0; i < t->n_nodes; i++)
        print_node(t, load, i, width);
}

/* Each node's tier and why. */
static void
print_tiers(const VnTopology *t)
{
    g_print("memory tiers:\n%4s  %-7s %s\n", "node", "tier", "reason");
    for (guint i = 0; i < t->n_nodes; i++)
        g_print("%4u  %-7s %s\n", t->nodes[i].os_id, vn_memory_tier_to_string(t->nodes[i].tier),
                t->nodes[i].tier_reason);
}

/* A figure, "-" when not published. */
static gchar *
figure_text(guint v)
{
    return v ? g_strdup_printf("%u", v) : g_strdup("-");
}

/* The HMAT figures the source publishes, one row per (CPU node, memory
 * node) pair; nothing when it publishes none. */
static void
print_access(const VnTopology *t)
{
    if (!t->access || t->access->len == 0)
        return;
    g_print("\nHMAT (CPUs of node 'from' reading and writing memory of node 'to'):\n"
            "%4s %4s %8s %9s %11s %12s\n",
            "from", "to", "read ns", "write ns", "read MiB/s", "write MiB/s");
    for (guint k = 0; k < t->access->len; k++) {
        const VnNodeAccess *a = &g_array_index(t->access, VnNodeAccess, k);
        g_autofree gchar *rl = figure_text(a->value[VN_ACCESS_READ_LATENCY]);
        g_autofree gchar *wl = figure_text(a->value[VN_ACCESS_WRITE_LATENCY]);
        g_autofree gchar *rb = figure_text(a->value[VN_ACCESS_READ_BANDWIDTH]);
        g_autofree gchar *wb = figure_text(a->value[VN_ACCESS_WRITE_BANDWIDTH]);

        g_print("%4u %4u %8s %9s %11s %12s\n", t->nodes[a->initiator].os_id,
                t->nodes[a->target].os_id, rl, wl, rb, wb);
    }
}

static void
print_domains(const VnTopology *t)
{
    gint width = 4;

    for (guint d = 0; d < t->n_domains; d++) {
        g_autofree gchar *cpus = vn_cpulist_format(t->domains[d].cpus);
        width = MAX(width, (gint)strlen(cpus));
    }
    g_print("cache domains (CPUs of a node sharing an L3)%s:\n%4s %6s  %-*s %4s %s\n",
            t->domains_assumed ? " (none in the source: one per node)" : "", "node", "domain",
            width, "cpus", "ncpu", "L3 KiB");
    for (guint d = 0; d < t->n_domains; d++) {
        const VnCacheDomain *c = &t->domains[d];
        g_autofree gchar *cpus = vn_cpulist_format(c->cpus);
        g_autofree gchar *size =
            c->size_kib ? g_strdup_printf("%" G_GUINT64_FORMAT, c->size_kib) : g_strdup("-");

        g_print("%4u %6u  %-*s %4u %s\n", t->nodes[c->node].os_id, d, width, cpus,
                vn_bitmap_count(c->cpus), size);
    }
}

/* numactl --hardware's layout. */
static void
print_distances(const VnTopology *t)
{
    g_print("node distances%s:\nnode",
            t->distances_assumed ? " (none in the source: assumed 10 local, 20 remote)" : "");
    for (guint j = 0; j < t->n_nodes; j++)
        g_print(" %3u", t->nodes[j].os_id);
    g_print("\n");
    for (guint i = 0; i < t->n_nodes; i++) {
        g_print("%3u:", t->nodes[i].os_id);
        for (guint j = 0; j < t->n_nodes; j++)
            g_print(" %3u", vn_topology_distance(t, i, j));
        g_print("\n");
    }
}

static void
print_text(const VnTopology *t, const VnLoad *load, const VnConfig *config)
{
    g_autofree gchar *reserved = vn_cpulist_format(config->policy->reserved_cpus);
    g_autofree gchar *dedicated = vn_cpulist_format(load->dedicated_cpus);
    guint64 total_kib = 0;

    for (guint i = 0; i < t->n_nodes; i++)
        total_kib += t->nodes[i].mem_total_kib;
    g_print("source: %s\n", t->source);
    g_print("%u NUMA node%s, %u CPUs, %" G_GUINT64_FORMAT " MiB\n\n", t->n_nodes,
            t->n_nodes == 1 ? "" : "s", t->cpus->len, vn_size_kib_to_mib(total_kib));
    print_nodes(t, load);
    if (*reserved)
        g_print("CPUs reserved for the host (%s): %s\n", config->path, reserved);
    if (*dedicated)
        g_print("CPUs dedicated to placed VMs: %s\n", dedicated);
    g_print("\n");
    print_tiers(t);
    print_access(t);
    g_print("\n");
    print_domains(t);
    g_print("\n");
    print_distances(t);
}

/* AutoNUMA is the kernel's: shown for a captured host (--sysroot) or the
 * live one read by hwloc, not for a topology file, even $VNUMA_TOPOLOGY
 * standing for this host (its figures are not that file's). */
static VnAutonumaView *
autonuma_view(const VnSourceOptions *source)
{
    const gchar *env = g_getenv("VNUMA_TOPOLOGY");

    if (!source->sysroot && (!vn_source_is_this_host(source) || (env && *env)))
        return NULL;
    return vn_autonuma_view_new(source->sysroot, NULL, NULL);
}

static void
print_autonuma_text(const VnAutonumaView *v)
{
    g_autofree gchar *text = NULL;

    if (!v)
        return;
    text = vn_autonuma_to_text(v);
    g_print("\n%s", text);
}

int
vn_cmd_topology(int argc, char **argv)
{
    gboolean json = FALSE;
    g_autofree gchar *svg = NULL;
    g_autofree gchar *state_dir = NULL;
    const GOptionEntry entries[] = {
        { "json", 0, 0, G_OPTION_ARG_NONE, &json, "Print one JSON object", NULL },
        { "svg", 0, 0, G_OPTION_ARG_FILENAME, &svg,
          "Draw the host (nodes, VMs, distances) into an SVG file (- = stdout)", "FILE" },
        { "state-dir", 0, 0, G_OPTION_ARG_FILENAME, &state_dir,
          "With --svg: the ledger whose VMs to draw (default: this host's)", "DIR" },
        { NULL },
    };
    VnSourceOptions source = { 0 };
    g_autoptr(GOptionContext) context =
        vn_cli_context_new("Show the host's NUMA nodes with their CPUs, memory, hugepages and\n"
                           "load, and the distance matrix.",
                           entries, &source);
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnLoad) load = NULL;
    g_autoptr(VnConfig) config = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnAutonumaView) autonuma = NULL;
    int status = VN_EXIT_ERROR;

    if (vn_cli_parse(context, &argc, &argv) &&
        vn_source_load(&source, &t, &load, &config, &error)) {
        if (svg) {
            status = vn_cli_write_topology_svg(&source, t, load, config, state_dir, svg);
            vn_source_options_clear(&source);
            return status;
        }
        autonuma = autonuma_view(&source);
        if (json) {
            g_autoptr(JsonNode) node = vn_topology_to_json(t, load);
            if (autonuma)
                json_object_set_member(json_node_get_object(node), "autonuma",
                                       vn_autonuma_to_json(autonuma, NULL));
            vn_cli_print_json(node);
        } else {
            print_text(t, load, config);
            print_autonuma_text(autonuma);
        }
        status = VN_EXIT_OK;
    } else if (error) {
        vn_cli_fail(error);
    }
    vn_source_options_clear(&source);
    return status;
}
