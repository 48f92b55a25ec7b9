/* vnd-metrics.c: GET /metrics, Prometheus text format 0.0.4.
 *
 * Counters live here (requests by route and status, reservations, config
 * reloads, connections and the limits that refused requests, the
 * plan-latency histogram); gauges are read when scraped
 * (committed and measured load per node from the current load, locality
 * per VM from numa_maps), so a scrape always shows the present. */
#include "vnd.h"

#include <math.h>
#include "vn-host-load.h"
#include "vn-ledger.h"

/* Plan latency buckets, seconds (the target is p99 <= 5 ms). */
static const gdouble buckets[] = {
    0.0001, 0.00025, 0.0005, 0.001, 0.0025, 0.005, 0.01, 0.025, 0.1, 1.0,
};
#define N_BUCKETS G_N_ELEMENTS(buckets)

static const gchar *const conn_events[] = { "accepted", "rejected", "idle", "request", NULL };
static const gchar *const limits[] = {
    "request_line", "head", "header_fields", "content_length", "body", NULL,
};
G_STATIC_ASSERT(G_N_ELEMENTS(conn_events) == VND_CONN_EVENT_MAX + 1);
G_STATIC_ASSERT(G_N_ELEMENTS(limits) == VND_LIMIT_MAX + 1);

struct _VndMetrics {
    GHashTable *requests;     /* "route\tstatus" -> guint64* */
    GHashTable *reservations; /* event -> guint64* */
    guint64 plan_bucket[N_BUCKETS];
    guint64 plan_count;
    guint64 moves;
    guint64 resteered, repair_failures;
    guint64 irq_repaired, irq_failures;
    guint64 reapplied, reapply_failures;
    guint64 reloads_ok, reloads_failed;
    guint64 connections[VND_CONN_EVENT_MAX];
    guint64 refused[VND_LIMIT_MAX];
    gboolean last_reload_ok; /* TRUE until a reload fails */
    gdouble plan_sum;
};

VndMetrics *
vnd_metrics_new(void)
{
    VndMetrics *m = g_new0(VndMetrics, 1);

    m->requests = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    m->reservations = g_hash_table_new_full(g_str_hash, g_str_equal, g_free, g_free);
    m->last_reload_ok = TRUE;
    return m;
}

void
vnd_metrics_free(VndMetrics *m)
{
    if (!m)
        return;
    g_hash_table_unref(m->requests);
    g_hash_table_unref(m->reservations);
    g_free(m);
}

static void
bump(GHashTable *h, const gchar *key)
{
    guint64 *v = g_hash_table_lookup(h, key);

    if (!v) {
        v = g_new0(guint64, 1);
        g_hash_table_insert(h, g_strdup(key), v);
    }
    (*v)++;
}

void
vnd_metrics_count_request(VndMetrics *m, const gchar *route, guint status)
{
    gchar key[128];

    g_snprintf(key, sizeof(key), "%s\t%u", route, status);
    bump(m->requests, key);
}

void
vnd_metrics_count_reservation(VndMetrics *m, const gchar *event)
{
    bump(m->reservations, event);
}

void
vnd_metrics_count_moves(VndMetrics *m, guint applied)
{
    m->moves += applied;
}

void
vnd_metrics_count_resteered(VndMetrics *m, guint resteered, guint failed)
{
    m->resteered += resteered;
    m->repair_failures += failed;
}

void
vnd_metrics_count_reapply(VndMetrics *m, gboolean ok)
{
    if (ok)
        m->reapplied++;
    else
        m->reapply_failures++;
}

void
vnd_metrics_count_irq(VndMetrics *m, guint repaired, guint failed)
{
    m->irq_repaired += repaired;
    m->irq_failures += failed;
}

void
vnd_metrics_count_reload(VndMetrics *m, gboolean ok)
{
    if (ok)
        m->reloads_ok++;
    else
        m->reloads_failed++;
    m->last_reload_ok = ok;
}

void
vnd_metrics_count_connection(VndMetrics *m, VndConnEvent e)
{
    g_return_if_fail(e < VND_CONN_EVENT_MAX);
    m->connections[e]++;
}

