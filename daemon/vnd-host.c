/* vnd-host.c: GET /v1/host — the topology and load (`vnumactl topology
 * --json`'s shape) plus what is left for VMs on each node and in all, and
 * the NICs serving the running VMs with irqbalance's mode (`vnumactl
 * status --json`'s "nics" and "irqbalance"), and AutoNUMA ("autonuma":
 * `vnumactl status --json`'s, with the rates between vnumad's last two
 * samples). */
#include "vnd.h"

#include "vn-autonuma-report.h"
#include "vn-config-build.h"
#include "vn-irq-json.h"
#include "vn-ledger-domain.h"
#include "vn-topology-json.h"
#include "vn-size.h"

/* Shared vCPUs node i still takes within the overcommit ratio. */
static guint
vcpus_free(const VnTopology *t, const VnLoad *load, const VnPolicy *p, guint i)
{
    guint usable = 0;
    gdouble cap;

    for (guint c = 0; c < t->cpus->len; c++) {
        const VnCpu *cpu = &g_array_index(t->cpus, VnCpu, c);
        if (cpu->node == (gint)i && !vn_bitmap_test(p->reserved_cpus, cpu->os_id) &&
            !vn_bitmap_test(load->dedicated_cpus, cpu->os_id))
            usable++;
    }
    cap = usable * p->cpu_overcommit;
    return cap > load->nodes[i].committed_vcpus ? (guint)cap - load->nodes[i].committed_vcpus : 0;
}

static void
add_capacity(JsonObject *root, const VnTopology *t, const VnLoad *load, const VnPolicy *p)
{
    JsonArray *nodes = json_object_get_array_member(root, "nodes");
    g_autoptr(JsonObject) cap = json_object_new();
    guint64 free_total = 0, free_max = 0;
    guint vcpus_total = 0, vcpus_max = 0;

    for (guint i = 0; i < t->n_nodes; i++) {
        JsonObject *n = json_array_get_object_element(nodes, i);
        guint64 f = vn_policy_usable_memory_kib(p, t, i, load->nodes[i].committed_memory_kib);
        guint v = vcpus_free(t, load, p, i);
        json_object_set_int_member(n, "free_for_vms_mib", (gint64)vn_size_kib_to_mib(f));
        json_object_set_int_member(n, "vcpus_free", v);
        free_total += f;
        free_max = MAX(free_max, f);
        vcpus_total += v;
        vcpus_max = MAX(vcpus_max, v);
    }
    json_object_set_int_member(cap, "node_count", t->n_nodes);
    json_object_set_int_member(cap, "cpu_count", t->cpus->len);
    json_object_set_int_member(cap, "free_for_vms_mib", (gint64)vn_size_kib_to_mib(free_total));
    json_object_set_int_member(cap, "vcpus_free", vcpus_total);
    /* the biggest VM this host takes on one node (memory and vCPUs need
     * not be on the same node: each is a bound, not a promise) */
    json_object_set_int_member(cap, "largest_single_node_free_mib",
                               (gint64)vn_size_kib_to_mib(free_max));
    json_object_set_int_member(cap, "largest_single_node_vcpus_free", vcpus_max);
    json_object_set_object_member(root, "capacity", g_steal_pointer(&cap));
}

/* "irqbalance" and "nics"; an empty "nics" when they cannot be read
 * (the ledger: the rest of the answer says so). */
static void
add_nics(VndDaemon *d, JsonObject *root)
{
    g_autoptr(GError) error = NULL;
    const GArray *status = NULL;
    const VnIrqView *v = vnd_irq_current(d, &status, &error);
    g_autoptr(JsonBuilder) b = NULL;
    g_autoptr(JsonNode) built = NULL;
    JsonObject *o;

    if (!v) {
        g_debug("host: NICs not read: %s", error->message);
        json_object_set_array_member(root, "nics", json_array_new());
        return;
    }
    b = json_builder_new();
    json_builder_begin_object(b);
    vn_irq_json_add_status(b, v, status);
    json_builder_end_object(b);
    built = json_builder_get_root(b);
    o = json_node_get_object(built);
    json_object_set_member(root, "irqbalance", json_object_dup_member(o, "irqbalance"));
    json_object_set_member(root, "nics", json_object_dup_member(o, "nics"));
}

/* "autonuma", when /proc is this topology's (live host or --sysroot). */
static void
add_autonuma(VndDaemon *d, JsonObject *root)
{
    JsonNode *n = vnd_autonuma_host_json(d);

    if (n)
        json_object_set_member(root, "autonuma", n);
}

gboolean
vnd_handle_host(VndDaemon *d, SoupServerMessage *msg, const gchar *arg, GError **error)
{
    const VnTopology *t = vnd_state_topology(d->state);
    const VnConfig *c = vnd_state_config(d->state);
    const VnLoad *load = vnd_state_load(d->state, error);
    g_autoptr(JsonNode) node = NULL;
    JsonObject *root;

    if (!load)
        return FALSE;
    node = vn_topology_to_json(t, load);
    root = json_node_get_object(node);
    add_capacity(root, t, load, c->policy);
    json_object_set_string_member(root, "memory_mode", vn_memory_mode_to_string(c->memory_mode));
    json_object_set_string_member(root, "version", VNUMA_VERSION);
    json_object_set_int_member(root, "generation", (gint64)vnd_state_generation(d->state));
    add_nics(d, root);
    add_autonuma(d, root);
    vnd_reply_json(msg, SOUP_STATUS_OK, node);
    return TRUE;
}
