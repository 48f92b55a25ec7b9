#!/bin/bash
# build-layer.sh - make the per-run initramfs layer: vnuma's freshly built
# binaries (with the shared libraries they need, for the busybox boot), the
# guest-side scripts and the layouts.  The kernel unpacks it on top of the
# cached initramfs base, so a vnuma rebuild never rebuilds the image.  In a
# rootfs boot stage one copies /opt/vnuma into the root filesystem.
#
# Usage: build-layer.sh OUT.cpio     (binaries from $VN_BUILD_ROOT)
#
# With NH_DEBS=DIR (tools/build-deb.sh's output) the layer also holds the
# Debian packages for layouts that install vnuma with dpkg
# (NH_INSTALL=package), in /opt/vnuma/debs/: vnuma.deb (this build) and
# vnuma-previous.deb, the package of the previous run of this rig
# (numahost-cache/debs/vnuma-last.deb; this build on the first run)
# repacked with a lower version, so that installing vnuma.deb over it is
# an upgrade.
set -euo pipefail
. "$(dirname "$0")/lib.sh"

out=${1:?usage: build-layer.sh OUT.cpio}
# vnuma executables, relative to the meson build dir; those not built yet are
# skipped here and reported by the scenario that needs them
VNUMA_BINARIES="tools/vnumactl daemon/vnumad hooks/vnuma-hook"

# files from the source tree the scenarios use (sample config, example
# domains, the irqbalance policy script), copied to /opt/vnuma/share/ keeping their relative path
VNUMA_SOURCE_FILES="tools/vnuma.conf tools/vnuma-irqbalance-policy xml-templates/*.xml"

r=$(mktemp -d "${TMPDIR:-/tmp}/numahost-layer.XXXXXX")
trap 'rm -rf "$r"' EXIT
mkdir -p "$r/opt/vnuma/bin" "$r/opt/vnuma/numahost"
cp -a "$NH_DIR/guest" "$NH_DIR/layouts" "$r/opt/vnuma/numahost/"
cp "$NH_DIR/guest/init" "$r/init"
for f in $(cd "$NH_DIR/../.." && eval "ls -d $VNUMA_SOURCE_FILES" 2>/dev/null); do
    mkdir -p "$r/opt/vnuma/share/$(dirname "$f")"
    cp "$NH_DIR/../../$f" "$r/opt/vnuma/share/$f"
done
# the nested guests' tiny multiboot payloads (see guest/payload/*.S)
for p in toucher retoucher; do
    as --32 "$NH_DIR/guest/payload/$p.S" -o "$r/$p.o"
    ld -m elf_i386 -Ttext=0x100000 -o "$r/opt/vnuma/numahost/guest/payload/$p.elf" "$r/$p.o"
    rm "$r/$p.o"
done
# the nested Linux guest's initramfs (scenario 3-define-large): the host's
# static busybox and guest/nested/init, nothing else
ldd /bin/busybox > /dev/null 2>&1 && nh_die "/bin/busybox is not static (the busybox-static package)"
mkdir -p "$r/nested/bin"
cp /bin/busybox "$r/nested/bin/busybox"
cp "$NH_DIR/guest/nested/init" "$r/nested/init"
(cd "$r/nested" && find . | cpio -o -H newc --quiet | gzip -9) > "$r/opt/vnuma/numahost/guest/nested/initrd.gz"
rm -rf "$r/nested"
for b in $VNUMA_BINARIES; do
    [ -x "$VN_BUILD_ROOT/$b" ] || continue
    cp "$VN_BUILD_ROOT/$b" "$r/opt/vnuma/bin/"
    ldd "$VN_BUILD_ROOT/$b" | awk '/=> \// { print $3 } /^[ \t]*\// { print $1 }' |
    while read -r lib; do
        mkdir -p "$r$(dirname "$lib")"
        [ -e "$r$lib" ] || cp -L "$lib" "$r$lib"
    done
done
if [ -n "${NH_DEBS:-}" ]; then
    deb=$(ls "$NH_DEBS"/vnuma_*_amd64.deb | head -n 1)
    [ -f "$deb" ] || nh_die "no vnuma_*_amd64.deb in $NH_DEBS"
    mkdir -p "$r/opt/vnuma/debs" "$NH_CACHE/debs"
    cp "$deb" "$r/opt/vnuma/debs/vnuma.deb"
    last=$NH_CACHE/debs/vnuma-last.deb
    [ -f "$last" ] || last=$deb
    version=$(dpkg-deb -f "$last" Version)
    dpkg-deb -R "$last" "$r/prev"
    sed -i "s/^Version: .*/Version: ${version}~nhprev/" "$r/prev/DEBIAN/control"
    dpkg-deb --root-owner-group -b "$r/prev" "$r/opt/vnuma/debs/vnuma-previous.deb" > /dev/null
    rm -rf "$r/prev"
    cp "$deb" "$NH_CACHE/debs/vnuma-last.deb"
fi
# uncompressed: unpacking a gzip'd 20 MB layer costs seconds under TCG
(cd "$r" && find . | cpio -o -H newc --quiet) > "$out"
nh_log "layer: $(ls "$r/opt/vnuma/bin" | xargs) + guest scripts ($(du -h "$out" | cut -f1))"