void
vnd_metrics_count_refused(VndMetrics *m, VndLimit limit)
{
    g_return_if_fail(limit < VND_LIMIT_MAX);
    m->refused[limit]++;
}

void
vnd_metrics_observe_plan(VndMetrics *m, gdouble seconds)
{
    for (guint i = 0; i < N_BUCKETS; i++)
        if (seconds <= buckets[i])
            m->plan_bucket[i]++;
    m->plan_count++;
    m->plan_sum += seconds;
}

/* ---- formatting ---------------------------------------------------------- */

static void
header(GString *out, const gchar *name, const gchar *type, const gchar *help)
{
    g_string_append_printf(out, "# HELP %s %s\n# TYPE %s %s\n", name, help, name, type);
}

/* A counter without labels. */
static void
counter(GString *out, const gchar *name, const gchar *help, guint64 value)
{
    header(out, name, "counter", help);
    g_string_append_printf(out, "%s %" G_GUINT64_FORMAT "\n", name, value);
}

/* Label values: backslash, quote and newline escaped. */
static gchar *
label(const gchar *v)
{
    g_autoptr(GString) s = g_string_new(NULL);

    for (const gchar *p = v; *p; p++) {
        if (*p == '\\' || *p == '"')
            g_string_append_c(s, '\\');
        if (*p == '\n')
            g_string_append(s, "\\n");
        else
            g_string_append_c(s, *p);
    }
    return g_string_free(g_steal_pointer(&s), FALSE);
}

static gint
cmp_keys(gconstpointer a, gconstpointer b)
{
    return g_strcmp0(*(const gchar *const *)a, *(const gchar *const *)b);
}

static void
format_requests(GString *out, VndMetrics *m)
{
    g_autofree gpointer *keys = g_hash_table_get_keys_as_array(m->requests, NULL);
    guint n = g_hash_table_size(m->requests);

    header(out, "vnuma_api_requests_total", "counter", "API requests by route and HTTP status.");
    qsort(keys, n, sizeof(gpointer), cmp_keys);
    for (guint i = 0; i < n; i++) {
        g_auto(GStrv) parts = g_strsplit(keys[i], "\t", 2);
        guint64 *v = g_hash_table_lookup(m->requests, keys[i]);
        g_string_append_printf(
            out, "vnuma_api_requests_total{endpoint=\"%s\",code=\"%s\"} %" G_GUINT64_FORMAT "\n",
            parts[0], parts[1], *v);
    }
}

static void
format_connections(GString *out, VndDaemon *d)
{
    const guint64 *n = d->metrics->connections;

    header(out, "vnuma_api_connections", "gauge", "Client connections open now.");
    g_string_append_printf(out, "vnuma_api_connections %u\n", vnd_conns_open(d));
    header(out, "vnuma_api_connections_total", "counter", "Client connections accepted.");
    g_string_append_printf(out, "vnuma_api_connections_total %" G_GUINT64_FORMAT "\n",
                           n[VND_CONN_ACCEPTED]);
    header(out, "vnuma_api_connections_rejected_total", "counter",
           "Connections answered 503 and closed: [api] max_connections were open.");
    g_string_append_printf(out, "vnuma_api_connections_rejected_total %" G_GUINT64_FORMAT "\n",
                           n[VND_CONN_REJECTED]);
    header(out, "vnuma_api_timeouts_total", "counter",
           "Connections closed by [api] idle_timeout: idle between requests, or a request not "
           "received in time (408).");
    for (VndConnEvent e = VND_CONN_TIMEOUT_IDLE; e <= VND_CONN_TIMEOUT_REQUEST; e++)
        g_string_append_printf(out,
                               "vnuma_api_timeouts_total{phase=\"%s\"} %" G_GUINT64_FORMAT "\n",
                               conn_events[e], n[e]);
    header(out, "vnuma_api_refused_total", "counter",
           "Requests refused by a limit before their body was read (414, 431, 400, 413).");
    for (VndLimit l = 0; l < VND_LIMIT_MAX; l++)
        g_string_append_printf(out, "vnuma_api_refused_total{limit=\"%s\"} %" G_GUINT64_FORMAT "\n",
                               limits[l], d->metrics->refused[l]);
}

