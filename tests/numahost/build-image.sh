#!/bin/bash
# build-image.sh - build (or reuse) the cached guest image of the emulated NUMA
# host: a stock Debian cloud kernel, a busybox initramfs base with the NUMA
# tools, and with --rootfs a debootstrapped Debian 12 root filesystem (ext4)
# with libvirt and QEMU.  Prints the image directory on stdout.
#
# Everything comes from Debian packages.  The result lives in
# $VN_BUILD_ROOT/numahost-cache/img-<key>/, key = hash of this script, the
# rootfs package list and the kernel package name, so a re-run with the same
# inputs costs nothing.  vnuma's own files are not in here (build-layer.sh).
#
# Usage: build-image.sh [--rootfs]
set -euo pipefail
. "$(dirname "$0")/lib.sh"

want_rootfs=0
[ "${1:-}" = --rootfs ] && want_rootfs=1

# host tools copied (with their libraries) into the initramfs base
INITRAMFS_TOOLS="/usr/bin/numactl /usr/bin/migratepages /usr/bin/memhog
    /usr/bin/lstopo-no-graphics /usr/bin/hwloc-calc /usr/bin/hwloc-info
    /usr/bin/taskset /usr/bin/jq"
# kernel modules needed to mount a virtio-blk root (Debian builds them as =m)
VIRTIO_MODULES="virtio/virtio_ring virtio/virtio virtio/virtio_pci_legacy_dev
    virtio/virtio_pci_modern_dev virtio/virtio_pci block/virtio_blk"

apt_get() {
    DEBIAN_FRONTEND=noninteractive apt-get -q -o DPkg::Lock::Timeout=900 "$@"
}

# copy the shared libraries binary $2 needs into root dir $1
copy_libs_of() {
    local root=$1 lib
    ldd "$2" 2>/dev/null | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }' |
    while read -r lib; do
        [ -e "$root$lib" ] && continue
        mkdir -p "$root$(dirname "$lib")"
        cp -L "$lib" "$root$lib"
    done
}

build_kernel() {
    local img=$1 kpkg=$2 deb
    mkdir -p "$NH_CACHE/debs"
    deb=$(ls "$NH_CACHE/debs/${kpkg}"_*.deb 2>/dev/null | head -1 || true)
    if [ -z "$deb" ]; then
        nh_log "downloading $kpkg"
        (cd "$NH_CACHE/debs" && apt-get download -q "$kpkg" 2>&1 | grep -v unsandboxed >&2 || true)
        deb=$(ls "$NH_CACHE/debs/${kpkg}"_*.deb 2>/dev/null | head -1 || true)
        [ -n "$deb" ] || nh_die "apt-get download $kpkg failed"
    fi
    rm -rf "$img/kernel"; mkdir -p "$img/kernel/x"
    dpkg-deb -x "$deb" "$img/kernel/x"
    cp "$img"/kernel/x/boot/vmlinuz-* "$img/kernel/vmlinuz"
    ls "$img/kernel/x/lib/modules" > "$img/kernel/VERSION"
    echo "$kpkg $(basename "$deb")" > "$img/kernel/PACKAGE"
}

build_initramfs_base() {
    local img=$1 kver a b m r
    r=$img/initramfs-root
    kver=$(cat "$img/kernel/VERSION")
    rm -rf "$r"; mkdir -p "$r"/{bin,sbin,usr/bin,usr/sbin,proc,sys,dev,tmp,run,etc,root,newroot,modules}
    cp /bin/busybox "$r/bin/busybox"
    for a in $("$r/bin/busybox" --list); do
        [ -e "$r/bin/$a" ] || ln -s busybox "$r/bin/$a"
    done
    for b in $INITRAMFS_TOOLS; do
        mkdir -p "$r$(dirname "$b")"
        cp -L "$b" "$r$b"
        copy_libs_of "$r" "$b"
    done
    for m in $VIRTIO_MODULES; do
        cp "$img/kernel/x/lib/modules/$kver/kernel/drivers/$m.ko" "$r/modules/"
    done
    echo 'root:x:0:0:root:/root:/bin/sh' > "$r/etc/passwd"
    (cd "$r" && find . | cpio -o -H newc --quiet | gzip -1) > "$img/initramfs-base.cpio.gz"
    rm -rf "$r"
}

