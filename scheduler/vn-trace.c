/* vn-trace.c: the trace value. */
#include "vn-trace.h"

static void
vm_clear(gpointer p)
{
    VnTraceVm *vm = p;
    g_free(vm->name);
}

VnTrace *
vn_trace_new(void)
{
    VnTrace *t = g_new0(VnTrace, 1);

    t->vms = g_array_new(FALSE, TRUE, sizeof(VnTraceVm));
    g_array_set_clear_func(t->vms, vm_clear);
    return t;
}

void
vn_trace_free(VnTrace *t)
{
    if (!t)
        return;
    g_array_unref(t->vms);
    g_free(t);
}

void
vn_trace_add(VnTrace *t, const gchar *name, gdouble time_s, guint vcpus, guint64 memory_kib,
             gdouble duration_s)
{
    VnTraceVm vm = {
        .name = g_strdup(name),
        .time_s = time_s,
        .vcpus = vcpus,
        .memory_kib = memory_kib,
        .duration_s = duration_s,
    };

    g_array_append_val(t->vms, vm);
}

VnTrace *
vn_trace_subset(const VnTrace *t, const gboolean *keep)
{
    VnTrace *r = vn_trace_new();

    for (guint i = 0; i < t->vms->len; i++) {
        const VnTraceVm *vm = &g_array_index(t->vms, VnTraceVm, i);
        if (keep[i])
            vn_trace_add(r, vm->name, vm->time_s, vm->vcpus, vm->memory_kib, vm->duration_s);
    }
    return r;
}