static void
format_histogram(GString *out, VndMetrics *m)
{
    header(out, "vnuma_plan_duration_seconds", "histogram",
           "Time to answer a planning request (plan, fit, reservation).");
    for (guint i = 0; i < N_BUCKETS; i++)
        g_string_append_printf(
            out, "vnuma_plan_duration_seconds_bucket{le=\"%g\"} %" G_GUINT64_FORMAT "\n",
            buckets[i], m->plan_bucket[i]);
    g_string_append_printf(
        out, "vnuma_plan_duration_seconds_bucket{le=\"+Inf\"} %" G_GUINT64_FORMAT "\n",
        m->plan_count);
    g_string_append_printf(out, "vnuma_plan_duration_seconds_sum %.6f\n", m->plan_sum);
    g_string_append_printf(out, "vnuma_plan_duration_seconds_count %" G_GUINT64_FORMAT "\n",
                           m->plan_count);
}

static void
format_reservations(GString *out, VndDaemon *d)
{
    static const gchar *const events[] = { "created", "deleted", "expired", NULL };
    g_autoptr(VnLedger) snap = vnd_ledger_snapshot(vnd_state_config(d->state)->state_dir, NULL);
    gint64 now = g_get_real_time() / G_USEC_PER_SEC;
    guint held = 0;

    for (guint i = 0; snap && i < vn_ledger_records(snap)->len; i++) {
        const VnLedgerRecord *r = g_ptr_array_index(vn_ledger_records(snap), i);
        held += g_str_has_prefix(r->uuid, VND_RESERVATION_PREFIX) && now < r->expires;
    }
    header(out, "vnuma_reservations", "gauge", "Reservations holding capacity now.");
    g_string_append_printf(out, "vnuma_reservations %u\n", held);
    header(out, "vnuma_reservation_events_total", "counter",
           "Reservations created, deleted, lapsed.");
    for (guint i = 0; events[i]; i++) {
        guint64 *v = g_hash_table_lookup(d->metrics->reservations, events[i]);
        g_string_append_printf(
            out, "vnuma_reservation_events_total{event=\"%s\"} %" G_GUINT64_FORMAT "\n", events[i],
            v ? *v : 0);
    }
}

static void
format_reloads(GString *out, VndMetrics *m)
{
    header(out, "vnuma_config_reloads_total", "counter",
           "vnuma.conf reloads on SIGHUP, by result.");
    g_string_append_printf(out, "vnuma_config_reloads_total{result=\"ok\"} %" G_GUINT64_FORMAT "\n",
                           m->reloads_ok);
    g_string_append_printf(out,
                           "vnuma_config_reloads_total{result=\"failed\"} %" G_GUINT64_FORMAT "\n",
                           m->reloads_failed);
    header(out, "vnuma_config_last_reload_successful", "gauge",
           "0 when the last reload failed (the config before it stays in effect), else 1.");
    g_string_append_printf(out, "vnuma_config_last_reload_successful %d\n",
                           m->last_reload_ok ? 1 : 0);
}

static void
format_nodes(GString *out, VndDaemon *d, const VnLoad *load)
{
    const VnTopology *t = vnd_state_topology(d->state);

    header(out, "vnuma_node_committed_vcpus", "gauge", "Shared vCPUs placed on the node.");
    for (guint i = 0; i < t->n_nodes; i++)
        g_string_append_printf(out, "vnuma_node_committed_vcpus{node=\"%u\"} %u\n",
                               t->nodes[i].os_id, load->nodes[i].committed_vcpus);
    header(out, "vnuma_node_committed_memory_bytes", "gauge",
           "Guest memory and overhead placed on the node.");
    for (guint i = 0; i < t->n_nodes; i++)
        g_string_append_printf(
            out, "vnuma_node_committed_memory_bytes{node=\"%u\"} %" G_GUINT64_FORMAT "\n",
            t->nodes[i].os_id, load->nodes[i].committed_memory_kib * 1024);
    header(out, "vnuma_node_memory_bytes", "gauge", "Memory of the node.");
    for (guint i = 0; i < t->n_nodes; i++)
        g_string_append_printf(out, "vnuma_node_memory_bytes{node=\"%u\"} %" G_GUINT64_FORMAT "\n",
                               t->nodes[i].os_id, t->nodes[i].mem_total_kib * 1024);
    header(out, "vnuma_node_cpu_busy_ratio", "gauge",
           "Measured CPU busy of the node, 0..1 (absent: unknown).");
    for (guint i = 0; i < t->n_nodes; i++)
        if (load->nodes[i].cpu_busy >= 0)
            g_string_append_printf(out, "vnuma_node_cpu_busy_ratio{node=\"%u\"} %.4f\n",
                                   t->nodes[i].os_id, load->nodes[i].cpu_busy);
}

