/* vnuma-hook: libvirt's qemu hook, installed as
 * /etc/libvirt/hooks/qemu.d/vnuma.
 *
 *   vnuma-hook <vm> <op> <sub-op> <extra>     (domain XML on stdin)
 *
 * Exit status: 0 in every case but two, both in `prepare begin`: the
 * configured policy refuses the start (on_conflict = refuse), or an
 * internal error happens with [hook] strict = true.  Then one line on
 * stderr says why; libvirt shows it to whoever started the VM.  Unknown
 * phases and bad input are logged and exit 0 at once (fail-open): a bug
 * here must never keep a VM from starting.  stdout stays empty except for
 * the migrate/restore filters when the XML must change for this host
 * (empty = unchanged, which is also what every error gives).
 * Environment (tests, or a non-default set-up): VNUMA_CONFIG,
 * VNUMA_STATE_DIR, VNUMA_TOPOLOGY, VNUMA_LIBVIRT_RUN_DIR, VNUMA_VNUMACTL. */
#include <stdio.h>
#include <unistd.h>
#include "vn-hook.h"

static gboolean
run_phase(VnHook *h, GError **error)
{
    switch (h->phase) {
    case VN_HOOK_PHASE_PREPARE:
        return vn_hook_prepare(h, error);
    case VN_HOOK_PHASE_STARTED:
        return vn_hook_started(h, error);
    case VN_HOOK_PHASE_STOPPED:
    case VN_HOOK_PHASE_RELEASE:
        return vn_hook_release(h, error);
    case VN_HOOK_PHASE_RECONNECT:
        return vn_hook_reconnect(h, error);
    case VN_HOOK_PHASE_MIGRATE:
    case VN_HOOK_PHASE_RESTORE:
        return vn_hook_filter(h, error);
    default:
        return TRUE;
    }
}

/* Exit status after an internal error: only a strict prepare vetoes. */
static int
fail(VnHook *h, const GError *error)
{
    vn_hook_decide(h, "error", h->nodes, "%s", error->message);
    vn_hook_log_decision(h);
    if (h->phase == VN_HOOK_PHASE_PREPARE && !h->host_tried)
        vn_hook_load_host(h, NULL); /* to learn whether strict is set */
    if (h->phase == VN_HOOK_PHASE_PREPARE && h->config && h->config->hook_strict) {
        fprintf(stderr, "vnuma: cannot check the placement of %s: %s (strict = true)\n", h->vm,
                error->message);
        return 1;
    }
    return 0;
}

int
main(int argc, char **argv)
{
    g_log_set_writer_func(vn_hook_log_writer, NULL, NULL);
    VnHookPhase phase;
    if (argc != 5 || !vn_hook_phase_from_args(argv[2], argv[3], &phase)) {
        g_autoptr(VnHook) drain = vn_hook_new("-", VN_HOOK_PHASE_START);
        vn_hook_read_input(drain, STDIN_FILENO, NULL);
        g_log_structured(G_LOG_DOMAIN, G_LOG_LEVEL_INFO, "MESSAGE",
                         "ignored: unknown invocation (%d arguments, op %s %s)", argc - 1,
                         argc > 2 ? argv[2] : "-", argc > 3 ? argv[3] : "-");
        return 0;
    }
    g_autoptr(VnHook) h = vn_hook_new(argv[1], phase);
    g_autoptr(GError) error = NULL;
    if (!vn_hook_read_input(h, STDIN_FILENO, &error)) {
        if (phase == VN_HOOK_PHASE_PREPARE)
            return fail(h, error);
        g_clear_error(&error); /* the other phases fall back to the name */
    }
    if (phase == VN_HOOK_PHASE_START)
        return 0; /* nothing to do between prepare and started */
    if (!run_phase(h, &error))
        return fail(h, error);
    vn_hook_log_decision(h);
    if (h->filtered)
        fputs(h->filtered, stdout);
    if (h->refusal) {
        fprintf(stderr, "%s\n", h->refusal);
        return 1;
    }
    return 0;
}
