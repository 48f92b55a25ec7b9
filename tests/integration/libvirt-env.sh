#!/bin/bash
# libvirt-env.sh: a real libvirtd + QEMU (TCG) for integration tests.
#
# Interface (stable; other tests rely on it):
#   libvirt-env.sh start [HOOK_BINARY]
#       Installs missing Debian packages (tools/install-deps.sh), prepares
#       the Route A set-up of reference/libvirt-in-ci.md, installs
#       HOOK_BINARY (if given) as /etc/libvirt/hooks/qemu.d/vnuma BEFORE the
#       daemon starts (hooks are discovered at daemon start), then starts
#       `libvirtd -d` and waits until `virsh -q list` answers.
#       A daemon left over from an earlier run is stopped first (after its
#       test domains are destroyed), so the hook set is always the one asked.
#       VN_HOOK_ENV="VAR=value ..." : environment for the hook.  libvirt runs
#       hooks with LC_ALL, PATH and HOME only, so when this is set the hook is
#       installed as a small sh wrapper that sets these and execs a copy of
#       HOOK_BINARY (kept under /var/lib/vnuma-test).
#   libvirt-env.sh stop
#       Destroys and undefines the test domains (names starting with `vnt-`),
#       stops libvirtd (and virtlogd if we started it), removes the installed
#       hook (restoring one that was there before) and restores qemu.conf.
#       Idempotent: safe to call when nothing runs.
#   libvirt-env.sh run [HOOK_BINARY] -- COMMAND [ARGS...]
#       start, COMMAND, stop, all under an exclusive lock so that concurrent
#       tests never share or stop each other's daemon.  Exit status of
#       COMMAND (77 when the environment cannot be set up here).
#   libvirt-env.sh restart
#       Stops libvirtd WITHOUT touching domains (they keep running, and the
#       new daemon reconnects to them, calling the hook with `reconnect`),
#       then starts it again with the same set-up.  Only after `start`.
#   libvirt-env.sh status
#       Prints whether the daemon runs and which hook is installed.
#
# Exit status: 0 ok, 77 cannot run here (not root, packages or binaries
# missing, no network for apt), 1 set-up failed (with the reason on stderr).
# Test domains MUST be named `vnt-*`; only those are destroyed/undefined.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)
hook_dir=/etc/libvirt/hooks/qemu.d
hook_path=$hook_dir/vnuma
work=/var/lib/vnuma-test          # our backups and the hook copy; never in qemu.d
lock=/run/vnuma-libvirt-env.lock
qemu_conf=/etc/libvirt/qemu.conf
marker='# written by vnuma tests/integration/libvirt-env.sh'
pidfile=/run/libvirtd.pid
# The daemon (and so every hook) gets this minimal environment, not ours:
# no G_DEBUG, ASAN_OPTIONS, VNUMA_* from the test runner leak into it.
daemon_env=(env -i PATH=/usr/sbin:/usr/bin:/sbin:/bin HOME=/root LC_ALL=C)

say() { echo "libvirt-env: $*" >&2; }

pid_alive() { [ -n "${1:-}" ] && kill -0 "$1" 2>/dev/null; }

daemon_pid() {
    local p
    p=$(cat "$pidfile" 2>/dev/null) || return 1
    pid_alive "$p" && echo "$p"
}