/* The kernel's numastat counters (pages) of every node, when /sys is this
 * host's; a node whose file cannot be read is left out. */
static void
format_numastat(GString *out, VndDaemon *d)
{
    static const struct {
        const gchar *name;
        gsize offset;
    } counters[] = {
        { "numa_hit", G_STRUCT_OFFSET(VnNumastat, numa_hit) },
        { "numa_miss", G_STRUCT_OFFSET(VnNumastat, numa_miss) },
        { "numa_foreign", G_STRUCT_OFFSET(VnNumastat, numa_foreign) },
        { "local_node", G_STRUCT_OFFSET(VnNumastat, local_node) },
        { "other_node", G_STRUCT_OFFSET(VnNumastat, other_node) },
    };
    const VnTopology *t = vnd_state_topology(d->state);
    g_autofree VnNumastat *stats = g_new0(VnNumastat, t->n_nodes);
    g_autofree gboolean *have = g_new0(gboolean, t->n_nodes);

    if (!vnd_state_measured(d->state))
        return;
    for (guint i = 0; i < t->n_nodes; i++)
        have[i] =
            vn_host_read_numastat(vnd_state_sysroot(d->state), t->nodes[i].os_id, &stats[i], NULL);
    header(out, "vnuma_node_numastat_pages_total", "counter",
           "The kernel's per-node allocation counters (numastat), in pages.");
    for (gsize c = 0; c < G_N_ELEMENTS(counters); c++)
        for (guint i = 0; i < t->n_nodes; i++)
            if (have[i])
                g_string_append_printf(
                    out,
                    "vnuma_node_numastat_pages_total{node=\"%u\",counter=\"%s\"} %" G_GUINT64_FORMAT
                    "\n",
                    t->nodes[i].os_id, counters[c].name,
                    G_STRUCT_MEMBER(guint64, &stats[i], counters[c].offset));
}

static void
format_locality(GString *out, VndDaemon *d)
{
    g_autoptr(JsonNode) list = vnd_domains_to_json(d, NULL);
    JsonArray *a = list ? json_node_get_array(list) : NULL;

    header(out, "vnuma_domain_locality_ratio", "gauge",
           "Share of the VM's memory on the nodes of its vCPUs, 0..1 (measured VMs only).");
    for (guint i = 0; a && i < json_array_get_length(a); i++) {
        JsonObject *o = json_array_get_object_element(a, i);
        JsonNode *loc = json_object_get_member(o, "locality_percent");
        g_autofree gchar *name = label(json_object_get_string_member(o, "name"));
        if (loc && !json_node_is_null(loc))
            g_string_append_printf(out, "vnuma_domain_locality_ratio{domain=\"%s\"} %.4f\n", name,
                                   json_node_get_int(loc) / 100.0);
    }
}

/* One NIC's vectors by state: on the plan, off it, left by the kernel;
 * all of them "unplanned" when the plan leaves the NIC alone. */
static void
format_nic_irqs(GString *out, const gchar *dev, const gchar *node, const VnIrqNicStatus *s)
{
    const struct {
        const gchar *state;
        guint n;
    } rows[] = {
        { "in-place", s->drift.irqs - s->drift.irqs_off - s->irqs_left },
        { "off-plan", s->drift.irqs_off },
        { "left", s->irqs_left },
    };

    if (s->state == VN_IRQ_NIC_UNPLANNED) {
        g_string_append_printf(out,
                               "vnuma_nic_irqs{device=\"%s\",node=\"%s\",state=\"unplanned\"} %u\n",
                               dev, node, s->drift.irqs);
        return;
    }
    for (gsize k = 0; k < G_N_ELEMENTS(rows); k++)
        g_string_append_printf(out, "vnuma_nic_irqs{device=\"%s\",node=\"%s\",state=\"%s\"} %u\n",
                               dev, node, rows[k].state, rows[k].n);
}

