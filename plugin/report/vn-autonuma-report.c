/* vn-autonuma-report.c: the host's AutoNUMA mode and counters, and each
 * placed VM's memory mode and NUMA balancing figures. */
#include "vn-autonuma-report.h"

#include <string.h>
#include "vn-json-build.h"
#include "vn-ledger-domain.h"
#include "vn-numa-maps.h"

static void
vm_view_free(VnAutonumaVmView *vm)
{
    g_free(vm->mode_unknown);
    g_free(vm->not_measured);
    g_free(vm);
}

void
vn_autonuma_view_free(VnAutonumaView *v)
{
    if (!v)
        return;
    g_free(v->mode_unknown);
    g_free(v->counters_unknown);
    g_ptr_array_unref(v->vms);
    g_array_unref(v->inputs);
    g_free(v->warning);
    g_free(v);
}

/* Reservations hold capacity for a VM not started yet: not a VM. */
static gboolean
is_vm(const VnLedgerRecord *r)
{
    return r->expires == 0 && !g_str_has_prefix(r->uuid, "reservation:");
}

static guint
count_nodes(const VnLedgerRecord *r)
{
    g_autoptr(GHashTable) nodes = g_hash_table_new(NULL, NULL);

    for (guint c = 0; c < r->cells->len; c++)
        g_hash_table_add(nodes,
                         GUINT_TO_POINTER(g_array_index(r->cells, VnLedgerCell, c).node_os_id + 1));
    return g_hash_table_size(nodes);
}

/* The memory mode vnuma recorded in the VM's status XML. */
static void
read_mode(const gchar *sysroot, const gchar *run_dir, VnAutonumaVmView *view, VnAutonumaVm *in)
{
    g_autofree gchar *file = g_strconcat(view->record->name, ".xml", NULL);
    g_autofree gchar *path =
        g_build_filename(sysroot && *sysroot ? sysroot : "/", run_dir, file, NULL);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnDomain) d = NULL;

    /* GLib's file errors quote paths with characters the C locale cannot
     * show; the usual case (not running here) gets a plain note */
    if (strchr(view->record->name, '/'))
        view->mode_unknown = g_strdup("a domain name with '/'");
    else if (!g_file_test(path, G_FILE_TEST_EXISTS))
        view->mode_unknown = g_strdup_printf("no status XML %s/%s", run_dir, file);
    else if (!(d = vn_ledger_load_status_xml(path, &error)))
        view->mode_unknown = g_strdup(error->message);
    else if (!d->meta || !d->meta->has_placement)
        view->mode_unknown = g_strdup_printf("%s: no placement recorded by vnuma", path);
    else if (d->meta->memory_mode != VN_MEMORY_MODE_RESTRICTIVE &&
             d->meta->memory_mode != VN_MEMORY_MODE_STRICT)
        view->mode_unknown = g_strdup_printf("%s: memory mode %s", path,
                                             vn_memory_mode_to_string(d->meta->memory_mode));
    in->mode_known = view->mode_unknown == NULL;
    in->mode = in->mode_known ? d->meta->memory_mode : VN_MEMORY_MODE_AUTO;
}

static void
read_task(const gchar *sysroot, const gchar *run_dir, VnAutonumaVmView *view)
{
    g_autoptr(GError) error = NULL;
    gint64 pid;

    if (!vn_numa_maps_domain_pid(sysroot, run_dir, view->record->name, &pid, &error)) {
        view->not_measured =
            g_strdup_printf("no QEMU pid file %s/%s.pid", run_dir, view->record->name);
        return;
    }
    if (!vn_autonuma_task_read(sysroot, pid, &view->task, &error)) {
        view->not_measured = g_strdup_printf("pid %" G_GINT64_FORMAT ": %s", pid, error->message);
        return;
    }
    view->measured = TRUE;
}

static void
read_host(const gchar *sysroot, VnAutonumaView *v)
{
    g_autoptr(GError) error = NULL;

    if (!vn_autonuma_mode_read(sysroot, &v->mode, &error)) {
        v->mode = -1;
        v->mode_unknown = g_strdup(error->message);
        g_clear_error(&error);
    }
    v->counters_known = vn_autonuma_vmstat_read(sysroot, &v->counters, &error);
    if (!v->counters_known)
        v->counters_unknown = g_strdup(error->message);
}

