#!/bin/sh
# check-unit.sh UNIT.in [DROP-IN] -- the systemd unit template is a valid
# unit (systemd-analyze verify) and keeps its hardening (the offline
# security score stays at or below 3.0 of 10, "OK").  The @SBINDIR@/@DOCDIR@
# placeholders are filled the way `make install` fills them, with a binary
# that exists.  With DROP-IN (the irq_steering example), the unit is checked
# again with it in UNIT.d/: valid, still at or below 3.0, and in effect
# (/proc/irq writable, CAP_NET_ADMIN in the bounding set).  Exits 77
# (skipped) without systemd-analyze.
set -eu
template=$1
dropin=${2:-}
command -v systemd-analyze > /dev/null ||
    { echo "systemd-analyze not installed: unit not checked"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unit=$dir/$(basename "$template" .in)
sed -e 's#@SBINDIR@/[a-z]*#/bin/true#' -e "s#@DOCDIR@#$dir#" "$template" > "$unit"

# check WHAT: verify and score the unit as it is now (systemd-analyze
# reads drop-ins from UNIT.d/ beside the unit file)
check() {
    # verify exits 0 on a bad value or an unknown key ("..., ignoring"):
    # anything it says is a failure
    systemd-analyze verify --man=no "$unit" > "$dir/verify.txt" 2>&1 || true
    if [ -s "$dir/verify.txt" ]; then
        cat "$dir/verify.txt"
        echo "$1: systemd-analyze verify complained"
        exit 1
    fi
    echo "$1: verify: ok"
    # exit status 1 when the exposure is above the threshold (0-100 scale)
    if ! systemd-analyze security --offline=true --threshold=30 --no-pager "$unit" > "$dir/security.txt" 2>&1; then
        tail -5 "$dir/security.txt"
        echo "$1: exposure above 3.0 (systemd-analyze security)"
        exit 1
    fi
    echo "$1: $(grep -o 'Overall exposure level.*' "$dir/security.txt")"
}
check "$(basename "$unit")"
[ -n "$dropin" ] || exit 0
mkdir "$unit.d"
cp "$dropin" "$unit.d/"
check "$(basename "$unit") with $(basename "$dropin")"
# the descriptions systemd-analyze gives the two settings when they are off
for given in 'Service may alter kernel tunables' 'Service has network configuration privileges'; do
    grep -q "$given" "$dir/security.txt" ||
        { echo "$(basename "$dropin") not in effect: no \"$given\" in systemd-analyze security"; exit 1; }
done
echo "$(basename "$dropin"): /proc/irq writable and CAP_NET_ADMIN given back"