static void
format_nic_masks(GString *out, const gchar *dev, const gchar *direction, guint all, guint off)
{
    g_string_append_printf(
        out, "vnuma_nic_queue_masks{device=\"%s\",direction=\"%s\",state=\"in-place\"} %u\n", dev,
        direction, all - off);
    g_string_append_printf(
        out, "vnuma_nic_queue_masks{device=\"%s\",direction=\"%s\",state=\"off-plan\"} %u\n", dev,
        direction, off);
}

/* The NICs serving the running VMs against their interrupt plan, and
 * irqbalance's mode, as `vnumactl status` reads them: the view the last
 * sample read (vnd_irq_current(), at most one sample old). */
static void
format_nics(GString *out, VndDaemon *d)
{
    g_autoptr(GError) error = NULL;
    const GArray *status = NULL;
    const VnIrqView *v = vnd_irq_current(d, &status, &error);
    g_autoptr(GString) irqs = g_string_new(NULL);
    g_autoptr(GString) masks = g_string_new(NULL);
    g_autoptr(GString) steered = g_string_new(NULL);

    if (!v) {
        g_debug("metrics: NICs not read: %s", error->message);
        return;
    }
    /* one pass, each family's samples kept together for its header */
    for (guint i = 0; i < status->len; i++) {
        const VnIrqNicStatus *s = &g_array_index(status, VnIrqNicStatus, i);
        g_autofree gchar *dev = label(s->plan->name);
        g_autofree gchar *node = g_strdup_printf("%d", s->nic->node);

        format_nic_irqs(irqs, dev, node, s);
        format_nic_masks(masks, dev, "rx", s->drift.rps, s->drift.rps_off);
        format_nic_masks(masks, dev, "tx", s->drift.xps, s->drift.xps_off);
        g_string_append_printf(steered, "vnuma_nic_steered{device=\"%s\",node=\"%s\"} %d\n", dev,
                               node, s->steered ? 1 : 0);
    }
    header(out, "vnuma_nic_irqs", "gauge",
           "Interrupt vectors of each NIC serving a running VM: in-place (where vnuma's plan puts "
           "them), off-plan, left (the kernel will not move them), unplanned.");
    g_string_append(out, irqs->str);
    header(out, "vnuma_nic_queue_masks", "gauge",
           "RPS (rx) and XPS (tx) queue masks of each NIC serving a running VM, in place or off "
           "vnuma's plan.");
    g_string_append(out, masks->str);
    header(out, "vnuma_nic_steered", "gauge",
           "1 when vnuma placed the NIC's interrupts (listed for irqbalance's policy script), "
           "else 0.");
    g_string_append(out, steered->str);
    header(out, "vnuma_irqbalance_mode", "gauge",
           "1 for irqbalance's mode now (off, policy-script, banned-cpus, uncoordinated), 0 for "
           "the others.");
    for (guint m = 0; m < VN_IRQBALANCE_MODE_MAX; m++)
        g_string_append_printf(out, "vnuma_irqbalance_mode{mode=\"%s\"} %d\n",
                               vn_irqbalance_mode_to_string(m), v->irqbalance->mode == m ? 1 : 0);
}

/* AutoNUMA: the mode as a gauge, the kernel's counters since boot as
 * counters (Prometheus' rate() gives what GET /v1/host's rates_per_s
 * says), when /proc is this topology's and they can be read. */