VnAutonumaView *
vn_autonuma_view_new(const gchar *sysroot, const gchar *run_dir, GPtrArray *records)
{
    VnAutonumaView *v = g_new0(VnAutonumaView, 1);

    v->vms = g_ptr_array_new_with_free_func((GDestroyNotify)vm_view_free);
    v->inputs = g_array_new(FALSE, TRUE, sizeof(VnAutonumaVm));
    read_host(sysroot, v);
    for (guint i = 0; records && i < records->len; i++) {
        const VnLedgerRecord *r = records->pdata[i];
        VnAutonumaVmView *view;
        VnAutonumaVm in = { .name = r->name, .n_nodes = count_nodes(r) };

        if (!is_vm(r))
            continue;
        view = g_new0(VnAutonumaVmView, 1);
        view->record = r;
        read_mode(sysroot, run_dir, view, &in);
        read_task(sysroot, run_dir, view);
        g_ptr_array_add(v->vms, view);
        g_array_append_val(v->inputs, in);
    }
    v->with_vms = records != NULL;
    if (records)
        v->warning = vn_autonuma_warning(v->mode, v->inputs);
    return v;
}

static void
add_counters(JsonBuilder *b, const VnAutonumaView *v)
{
    const VnAutonumaCounters *c = &v->counters;

    json_builder_set_member_name(b, "counters");
    if (!v->counters_known) {
        json_builder_add_null_value(b);
        vn_json_add_string(b, "counters_unknown", v->counters_unknown);
        return;
    }
    json_builder_begin_object(b);
    vn_json_add_int(b, "hint_faults", (gint64)c->hint_faults);
    vn_json_add_int(b, "hint_faults_local", (gint64)c->hint_faults_local);
    vn_json_add_int(b, "pages_migrated", (gint64)c->pages_migrated);
    vn_json_add_int(b, "pte_updates", (gint64)c->pte_updates);
    json_builder_set_member_name(b, "promoted");
    c->tiering ? json_builder_add_int_value(b, (gint64)c->promoted)
               : json_builder_add_null_value(b);
    json_builder_set_member_name(b, "demoted");
    c->tiering ? json_builder_add_int_value(b, (gint64)c->demoted) : json_builder_add_null_value(b);
    json_builder_end_object(b);
}

static void
add_rate(JsonBuilder *b, const gchar *name, gdouble v)
{
    json_builder_set_member_name(b, name);
    /* two decimals: per second over a sample interval */
    json_builder_add_double_value(b, (gdouble)(gint64)(v * 100.0 + 0.5) / 100.0);
}

static void
add_rates(JsonBuilder *b, const VnAutonumaRates *r)
{
    json_builder_set_member_name(b, "rates_per_s");
    if (!r) {
        json_builder_add_null_value(b);
        return;
    }
    json_builder_begin_object(b);
    add_rate(b, "hint_faults", r->hint_faults);
    add_rate(b, "hint_faults_local", r->hint_faults_local);
    add_rate(b, "pages_migrated", r->pages_migrated);
    add_rate(b, "promoted", r->promoted);
    add_rate(b, "demoted", r->demoted);
    json_builder_end_object(b);
}

static void
add_vm(JsonBuilder *b, const VnAutonumaVmView *view, const VnAutonumaVm *in)
{
    json_builder_begin_object(b);
    vn_json_add_string(b, "name", view->record->name);
    vn_json_add_string(b, "memory_mode",
                       in->mode_known ? vn_memory_mode_to_string(in->mode) : NULL);
    if (!in->mode_known)
        vn_json_add_string(b, "memory_mode_unknown", view->mode_unknown);
    vn_json_add_int(b, "nodes", in->n_nodes);
    vn_json_add_bool(b, "bound", vn_autonuma_vm_bound(in));
    json_builder_set_member_name(b, "numa_faults");
    view->measured ? json_builder_add_int_value(b, (gint64)view->task.numa_faults)
                   : json_builder_add_null_value(b);
    json_builder_set_member_name(b, "pages_migrated");
    view->measured ? json_builder_add_int_value(b, (gint64)view->task.pages_migrated)
                   : json_builder_add_null_value(b);
    vn_json_add_int(b, "threads", view->task.threads);
    vn_json_add_string(b, "not_measured", view->not_measured);
    json_builder_end_object(b);
}