virsh_q() { timeout 20 virsh -c qemu:///system -q "$@"; }

need_root_and_packages() {
    if [ "$(id -u)" != 0 ]; then say "not root: cannot run here"; return 77; fi
    if ! "$root/tools/install-deps.sh" >&2; then
        say "installing packages failed: cannot run here"; return 77
    fi
    local b
    for b in libvirtd virsh qemu-system-x86_64; do
        command -v "$b" >/dev/null || { say "$b missing: cannot run here"; return 77; }
    done
}

destroy_test_domains() {
    daemon_pid >/dev/null || return 0
    local d
    for d in $(virsh_q list --name 2>/dev/null | grep '^vnt-'); do
        virsh_q destroy "$d" >/dev/null 2>&1 || say "could not destroy $d"
    done
    for d in $(virsh_q list --all --name 2>/dev/null | grep '^vnt-'); do
        virsh_q undefine "$d" >/dev/null 2>&1 || say "could not undefine $d"
    done
}

stop_pid() {  # pid: TERM, wait up to 15 s, then KILL
    local p=$1
    pid_alive "$p" || return 0
    kill -TERM "$p" 2>/dev/null
    for _ in $(seq 150); do pid_alive "$p" || return 0; sleep 0.1; done
    say "pid $p ignored SIGTERM; killing it"
    kill -KILL "$p" 2>/dev/null
    for _ in $(seq 50); do pid_alive "$p" || return 0; sleep 0.1; done
}

stop_daemons() {
    local p
    if p=$(daemon_pid); then stop_pid "$p"; fi
    rm -f "$pidfile"
    if [ -f "$work/started-virtlogd" ]; then
        p=$(cat /run/virtlogd.pid 2>/dev/null) && stop_pid "$p"
        rm -f "$work/started-virtlogd"
    fi
}

# qemu.conf belongs to libvirt-daemon-system when that is installed (Route B):
# never clobber a dpkg conffile; use virtlogd instead of stdio_handler=file.
qemu_conf_is_conffile() {
    dpkg-query -W -f='${Conffiles}\n' libvirt-daemon-system 2>/dev/null |
        grep -q "^ $qemu_conf "
}

write_qemu_conf() {
    if qemu_conf_is_conffile; then
        [ -S /run/libvirt/virtlogd-sock ] && return 0
        virtlogd -d </dev/null >/dev/null 2>&1 9>&- && touch "$work/started-virtlogd"
        return 0
    fi
    if [ -f "$qemu_conf" ] && ! grep -qF "$marker" "$qemu_conf" &&
       [ ! -e "$work/qemu.conf.orig" ]; then
        cp -p "$qemu_conf" "$work/qemu.conf.orig"
    fi
    printf '%s\nuser = "root"\ngroup = "root"\nstdio_handler = "file"\n' \
        "$marker" > "$qemu_conf"
}

restore_qemu_conf() {
    if [ -e "$work/qemu.conf.orig" ]; then
        mv -f "$work/qemu.conf.orig" "$qemu_conf"
    elif [ -f "$qemu_conf" ] && grep -qF "$marker" "$qemu_conf"; then
        rm -f "$qemu_conf"
    fi
}

install_hook() {  # [binary]
    mkdir -p "$hook_dir"
    if [ -e "$hook_path" ] && [ ! -e "$work/installed-hook" ] &&
       [ ! -e "$work/vnuma.orig" ]; then
        mv -f "$hook_path" "$work/vnuma.orig"   # someone's real install
    fi
    rm -f "$hook_path"
    [ -n "${1:-}" ] || return 0
    [ -x "$1" ] || { say "hook $1 is not an executable file"; return 1; }
    if [ -n "${VN_HOOK_ENV:-}" ]; then
        install -m 0755 "$1" "$work/vnuma-hook"
        printf '#!/bin/sh\nexec env %s %s "$@"\n' "$VN_HOOK_ENV" "$work/vnuma-hook" \
            > "$hook_path.tmp"
        chmod 0755 "$hook_path.tmp"
        mv -f "$hook_path.tmp" "$hook_path"
    else
        install -m 0755 "$1" "$hook_path"
    fi
    touch "$work/installed-hook"
}

remove_hook() {
    [ -e "$work/installed-hook" ] && rm -f "$hook_path" "$work/vnuma-hook"
    rm -f "$work/installed-hook"
    [ -e "$work/vnuma.orig" ] && mv -f "$work/vnuma.orig" "$hook_path"
    return 0
}

cmd_stop() {
    destroy_test_domains
    stop_daemons
    remove_hook
    restore_qemu_conf
    return 0
}

cmd_start() {
    need_root_and_packages || return $?
    mkdir -p "$work"
    # A daemon from a failed run would keep its old hook set: restart.
    destroy_test_domains
    stop_daemons
    getent group libvirt-qemu >/dev/null || groupadd -r libvirt-qemu
    getent passwd libvirt-qemu >/dev/null ||
        useradd -r -g libvirt-qemu -d /var/lib/libvirt -s /usr/sbin/nologin libvirt-qemu
    mkdir -p /var/log/libvirt/qemu /etc/libvirt/hooks
    write_qemu_conf
    install_hook "${1:-}" || return 1
    start_daemon && return 0
    cmd_stop
    return 1
}

start_daemon() {
    # stdio to /dev/null: a daemon holding the test's pipes would hang meson;
    # fd 9 is our lock, which the daemon must not keep.
    (cd / && "${daemon_env[@]}" libvirtd -d </dev/null >/dev/null 2>&1 9>&-)
    for _ in $(seq 100); do
        virsh -c qemu:///system -q list >/dev/null 2>&1 && return 0
        sleep 0.1
    done
    say "libvirtd did not come up; last lines of its log:"
    tail -20 /var/log/libvirt/libvirtd.log >&2 2>/dev/null
    return 1
}

cmd_restart() {
    local p
    p=$(daemon_pid) || { say "restart: libvirtd is not running"; return 1; }
    stop_pid "$p"
    rm -f "$pidfile"
    start_daemon
}

cmd_status() {
    local p
    if p=$(daemon_pid); then echo "libvirtd: running (pid $p)"; else echo "libvirtd: stopped"; fi
    if [ -e "$hook_path" ]; then echo "hook: $hook_path"; else echo "hook: none"; fi
}

cmd_run() {
    local hook=""
    if [ "${1:-}" != "--" ]; then hook=${1:-}; shift; fi
    [ "${1:-}" = "--" ] && shift
    [ $# -gt 0 ] || { say "run: no command"; return 1; }
    exec 9>"$lock"
    flock 9
    cmd_start "$hook"
    local rc=$?
    if [ $rc -ne 0 ]; then cmd_stop; return $rc; fi
    trap 'cmd_stop' EXIT INT TERM
    "$@" 9>&-
    rc=$?
    trap - EXIT INT TERM
    cmd_stop
    return $rc
}

case "${1:-}" in
    start) shift; exec 9>"$lock"; flock 9; cmd_start "$@" ;;
    stop) exec 9>"$lock"; flock 9; cmd_stop ;;
    run) shift; cmd_run "$@" ;;
    restart) cmd_restart ;;
    status) cmd_status ;;
    *) echo "usage: $0 start [HOOK_BINARY] | stop | restart | run [HOOK_BINARY] -- CMD... | status" >&2
       exit 2 ;;
esac
