/* vn-hook-spawn.c: start the live-apply helper without holding libvirt.
 *
 * libvirt reads the hook's stdout/stderr until EOF and waits for the hook:
 * a child that inherits those pipes (or any other fd of the daemon's)
 * blocks the VM start and every client touching the domain (verified:
 * reference/libvirt-in-ci.md section 6).  So: fork, setsid, fork again;
 * the grandchild gets /dev/null and the log file as stdio, closes every
 * other fd and execs; the middle child exits at once and is reaped here.
 * Everything the children need is prepared before fork: after it, only
 * async-signal-safe calls. */
#include <errno.h>
#include <fcntl.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <unistd.h>
#include "vn-config-build.h"
#include "vn-hook.h"

#ifndef VNUMA_HOOK_VNUMACTL
#define VNUMA_HOOK_VNUMACTL "/usr/local/sbin/vnumactl"
#endif

static void
close_from(int lowest)
{
#ifdef __NR_close_range
    if (syscall(__NR_close_range, lowest, ~0U, 0) == 0)
        return;
#endif
    long max = sysconf(_SC_OPEN_MAX);
    for (int fd = lowest; fd < (max > 0 ? max : 65536); fd++)
        close(fd);
}

static G_NORETURN void
grandchild(const gchar *const *argv, int in_fd, int out_fd)
{
    if (dup2(in_fd, 0) < 0 || dup2(out_fd, 1) < 0 || dup2(out_fd, 2) < 0)
        _exit(126);
    close_from(3);
    execv(argv[0], (char *const *)argv);
    _exit(127);
}

gboolean
vn_hook_spawn_detached(const gchar *const *argv, const gchar *log_path, GError **error)
{
    int in_fd = open("/dev/null", O_RDONLY | O_CLOEXEC);
    int out_fd = log_path ? open(log_path, O_WRONLY | O_CREAT | O_APPEND | O_CLOEXEC, 0644) : -1;
    if (out_fd < 0)
        out_fd = open("/dev/null", O_WRONLY | O_CLOEXEC);
    if (in_fd < 0 || out_fd < 0) {
        int err = errno;
        if (in_fd >= 0)
            close(in_fd);
        g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_SPAWN, "cannot open /dev/null: %s",
                    g_strerror(err));
        return FALSE;
    }
    pid_t pid = fork();
    if (pid == 0) {
        if (setsid() < 0)
            _exit(1);
        pid_t grand = fork();
        if (grand == 0)
            grandchild(argv, in_fd, out_fd);
        _exit(grand < 0 ? 1 : 0);
    }
    int err = errno;
    close(in_fd);
    close(out_fd);
    int status = 0;
    if (pid < 0 || waitpid(pid, &status, 0) < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
        g_set_error(error, VN_HOOK_ERROR, VN_HOOK_ERROR_SPAWN,
                    "cannot start %s in the background%s%s", argv[0], pid < 0 ? ": " : "",
                    pid < 0 ? g_strerror(err) : "");
        return FALSE;
    }
    return TRUE;
}

gchar *
vn_hook_find_vnumactl(void)
{
    const gchar *env = g_getenv("VNUMA_VNUMACTL");
    if (env && *env)
        return g_file_test(env, G_FILE_TEST_IS_EXECUTABLE) ? g_strdup(env) : NULL;
    if (g_file_test(VNUMA_HOOK_VNUMACTL, G_FILE_TEST_IS_EXECUTABLE))
        return g_strdup(VNUMA_HOOK_VNUMACTL);
    return g_find_program_in_path("vnumactl");
}

gboolean
vn_hook_spawn_apply(const VnHook *h, const gchar *vm, gboolean dataplane_only, gchar **ret_vnumactl,
                    GError **error)
{
    g_autofree gchar *vnumactl = vn_hook_find_vnumactl();
    g_autoptr(GPtrArray) argv = g_ptr_array_new();
    g_autofree gchar *log = NULL;

    *ret_vnumactl = NULL;
    if (!vnumactl)
        return TRUE;
    g_ptr_array_add(argv, vnumactl);
    g_ptr_array_add(argv, "apply");
    if (dataplane_only)
        g_ptr_array_add(argv, "--dataplane-only");
    g_ptr_array_add(argv, (gpointer)vm);
    g_ptr_array_add(argv, NULL);
    log = g_build_filename(vn_hook_state_dir(h), "apply.log", NULL);
    if (!vn_hook_spawn_detached((const gchar *const *)argv->pdata, log, error))
        return FALSE;
    *ret_vnumactl = g_steal_pointer(&vnumactl);
    return TRUE;
}
