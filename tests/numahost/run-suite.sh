#!/bin/bash
# run-suite.sh - the emulated NUMA host suites: build (or reuse) the guest
# image, make the vnuma layer, boot layouts one after another, collect each
# guest's "numahost-<layout>: N passed, N failed" line and its
# `numactl --hardware`, and print one final "N passed, N failed" line.
#
#   run-suite.sh --image      build (or reuse) the image every layout of the
#                             `numahost` suite needs, and nothing else
#   run-suite.sh LAYOUT...    boot these layouts (meson: one test each)
#   run-suite.sh              every layout of the `numahost` suite
#
# Each layout is its own meson test, its timeout its NH_TIMEOUT (see
# layouts/README.md); the QEMU boot gets that less the time spent before it,
# so a hung guest is reported with its console, not killed by meson.
# Runs only when CI=true or VN_NUMAHOST=1 (it needs root, the Debian archive
# for the first image build, and minutes of CPU); otherwise exits 77.  A
# layout of another suite (NH_SUITE=numahost-nested) runs only with
# VN_NUMAHOST_NESTED=1 (`make check-numahost-nested`).
# NH_LAYOUTS="2node mixed" boots a subset.  Logs: $VN_BUILD_ROOT/numahost-cache/logs/
set -uo pipefail
. "$(dirname "$0")/lib.sh"

if [ "${CI:-}" != true ] && [ "${VN_NUMAHOST:-}" != 1 ] && [ "${VN_NUMAHOST_NESTED:-}" != 1 ]; then
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

# the layouts of one suite, in name order
suite_layouts() {
    local f
    for f in "$NH_DIR"/layouts/*.conf; do
        f=${f##*/}; f=${f%.conf}
        nh_layout_load "$f"
        [ "$NH_SUITE" = "$1" ] && echo "$f"
    done
}

image_only=
if [ "${1:-}" = --image ]; then
    image_only=1; shift
fi
if [ $# -gt 0 ]; then
    layouts=("$@")
elif [ -n "${NH_LAYOUTS:-}" ]; then
    read -ra layouts <<< "$NH_LAYOUTS"
else
    mapfile -t layouts < <(suite_layouts numahost)
fi
need_rootfs= need_debs=
for l in "${layouts[@]}"; do
    nh_layout_load "$l"
    if [ "$NH_SUITE" != numahost ] && [ "${VN_NUMAHOST_NESTED:-}" != 1 ] && [ -z "$image_only" ]; then
        echo "numahost-$l: skipped: suite $NH_SUITE runs with VN_NUMAHOST_NESTED=1" \
             "('make check-$NH_SUITE')"
        exit 77
    fi
    [ "$NH_BOOT" = rootfs ] && need_rootfs=--rootfs
    [ "$NH_INSTALL" = package ] && need_debs=1
done

suite_t0=$(nh_now)
t0=$(nh_now)
img=$("$NH_DIR/build-image.sh" $need_rootfs) || nh_die "image build failed"
image_secs=$(nh_secs "$t0" "$(nh_now)")
if [ -n "$image_only" ]; then
    echo "numahost image (build-image.sh $need_rootfs): $img in $image_secs s"
    echo "numahost-image: 1 passed, 0 failed"
    exit 0
fi
logdir=$NH_CACHE/logs
mkdir -p "$logdir"
layer=$(mktemp "$logdir/layer.XXXXXX.cpio")
trap 'rm -f "$layer"' EXIT
# a layout that installs vnuma with dpkg (NH_INSTALL=package) gets this
# tree's Debian packages, built as `make deb` builds them (less the suites
# inside the package build: make check runs them)
debs_secs=0
if [ -n "$need_debs" ]; then
    t0=$(nh_now)
    VN_DEB_NOCHECK=1 "$NH_DIR/../../tools/build-deb.sh" "$VN_BUILD_ROOT/package-deb" > "$logdir/build-deb.out" 2>&1 ||
        { tail -30 "$logdir/build-deb.out"; nh_die "the Debian packages did not build ($logdir/build-deb.out)"; }
    debs_secs=$(nh_secs "$t0" "$(nh_now)")
fi
t0=$(nh_now)
NH_DEBS=${need_debs:+$VN_BUILD_ROOT/package-deb} "$NH_DIR/build-layer.sh" "$layer" || nh_die "layer build failed"
layer_secs=$(nh_secs "$t0" "$(nh_now)")

total_pass=0 total_fail=0 timings=
for l in "${layouts[@]}"; do
    echo
    echo "=== layout $l"
    nh_layout_load "$l"
    # what is left of this layout's meson timeout, less a minute to report
    spent=$(nh_secs "$suite_t0" "$(nh_now)")
    boot_timeout=$(awk -v t="$NH_TIMEOUT" -v s="$spent" 'BEGIN { b = int(t - s - 60); print (b < 60 ? 60 : b) }')
    [ ${#layouts[@]} -gt 1 ] && boot_timeout=$NH_TIMEOUT   # a whole-suite run by hand
    boot_line=$(NH_BOOT_TIMEOUT=${NH_BOOT_TIMEOUT:-$boot_timeout} \
                "$NH_DIR/boot.sh" "$img" "$layer" "$l" "$logdir")
    echo "$boot_line"
    txt=$logdir/$l.txt
    sed -n '/^NUMAHOST-BEGIN numactl-hardware/,/^NUMAHOST-END/p' "$txt" | sed '1d;$d'
    grep -a -E '^NUMAHOST-(TEST .* FAIL|RESULT|SCENARIO)' "$txt"
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
    timings="$timings  $l: ${boot_line#*: } guest-uptime-at-end=${up:-?} s (timeout $NH_TIMEOUT s)"$'\n'
done

echo
echo "=== timings"
echo "  image (build-image.sh $need_rootfs): $image_secs s"
[ -n "$need_debs" ] && echo "  Debian packages (tools/build-deb.sh): $debs_secs s"
echo "  layer (build-layer.sh): $layer_secs s"
printf '%s' "$timings"
echo "  whole run: $(nh_secs "$suite_t0" "$(nh_now)") s"
echo "numahost: $total_pass passed, $total_fail failed"
[ "$total_fail" = 0 ] && [ "$total_pass" -gt 0 ]
