# guest/lib-libvirt.sh - libvirt inside the emulated NUMA host (rootfs boot
# only; bash).  Source after lib.sh.  Debian 12's libvirt 9.0 has only the
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

# --- vnuma's own pieces inside the emulated host (scenarios 2, 4, 5, 6) ---

# vnuma_conf LINE...: /etc/vnuma/vnuma.conf, read by the hook at every call
# and by vnumactl (libvirt passes a hook no VNUMA_CONFIG)
vnuma_conf() {
    mkdir -p /etc/vnuma
    printf '%s\n' "$@" > /etc/vnuma/vnuma.conf
}

# libvirt_down: stop the libvirtd libvirt_up started (by its pid file)
libvirt_down() {
    _p=$(cat /run/libvirtd.pid 2>/dev/null) || return 0
    kill "$_p" 2>/dev/null
    _i=0
    while kill -0 "$_p" 2>/dev/null && [ $_i -lt 150 ]; do sleep 0.2; _i=$((_i + 1)); done
    rm -f /run/libvirt/libvirt-sock
}

# vnuma_hook_up: vnuma-hook installed as qemu.d/vnuma, then libvirtd up.
# libvirt finds hooks when the daemon starts, so a libvirtd that runs
# without the hook is restarted.  The hook finds vnumactl (for the detached
# live apply) at its built-in /usr/local/sbin/vnumactl or in PATH.  With
# NH_INSTALL=package the Debian package has installed the hook (the
# symlink to /usr/libexec/vnuma/vnuma-hook, vnumactl in /usr/sbin), and
# libvirtd is only started.
vnuma_hook_up() {
    _h=/etc/libvirt/hooks/qemu.d/vnuma
    if [ "${NH_INSTALL:-layer}" = package ]; then
        [ -L "$_h" ] && [ -x "$_h" ] && [ -x /usr/sbin/vnumactl ] || return 1
        libvirt_up
        return
    fi
    [ -x /opt/vnuma/bin/vnuma-hook ] && [ -x /opt/vnuma/bin/vnumactl ] || return 1
    if ! cmp -s /opt/vnuma/bin/vnuma-hook "$_h"; then
        mkdir -p "${_h%/*}" /usr/local/sbin
        cp /opt/vnuma/bin/vnuma-hook "$_h" && chmod 0755 "$_h"
        ln -sf /opt/vnuma/bin/vnumactl /usr/local/sbin/vnumactl
        libvirt_down
    fi
    libvirt_up
}

