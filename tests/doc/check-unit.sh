#!/bin/sh
# check-unit.sh UNIT.in -- the systemd unit template is a valid unit
# (systemd-analyze verify) and keeps its hardening (the offline security
# score stays at or below 3.0 of 10, "OK").  The @SBINDIR@/@DOCDIR@
# placeholders are filled the way `make install` fills them, with a
# binary that exists.  Exits 77 (skipped) without systemd-analyze.
set -eu
template=$1
command -v systemd-analyze > /dev/null ||
    { echo "systemd-analyze not installed: unit not checked"; exit 77; }
dir=$(mktemp -d)
trap 'rm -rf "$dir"' EXIT
unit=$dir/$(basename "$template" .in)
sed -e 's#@SBINDIR@/[a-z]*#/bin/true#' -e "s#@DOCDIR@#$dir#" "$template" > "$unit"
# verify exits 0 on a bad value or an unknown key ("..., ignoring"):
# anything it says is a failure
systemd-analyze verify --man=no "$unit" > "$dir/verify.txt" 2>&1 || true
if [ -s "$dir/verify.txt" ]; then
    cat "$dir/verify.txt"
    echo "$(basename "$unit"): systemd-analyze verify complained"
    exit 1
fi
echo "verify: ok"
# exit status 1 when the exposure is above the threshold (0-100 scale)
if ! systemd-analyze security --offline=true --threshold=30 --no-pager "$unit" > "$dir/security.txt" 2>&1; then
    tail -5 "$dir/security.txt"
    echo "$(basename "$unit"): exposure above 3.0 (systemd-analyze security)"
    exit 1
fi
grep -o 'Overall exposure level.*' "$dir/security.txt"
