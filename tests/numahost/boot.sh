#!/bin/bash
# boot.sh - boot one layout of the emulated NUMA host under QEMU TCG and keep
# its serial console.  The initrd is the cached base with the per-run layer
# on top; a rootfs layout also gets the cached ext4 image as /dev/vda,
# snapshot=on so the image is never written.
#
# Usage: boot.sh IMAGE_DIR LAYER.cpio LAYOUT LOG_DIR
# Writes LOG_DIR/LAYOUT.txt (console, escape sequences stripped) and prints
# "boot LAYOUT: wall=S s qemu-exit=N"; exit 0 when QEMU powered off in time.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

img=$1 layer=$2 layout=$3 logdir=$4
nh_layout_load "$layout"
mapfile -t numa_args < <(nh_qemu_numa_args)
nh_qemu_nic_args > /dev/null   # dies here (not in the subshell) on a bad NH_NIC
mapfile -t nic_args < <(nh_qemu_nic_args)
timeout_s=${NH_BOOT_TIMEOUT:-300}
[ "$NH_BOOT" = rootfs ] && timeout_s=${NH_BOOT_TIMEOUT:-900}

mkdir -p "$logdir"
initrd=$logdir/$layout.initrd
# the kernel reads an uncompressed cpio after a gzip'd one only from a
# 4-byte aligned offset; zero padding between them is skipped
cp "$img/initramfs-base.cpio.gz" "$initrd"
truncate -s %512 "$initrd"
cat "$layer" >> "$initrd"
disk=()
if [ "$NH_BOOT" = rootfs ]; then
    [ -f "$img/rootfs.ext4" ] || nh_die "layout $layout needs the rootfs image (build-image.sh --rootfs)"
    disk=(-drive "file=$img/rootfs.ext4,format=raw,if=virtio,snapshot=on")
    # with a PCI expander bridge an if=virtio disk lands on the bridge's own
    # root bus, which takes only bridges: put it on pci.0 by hand
    [ ${#nic_args[@]} = 0 ] ||
        disk=(-drive "file=$img/rootfs.ext4,format=raw,if=none,id=vda,snapshot=on"
              -device virtio-blk-pci,drive=vda,bus=pci.0)
fi

# NH_CONSOLE=verbose: every kernel message with its time, and stage one's
# steps, so a boot that stops shows where (the log grows while QEMU runs)
console="console=ttyS0 quiet"
[ "$NH_CONSOLE" = verbose ] && console="console=ttyS0 loglevel=7 printk.time=1"

t0=$(nh_now) rc=0
timeout "$timeout_s" qemu-system-x86_64 -accel tcg -machine "$(nh_qemu_machine)" -cpu "${NH_CPU:-max}" "${numa_args[@]}" \
    -nic none "${nic_args[@]}" -nographic -no-reboot -kernel "$img/kernel/vmlinuz" -initrd "$initrd" \
    "${disk[@]}" -append "$console panic=-1 numahost.layout=$layout${NH_APPEND:+ $NH_APPEND}" \
    < /dev/null > "$logdir/$layout.log" 2>&1 || rc=$?
t1=$(nh_now)
rm -f "$initrd"
# drop CRs and the terminal escape sequences SeaBIOS and the kernel print
tr -d '\r' < "$logdir/$layout.log" | sed 's/\x1b\[[0-9;?]*[a-zA-Z]//g; s/\x1bc//g' > "$logdir/$layout.txt"
echo "boot $layout ($NH_BOOT): wall=$(nh_secs "$t0" "$t1") s qemu-exit=$rc"
[ $rc = 0 ]
