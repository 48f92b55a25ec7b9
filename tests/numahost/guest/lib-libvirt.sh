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
