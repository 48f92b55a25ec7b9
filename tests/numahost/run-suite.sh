#!/bin/bash
# run-suite.sh - the `numahost` meson suite: build (or reuse) the guest image,
# make the vnuma layer, boot every layout one after another, collect each
# guest's "numahost-<layout>: N passed, N failed" line and its
# `numactl --hardware`, and print one final "N passed, N failed" line.
#
# Runs only when CI=true or VN_NUMAHOST=1 (it needs root, network for the
# first image build, and minutes of CPU); otherwise exits 77 (skipped).
# NH_LAYOUTS="2node mixed" boots a subset.  Logs: $VN_BUILD_ROOT/numahost-cache/logs/
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${CI:-}" != true ] && [ "${VN_NUMAHOST:-}" != 1 ]; then
    echo "numahost: skipped: the emulated NUMA host suite boots QEMU TCG guests for minutes;" \
         "it runs under CI=true, with VN_NUMAHOST=1, or via 'make check-numahost'"
    exit 77
fi

missing=
for tool in qemu-system-x86_64 busybox debootstrap cpio jq mke2fs apt-get dpkg-deb; do
    command -v "$tool" > /dev/null || missing="$missing $tool"
done
[ -z "$missing" ] || nh_die "missing host tools:$missing (tools/install-deps.sh installs them)"
[ "$(id -u)" = 0 ] || nh_die "needs root (debootstrap, chroot)"

if [ -n "${NH_LAYOUTS:-}" ]; then
    read -ra layouts <<< "$NH_LAYOUTS"
else
    mapfile -t layouts < <(cd "$NH_DIR/layouts" && ls -- *.conf | sed 's/\.conf$//')
fi
need_rootfs=
for l in "${layouts[@]}"; do
    nh_layout_load "$l"
    [ "$NH_BOOT" = rootfs ] && need_rootfs=--rootfs
done

suite_t0=$(nh_now)
t0=$(nh_now)
img=$("$NH_DIR/build-image.sh" $need_rootfs) || nh_die "image build failed"
image_secs=$(nh_secs "$t0" "$(nh_now)")
logdir=$NH_CACHE/logs
rm -rf "$logdir"; mkdir -p "$logdir"
t0=$(nh_now)
"$NH_DIR/build-layer.sh" "$logdir/layer.cpio" || nh_die "layer build failed"
layer_secs=$(nh_secs "$t0" "$(nh_now)")

total_pass=0 total_fail=0 timings=
for l in "${layouts[@]}"; do
    echo
    echo "=== layout $l"
    boot_line=$("$NH_DIR/boot.sh" "$img" "$logdir/layer.cpio" "$l" "$logdir")
    echo "$boot_line"
    txt=$logdir/$l.txt
    sed -n '/^NUMAHOST-BEGIN numactl-hardware/,/^NUMAHOST-END/p' "$txt" | sed '1d;$d'
    grep -a -E '^NUMAHOST-(TEST .* FAIL|RESULT)' "$txt"
    line=$(grep -a -o "^numahost-$l: [0-9]* passed, [0-9]* failed" "$txt" | tail -1)
    if [ -z "$line" ]; then
        echo "numahost-$l: no result line from the guest; last console lines ($txt):"
        tail -25 "$txt"
        total_fail=$((total_fail + 1))
    else
        echo "$line"
        read -r p f <<< "$(echo "$line" | sed 's/.*: \([0-9]*\) passed, \([0-9]*\) failed/\1 \2/')"
        total_pass=$((total_pass + p)) total_fail=$((total_fail + f))
    fi
    up=$(grep -a -o 'NUMAHOST-SUMMARY uptime=[0-9.]*' "$txt" | cut -d= -f2)
    timings="$timings  $l: ${boot_line#*: } guest-uptime-at-end=${up:-?} s"$'\n'
done

echo
echo "=== timings"
echo "  image (build-image.sh $need_rootfs): $image_secs s"
echo "  layer (build-layer.sh): $layer_secs s"
printf '%s' "$timings"
echo "  whole suite: $(nh_secs "$suite_t0" "$(nh_now)") s"
echo "numahost: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ] && [ "$total_pass" -gt 0 ]