JsonNode *
vn_autonuma_to_json(const VnAutonumaView *v, const VnAutonumaRates *rates)
{
    g_autoptr(JsonBuilder) b = json_builder_new();

    json_builder_begin_object(b);
    json_builder_set_member_name(b, "numa_balancing");
    if (v->mode < 0) {
        json_builder_add_null_value(b);
        vn_json_add_string(b, "numa_balancing_unknown", v->mode_unknown);
    } else {
        json_builder_add_int_value(b, v->mode);
    }
    vn_json_add_string(b, "mode", vn_autonuma_mode_describe(v->mode));
    add_counters(b, v);
    add_rates(b, rates);
    if (v->with_vms) {
        json_builder_set_member_name(b, "vms");
        json_builder_begin_array(b);
        for (guint i = 0; i < v->vms->len; i++)
            add_vm(b, v->vms->pdata[i], &g_array_index(v->inputs, VnAutonumaVm, i));
        json_builder_end_array(b);
        vn_json_add_string(b, "warning", v->warning);
    }
    json_builder_end_object(b);
    return json_builder_get_root(b);
}

static void
append_host(GString *s, const VnAutonumaView *v)
{
    const VnAutonumaCounters *c = &v->counters;

    if (v->mode < 0)
        g_string_append_printf(s, "AutoNUMA: kernel.numa_balancing unknown: %s\n", v->mode_unknown);
    else
        g_string_append_printf(s, "AutoNUMA: kernel.numa_balancing = %d (%s)\n", v->mode,
                               vn_autonuma_mode_describe(v->mode));
    if (!v->counters_known) {
        g_string_append_printf(s, "counters unknown: %s\n", v->counters_unknown);
        return;
    }
    g_string_append_printf(s,
                           "counters since boot: hint_faults %" G_GUINT64_FORMAT
                           " (local %" G_GUINT64_FORMAT "), pages_migrated %" G_GUINT64_FORMAT
                           ", pte_updates %" G_GUINT64_FORMAT,
                           c->hint_faults, c->hint_faults_local, c->pages_migrated, c->pte_updates);
    if (c->tiering)
        g_string_append_printf(s, ", promoted %" G_GUINT64_FORMAT ", demoted %" G_GUINT64_FORMAT,
                               c->promoted, c->demoted);
    g_string_append(s, "\n");
}

static void
append_vms(GString *s, const VnAutonumaView *v)
{
    g_string_append_printf(s, "%-16s %-12s %5s %-5s %11s %14s\n", "vm", "memory_mode", "nodes",
                           "bound", "numa_faults", "pages_migrated");
    for (guint i = 0; i < v->vms->len; i++) {
        const VnAutonumaVmView *view = v->vms->pdata[i];
        const VnAutonumaVm *in = &g_array_index(v->inputs, VnAutonumaVm, i);
        g_autofree gchar *faults =
            view->measured ? g_strdup_printf("%" G_GUINT64_FORMAT, view->task.numa_faults)
                           : g_strdup("-");
        g_autofree gchar *moved =
            view->measured ? g_strdup_printf("%" G_GUINT64_FORMAT, view->task.pages_migrated)
                           : g_strdup("-");

        g_string_append_printf(s, "%-16s %-12s %5u %-5s %11s %14s\n", view->record->name,
                               in->mode_known ? vn_memory_mode_to_string(in->mode) : "-",
                               in->n_nodes, vn_autonuma_vm_bound(in) ? "yes" : "no", faults, moved);
    }
    if (!v->vms->len)
        g_string_append(s, "(no VM in the ledger)\n");
    for (guint i = 0; i < v->vms->len; i++) {
        const VnAutonumaVmView *view = v->vms->pdata[i];
        if (view->mode_unknown)
            g_string_append_printf(s, "%s: memory mode unknown: %s\n", view->record->name,
                                   view->mode_unknown);
    }
    if (v->warning)
        g_string_append_printf(s, "warning: %s\n", v->warning);
}

gchar *
vn_autonuma_to_text(const VnAutonumaView *v)
{
    GString *s = g_string_new(NULL);

    append_host(s, v);
    if (v->with_vms)
        append_vms(s, v);
    return g_string_free(s, FALSE);
}

gchar *
vn_autonuma_rates_to_text(const VnAutonumaRates *r, gdouble seconds)
{
    return g_strdup_printf("rates over %.1f s: promoted %.2f/s, demoted %.2f/s, hint_faults %.2f/s "
                           "(local %.2f/s), pages_migrated %.2f/s\n",
                           seconds, r->promoted, r->demoted, r->hint_faults, r->hint_faults_local,
                           r->pages_migrated);
}
