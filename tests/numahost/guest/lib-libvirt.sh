# guest/lib-libvirt.sh - libvirt inside the emulated NUMA host (rootfs boot
# only).  Source after lib.sh.  Debian 12's libvirt 9.0 has only the
# monolithic libvirtd; there is no systemd, so the daemons are started here.

VIRSH="virsh -q -c qemu:///system"

# libvirt_up: start virtlogd + libvirtd once per boot; 0 when virsh answers
libvirt_up() {
    [ -S /run/libvirt/libvirt-sock ] && $VIRSH version > /dev/null 2>&1 && return 0
    echo "+cpuset +cpu +io +memory +pids" > /sys/fs/cgroup/cgroup.subtree_control
    mkdir -p /var/log/libvirt
    _t0=$(cut -d' ' -f1 /proc/uptime)
    # never let a daemon inherit the scenario's stdout (guest-main tees it)
    virtlogd -d < /dev/null >> /var/log/libvirt/daemons.out 2>&1
    libvirtd -d < /dev/null >> /var/log/libvirt/daemons.out 2>&1
    _i=0
    while [ ! -S /run/libvirt/libvirt-sock ] && [ $_i -lt 300 ]; do sleep 0.2; _i=$((_i + 1)); done
    $VIRSH version > /dev/null 2>&1 || { tail -30 /var/log/libvirt/libvirtd.log; return 1; }
    result "libvirtd-ready-after $(awk -v a="$_t0" -v b="$(cut -d' ' -f1 /proc/uptime)" 'BEGIN { printf "%.1f", b - a }') s (includes QEMU capability probing)"
}

# qemu_pid DOMAIN
qemu_pid() { cat "/run/libvirt/qemu/$1.pid" 2>/dev/null; }

# The cgroup v2 directory libvirt made for a running domain's QEMU
domain_cgroup() {
    _p=$(qemu_pid "$1")
    _c=$(sed -n 's/^0:://p' "/proc/$_p/cgroup")
    echo "/sys/fs/cgroup${_c%/emulator}"
}

# anon_pages PID: "N0=.. N1=.. total=.." summed over the anonymous mappings
# of a process (a guest's RAM is anonymous; shared file pages of the QEMU
# binary and libraries are left out)
anon_pages() {
    grep ' anon=' "/proc/$1/numa_maps" | tr ' ' '\n' |
        awk -F= '/^N[0-9]+=/ { n[$1] += $2; t += $2 }
                 END { for (k in n) printf "%s=%d ", k, n[k]; printf "total=%d", t }'
}

# node_share PAGES NODE: integer percent of PAGES (as from anon_pages) on NODE
node_share() {
    echo "$1" | tr ' ' '\n' | awk -F= -v k="N$2" '
        $1 == k { on = $2 } $1 == "total" { t = $2 }
        END { print (t > 0 ? int(on * 100 / t) : 0) }'
}

# thread_affinity PID COMM_PREFIX: one "comm|Cpus_allowed_list" line per
# thread whose name starts with COMM_PREFIX ("CPU " for vCPUs, "IO " for
# IOThreads; see DESIGN.md section 4 for the names)
thread_affinity() {
    for _t in /proc/"$1"/task/*; do
        _c=$(cat "$_t/comm" 2>/dev/null) || continue
        case $_c in "$2"*)
            echo "$_c|$(awk '/Cpus_allowed_list/ { print $2 }' "$_t/status")" ;;
        esac
    done
}