static void
format_autonuma(GString *out, VndDaemon *d)
{
    static const struct {
        const gchar *name;
        gsize offset;
        const gchar *help;
    } counters[] = {
        { "vnuma_numa_hint_faults_total", G_STRUCT_OFFSET(VnAutonumaCounters, hint_faults),
          "NUMA balancing hint faults on this host since boot (numa_hint_faults)." },
        { "vnuma_numa_hint_faults_local_total",
          G_STRUCT_OFFSET(VnAutonumaCounters, hint_faults_local),
          "Hint faults on pages already local (numa_hint_faults_local)." },
        { "vnuma_numa_pages_migrated_total", G_STRUCT_OFFSET(VnAutonumaCounters, pages_migrated),
          "Pages NUMA balancing moved between nodes (numa_pages_migrated)." },
        { "vnuma_numa_pages_promoted_total", G_STRUCT_OFFSET(VnAutonumaCounters, promoted),
          "Pages promoted from a slower memory tier (pgpromote_success)." },
        { "vnuma_numa_pages_demoted_total", G_STRUCT_OFFSET(VnAutonumaCounters, demoted),
          "Pages demoted to a slower memory tier (pgdemote_*)." },
    };
    const gchar *sysroot = vnd_state_sysroot(d->state);
    VnAutonumaCounters c;
    gint mode;

    if (!vnd_state_measured(d->state))
        return;
    if (vn_autonuma_mode_read(sysroot, &mode, NULL)) {
        header(out, "vnuma_numa_balancing_mode", "gauge",
               "kernel.numa_balancing: 0 off, 1 normal, 2 tiering promotion, 3 both.");
        g_string_append_printf(out, "vnuma_numa_balancing_mode %d\n", mode);
    }
    if (!vn_autonuma_vmstat_read(sysroot, &c, NULL))
        return;
    for (gsize k = 0; k < G_N_ELEMENTS(counters); k++) {
        /* a kernel without tiering counters has no promoted/demoted */
        if (k >= 3 && !c.tiering)
            continue;
        counter(out, counters[k].name, counters[k].help,
                G_STRUCT_MEMBER(guint64, &c, counters[k].offset));
    }
}

gboolean
vnd_handle_metrics(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    const VnLoad *load = vnd_state_load(d->state, error);
    g_autoptr(GString) out = g_string_new(NULL);
    gsize len;

    if (!load)
        return FALSE;
    format_nodes(out, d, load);
    format_numastat(out, d);
    format_locality(out, d);
    format_reservations(out, d);
    format_nics(out, d);
    format_autonuma(out, d);
    counter(out, "vnuma_rebalance_moves_total", "Live moves applied by the rebalancer.",
            d->metrics->moves);
    counter(out, "vnuma_dataplane_resteered_total",
            "Data-path threads and processes (vhost workers, [dataplane]) put back on their VM's "
            "CPUs after drifting.",
            d->metrics->resteered);
    counter(out, "vnuma_dataplane_repair_failures_total",
            "Data-path steps the drift check could not check or re-steer, counted on every sample "
            "they fail.",
            d->metrics->repair_failures);
    counter(out, "vnuma_placement_reapplied_total",
            "Placements the hook left unapplied (needs_apply) applied live by vnumad.",
            d->metrics->reapplied);
    counter(out, "vnuma_placement_reapply_failures_total",
            "Re-applies of such placements that failed, counted on every try.",
            d->metrics->reapply_failures);
    header(out, "vnuma_placement_reapply_given_up", "gauge",
           "Records with needs_apply vnumad left alone after failing to apply them in a row, "
           "until they change.");
    g_string_append_printf(out, "vnuma_placement_reapply_given_up %u\n",
                           vnd_reapply_given_up(d->reapply));
    counter(out, "vnuma_irq_repaired_total",
            "NIC interrupt affinities and RPS/XPS masks put back on their plan after drifting "
            "([rebalance] irq_steering).",
            d->metrics->irq_repaired);
    counter(out, "vnuma_irq_apply_failures_total",
            "NICs whose interrupt plan could not be written (nothing of that NIC changed), "
            "counted on every try.",
            d->metrics->irq_failures);
    format_reloads(out, d->metrics);
    format_connections(out, d);
    format_requests(out, d->metrics);
    format_histogram(out, d->metrics);
    len = out->len;
    soup_server_message_set_status(msg, SOUP_STATUS_OK, NULL);
    soup_server_message_set_response(msg, "text/plain; version=0.0.4; charset=utf-8",
                                     SOUP_MEMORY_TAKE, g_string_free(g_steal_pointer(&out), FALSE),
                                     len);
    return TRUE;
}
