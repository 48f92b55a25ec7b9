# shellcheck shell=bash
# tests/numahost/lib.sh - shared host-side helpers of the emulated NUMA host rig.
# Sourced by build-image.sh, build-layer.sh, boot.sh and run-suite.sh; defines
# functions and the cache location only, runs nothing.

NH_DIR=$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)
: "${VN_BUILD_ROOT:=$NH_DIR/../../build}"
NH_CACHE=${NH_CACHE:-$VN_BUILD_ROOT/numahost-cache}

nh_log() { printf '[numahost %(%H:%M:%S)T] %s\n' -1 "$*" >&2; }
nh_die() { nh_log "error: $*"; exit 1; }
nh_now() { date +%s.%N; }
nh_secs() { awk -v a="$1" -v b="$2" 'BEGIN { printf "%.1f", b - a }'; }

# The kernel package the image is built from: whatever linux-image-cloud-amd64
# resolves to today (it moves with bookworm-security), never a hard-coded name.
nh_kernel_package() {
    apt-cache depends linux-image-cloud-amd64 2>/dev/null |
        awk '/Depends: linux-image-[0-9]/ { print $2; exit }'
}

# The directory holding the image built from the current inputs.  The key is a
# hash of everything that goes into the image: the build script, the package
# list and the kernel package name.  vnuma's own binaries are not part of it
# (they travel in a separate initramfs layer made at every run).
nh_image_key() {
    local kpkg=$1
    { cat "$NH_DIR/build-image.sh" "$NH_DIR/rootfs-packages.txt"; echo "$kpkg"; } |
        sha256sum | cut -c1-16
}

# Read a layout file into NH_* variables (see layouts/README).
nh_layout_load() {
    local f=$NH_DIR/layouts/$1.conf
    [ -f "$f" ] || nh_die "no layout $1 ($f)"
    # shellcheck disable=SC2034  # read by the callers
    NH_BOOT=initramfs NH_NODES='' NH_DIST='' NH_SCENARIOS='' NH_SMP='' NH_CPU='' NH_NIC='' NH_NESTED=0
    NH_HMAT='' NH_MACHINE_OPTS='' NH_APPEND=''
    NH_TIMEOUT=600 NH_SUITE=numahost NH_INSTALL=layer NH_CONSOLE=quiet
    # shellcheck disable=SC1090
    . "$f"
}

# Count the CPUs of a cpulist such as "0-1,4".
nh_cpulist_count() {
    local n=0 r
    local IFS=,
    for r in $1; do
        case $r in
            *-*) n=$((n + ${r#*-} - ${r%-*} + 1)) ;;
            '') ;;
            *) n=$((n + 1)) ;;
        esac
    done
    echo $n
}

# Print the QEMU -m/-smp/-object/-numa arguments of the loaded layout, one per
# line.  NH_NODES is "cpus:MiB ..." per node (empty cpus = memory-only node,
# 0 MiB = CPU-only node); NH_DIST is the row-major matrix, rows split by '/'.
# NH_HMAT, when set, is the firmware's HMAT as QEMU's -numa hmat-lb options
# (space-separated); the machine then has hmat=on (nh_qemu_machine) and each
# memory-only node node 0's CPUs as its initiator.
nh_qemu_numa_args() {
    local -a nodes rows row
    local i j cpus mib ncpu=0 mem=0 arg
    read -ra nodes <<< "$NH_NODES"
    for i in "${!nodes[@]}"; do
        cpus=${nodes[$i]%%:*} mib=${nodes[$i]##*:}
        ncpu=$((ncpu + $(nh_cpulist_count "$cpus"))) mem=$((mem + mib))
    done
    echo "-m"; echo "${mem}M"
    echo "-smp"; echo "${NH_SMP:-$ncpu,sockets=$ncpu,cores=1,threads=1}"
    for i in "${!nodes[@]}"; do
        cpus=${nodes[$i]%%:*} mib=${nodes[$i]##*:}
        arg="node,nodeid=$i"
        [ -n "$cpus" ] && arg="$arg,cpus=${cpus//,/,cpus=}"
        [ -z "$cpus" ] && [ -n "$NH_HMAT" ] && arg="$arg,initiator=0"
        if [ "$mib" != 0 ]; then
            echo "-object"; echo "memory-backend-ram,id=m$i,size=${mib}M"
            arg="$arg,memdev=m$i"
        fi
        echo "-numa"; echo "$arg"
    done
    IFS=/ read -ra rows <<< "$NH_DIST"
    for i in "${!rows[@]}"; do
        read -ra row <<< "${rows[$i]}"
        for j in "${!row[@]}"; do
            [ "$i" = "$j" ] && continue
            echo "-numa"; echo "dist,src=$i,dst=$j,val=${row[$j]}"
        done
    done
    for arg in $NH_HMAT; do
        echo "-numa"; echo "hmat-lb,$arg"
    done
}

# The QEMU machine of the loaded layout: pc, with hmat=on when NH_HMAT is set.
# NH_MACHINE_OPTS adds machine options (max-ram-below-4g=1G).
nh_qemu_machine() { echo "pc${NH_HMAT:+,hmat=on}${NH_MACHINE_OPTS:+,$NH_MACHINE_OPTS}"; }

# Print the QEMU arguments of the loaded layout's NIC (NH_NIC), one per line;
# nothing without one (the boot then has -nic none only).
#   pxb-mq  a virtio-net function with 4 queue pairs (mq=on, 10 MSI-X
#           vectors) behind a PCI expander bridge on node 1, so the emulated
#           host's kernel sees a NIC whose numa_node is 1.  The back end is a
#           tap: the only netdev of QEMU 7.2 that takes queues=4 without a
#           vhost-user or vDPA server (user, socket and hubport take no
#           queues).  Without ifname QEMU (as root, /dev/net/tun) creates a
#           non-persistent multi-queue tapN that the kernel deletes when QEMU
#           exits; it stays down, in no bridge, so the machine's own
#           networking is not touched.
nh_qemu_nic_args() {
    case ${NH_NIC:-} in
        '') ;;
        pxb-mq)
            [ "$(id -u)" = 0 ] || nh_die "NH_NIC=pxb-mq needs root (a tap device)"
            [ -c /dev/net/tun ] || nh_die "NH_NIC=pxb-mq needs /dev/net/tun (modprobe tun)"
            printf '%s\n' -device pxb,id=pxb1,bus_nr=16,numa_node=1,bus=pci.0 \
                -netdev tap,id=t0,queues=4,vhost=off,script=no,downscript=no \
                -device virtio-net-pci,netdev=t0,mq=on,vectors=10,bus=pxb1,addr=0x1
            ;;
        *) nh_die "unknown NH_NIC '$NH_NIC' (pxb-mq, or empty)" ;;
    esac
}