# small_guest NAME MIB [XML...]: a 1-vCPU TCG guest without disk whose RAM
# QEMU touches at start (prealloc), so every page exists before any pin;
# its "OS" is guest/payload/toucher.elf, which writes every page and halts
# (an idle guest costs the emulated host no CPU, where SeaBIOS looking for
# a boot disk would spin).  The extra XML (metadata, cputune, numatune,
# iothreads) goes after <vcpu>.
TOUCHER=/var/lib/libvirt/boot/toucher.elf
small_guest() {
    _n=$1 _m=$2
    shift 2
    [ -f $TOUCHER ] || { mkdir -p ${TOUCHER%/*}; cp "$NH/guest/payload/toucher.elf" $TOUCHER; }
    cat <<XML
<domain type='qemu'>
  <name>$_n</name>
  <memory unit='MiB'>$_m</memory>
  <vcpu placement='static'>1</vcpu>
  $*
  <memoryBacking><allocation mode='immediate'/></memoryBacking>
  <os><type arch='x86_64' machine='pc'>hvm</type><kernel>$TOUCHER</kernel></os>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <serial type='pty'/>
    <memballoon model='none'/>
  </devices>
</domain>
XML
}

# The nested Linux guest (NH_NESTED=1: layouts 4node-nested and
# 2node-l3-nested): its OS is the emulated host's own Debian kernel with an
# initramfs of the host's static busybox and guest/nested/init
# (build-layer.sh packs it), which prints the guest kernel's own view
# (GUEST-* lines) on the serial console, a file, and idles.  A Linux boot
# under TCG inside TCG: the command line skips what only costs time there.
NESTED_KERNEL=/var/lib/libvirt/boot/vmlinuz
NESTED_INITRD=/var/lib/libvirt/boot/nested-initrd.gz
NESTED_CMDLINE="console=ttyS0 quiet panic=-1 mitigations=off cryptomgr.notests random.trust_cpu=on no_timer_check tsc=reliable"
# nested_linux_xml: a small_guest's XML (stdin) made the nested Linux
# guest's (stdout): its kernel, initramfs and command line
nested_linux_xml() {
    [ -f $NESTED_INITRD ] || { mkdir -p ${NESTED_INITRD%/*}; cp "$NH/guest/nested/initrd.gz" $NESTED_INITRD; }
    sed "s|<kernel>[^<]*</kernel>|<kernel>$NESTED_KERNEL</kernel><initrd>$NESTED_INITRD</initrd><cmdline>$NESTED_CMDLINE</cmdline>|"
}
# acpi_console_xml CONSOLE: a small_guest's XML (stdin) with <acpi/> (an
# x86 guest reads its cells and CPUs from ACPI; libvirt runs QEMU with ACPI
# off without it) and its serial console into the file CONSOLE (stdout)
acpi_console_xml() {
    sed -e "s|<os>|<features><acpi/></features><os>|" \
        -e "s|<serial type='pty'/>|<serial type='file'><source path='$1'/></serial>|"
}
# nested_console NAME CONSOLE SECONDS: wait until the nested guest printed
# GUEST-DONE (or stopped running, or SECONDS passed); its console, without
# carriage returns, in /tmp/NAME.console
nested_console() {
    _i=0
    while [ $_i -lt $(($3 * 2)) ]; do
        grep -q '^GUEST-DONE' "$2" 2>/dev/null && break
        [ "$($VIRSH domstate "$1" 2>/dev/null)" = running ] || break
        sleep 0.5
        _i=$((_i + 1))
    done
    tr -d '\r' < "$2" > "/tmp/$1.console" 2>/dev/null
}

# recorded_on NODE: vnuma metadata + pins + restrictive numatune of a
# one-cell placement on NODE, as `vnumactl define` writes it
recorded_on() {
    _c=$(kernel_cpulist "$1")
    cat <<XML
<metadata>
    <vnuma:vnuma xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0' manage='yes'>
      <vnuma:placement version='0.1.0' time='2026-01-01T00:00:00Z' memory-mode='restrictive' dedicated='no' hugepage-kib='0' threads-per-core='1'>
        <vnuma:cell id='0' node='$1' vcpus='0' cpus='$_c' memory-kib='$2'/>
        <vnuma:emulator cpus='$_c'/>
      </vnuma:placement>
    </vnuma:vnuma>
  </metadata>
  <cputune><vcpupin vcpu='0' cpuset='$_c'/><emulatorpin cpuset='$_c'/></cputune>
  <numatune><memory mode='restrictive' nodeset='$1'/></numatune>
XML
}

# guest_up NAME XMLFILE: define and start; 0 when running
guest_up() {
    $VIRSH define "$2" > /tmp/guest_up.err 2>&1 && $VIRSH start "$1" >> /tmp/guest_up.err 2>&1 && return 0
    tail -5 /tmp/guest_up.err
    tail -10 "/var/log/libvirt/qemu/$1.log" 2>/dev/null
    return 1
}
# guests_gone NAME...: destroy and undefine, quietly
guests_gone() {
    for _g in "$@"; do
        $VIRSH destroy "$_g" > /dev/null 2>&1
        $VIRSH undefine "$_g" > /dev/null 2>&1
    done
}

# reservation NAME FIELD: a field of the domain's ledger record
# (needs_apply, state) or "node" (its first cell's node)
reservation() {
    vnumactl reservations --json 2>/dev/null | jq -r --arg n "$1" --arg f "$2" '
        .domains[] | select(.name == $n) |
        if $f == "node" then .cells[0].node else .[$f] end'
}
# wait_applied NAME SECONDS: until the hook's detached `vnumactl apply` has
# cleared the record's needs_apply flag
wait_applied() {
    _i=0
    while [ $_i -lt $(($2 * 2)) ]; do
        [ "$(reservation "$1" needs_apply)" = false ] && return 0
        sleep 0.5
        _i=$((_i + 1))
    done
    return 1
}

# guest_ram_pages PID MIB: "N0=.. total=.." of the guest RAM block (the
# anonymous VMA of exactly MIB MiB in /proc/PID/maps)
guest_ram_pages() {
    local range rest a=
    while read -r range rest; do
        [ $(( (16#${range#*-} - 16#${range%-*}) >> 20 )) = "$2" ] && { a=${range%-*}; break; }
    done < "/proc/$1/maps"
    [ -n "$a" ] || { echo "total=0"; return 1; }
    grep "^$a " "/proc/$1/numa_maps" | tr ' ' '\n' |
        awk -F= '/^N[0-9]+=/ { printf "%s=%s ", $1, $2; t += $2 } END { printf "total=%d", t }'
}
# wait_pages_on PID MIB NODE SECONDS: until >= 95 % of the RAM block is on NODE;
# prints the last count
wait_pages_on() {
    _i=0
    while :; do
        _pg=$(guest_ram_pages "$1" "$2")
        [ "$(node_share "$_pg" "$3")" -ge 95 ] && break
        [ $_i -ge $(($4 * 2)) ] && break
        sleep 0.5
        _i=$((_i + 1))
    done
    echo "$_pg"
}

# blocks_pages PID MIB...: "N0=.. total=.." (nodes in order) over one
# anonymous VMA of each size given (the guest's cell RAM blocks)
blocks_pages() {
    local pid=$1 range rest size want
    shift
    want=" $* "
    while read -r range rest; do
        size=$(( (16#${range#*-} - 16#${range%-*}) >> 20 ))
        case $want in *" $size "*)
            want=${want/ $size / }
            grep "^${range%-*} " "/proc/$pid/numa_maps" ;;
        esac
    done < "/proc/$pid/maps" | tr ' ' '\n' |
        awk -F= '/^N[0-9]+=/ { n[substr($1, 2) + 0] += $2; t += $2 }
                 END { for (k = 0; k < 1024; k++) if (k in n) printf "N%d=%d ", k, n[k]
                       printf "total=%d", t }'
}
# pages_on PAGES NODE: the pages on NODE of a count like blocks_pages'
pages_on() { echo "$1" | tr ' ' '\n' | awk -F= -v k="N$2" '$1 == k { n = $2 } END { print n + 0 }'; }

# cpus_within LIST OUTER: every CPU of cpulist LIST is in cpulist OUTER
cpus_within() {
    [ -n "$1" ] && [ -n "$2" ] || return 1
    awk -v a="$1" -v b="$2" '
        function expand(s, set,   n, p, i, r, k) {
            n = split(s, p, ",")
            for (i = 1; i <= n; i++) { if (p[i] == "") continue
                if (split(p[i], r, "-") == 1) r[2] = r[1]
                for (k = r[1]; k <= r[2]; k++) set[k] = 1 }
        }
        BEGIN { expand(a, A); expand(b, B); for (k in A) if (!(k in B)) exit 1 }'
}