mirror_url() {
    local u
    u=$(cat /etc/apt/sources.list.d/*.sources 2>/dev/null |
        awk '/^URIs:/ { for (i = 2; i <= NF; i++) if ($i ~ /debian/ && $i !~ /security/) { print $i; exit } }')
    [ -n "$u" ] || u=$(awk '$1 == "deb" && $2 ~ /debian/ && $2 !~ /security/ { print $2; exit }' \
        /etc/apt/sources.list 2>/dev/null)
    [ -n "$u" ] || nh_die "no Debian mirror in the apt sources"
    echo "$u"
}

build_rootfs() {
    local img=$1 kver pkgs f d r
    r=$img/rootfs
    kver=$(cat "$img/kernel/VERSION")
    pkgs=$(sed -e 's/#.*//' "$NH_DIR/rootfs-packages.txt" | xargs)
    rm -rf "$r"; mkdir -p "$r"
    nh_log "debootstrap --variant=minbase bookworm from $(mirror_url)"
    debootstrap --variant=minbase bookworm "$r" "$(mirror_url)" > "$img/debootstrap.log" 2>&1 ||
        { tail -20 "$img/debootstrap.log" >&2; nh_die "debootstrap failed"; }
    # the same Debian suites as the host (bookworm-security too), so the
    # libraries in the image match the ones vnuma was built against
    for f in /etc/apt/sources.list.d/*.sources; do
        grep -q 'debian\.org' "$f" 2>/dev/null && cp "$f" "$r/etc/apt/sources.list.d/"
    done
    [ -n "$(ls "$r/etc/apt/sources.list.d/" 2>/dev/null)" ] && rm -f "$r/etc/apt/sources.list"
    cp /usr/share/keyrings/debian-archive-keyring.gpg "$r/usr/share/keyrings/" 2>/dev/null || true
    # libvirt-daemon-system needs virtual packages (dbus, logind) that
    # debootstrap's resolver cannot follow: install it with apt in the chroot
    nh_log "apt-get install in the rootfs: $pkgs"
    mount -t proc proc "$r/proc"
    trap 'umount "'"$r"'/proc" 2>/dev/null || true' EXIT
    chroot "$r" apt-get -q update > "$img/apt.log" 2>&1
    DEBIAN_FRONTEND=noninteractive chroot "$r" apt-get install -y -q --no-install-recommends \
        $pkgs >> "$img/apt.log" 2>&1 || { tail -30 "$img/apt.log" >&2; nh_die "apt-get install failed"; }
    umount "$r/proc"; trap - EXIT
    chroot "$r" apt-get clean
    rm -rf "$r"/var/lib/apt/lists/*
    mkdir -p "$r/lib/modules"
    cp -a "$img/kernel/x/lib/modules/$kver" "$r/lib/modules/"
    chroot "$r" depmod -a "$kver"
    echo numahost > "$r/etc/hostname"
    # no systemd/journald in the guest: the daemons log to files
    for d in libvirtd virtqemud; do
        [ -f "$r/etc/libvirt/$d.conf" ] &&
            echo "log_outputs=\"3:file:/var/log/libvirt/$d.log\"" >> "$r/etc/libvirt/$d.conf"
    done
    # the kernel the nested guest of scenario 3-define-large boots (its
    # initramfs, a static busybox and a script, comes with the layer)
    mkdir -p "$r/var/lib/libvirt/boot"
    cp "$img/kernel/vmlinuz" "$r/var/lib/libvirt/boot/vmlinuz"
    mkdir -p "$r/opt/vnuma"
    nh_log "mke2fs rootfs.ext4 ($(du -sm "$r" | cut -f1) MiB of files)"
    mke2fs -q -t ext4 -L numahost -d "$r" "$img/rootfs.ext4" "$(( $(du -sm "$r" | cut -f1) + 768 ))M" >&2
    rm -rf "$r"
}

main() {
    local kpkg key img t0
    kpkg=$(nh_kernel_package)
    if [ -z "$kpkg" ]; then
        # a fresh machine may have no package lists yet
        apt_get update > /dev/null
        kpkg=$(nh_kernel_package)
    fi
    [ -n "$kpkg" ] || nh_die "cannot resolve linux-image-cloud-amd64 from the apt sources"
    key=$(nh_image_key "$kpkg")
    img=$NH_CACHE/img-$key
    mkdir -p "$img"
    # only the current image is kept
    for d in "$NH_CACHE"/img-*; do
        [ "$d" = "$img" ] || rm -rf "$d"
    done
    if [ ! -f "$img/BASE-READY" ]; then
        t0=$(nh_now)
        build_kernel "$img" "$kpkg"
        build_initramfs_base "$img"
        touch "$img/BASE-READY"
        nh_log "built kernel + initramfs base in $(nh_secs "$t0" "$(nh_now)") s ($kpkg)"
    else
        nh_log "cached kernel + initramfs base ($kpkg, key $key)"
    fi
    if [ $want_rootfs = 1 ] && [ ! -f "$img/ROOTFS-READY" ]; then
        t0=$(nh_now)
        build_rootfs "$img"
        touch "$img/ROOTFS-READY"
        nh_log "built rootfs image in $(nh_secs "$t0" "$(nh_now)") s"
    elif [ $want_rootfs = 1 ]; then
        nh_log "cached rootfs image (key $key)"
    fi
    echo "$img"
}

main
