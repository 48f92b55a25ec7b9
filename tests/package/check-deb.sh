#!/bin/bash
# check-deb.sh -- the Debian packages, built from this tree the way
# `make deb` builds them (tools/build-deb.sh: dpkg-buildpackage in a clean
# copy, then lintian), and their contents read back with dpkg-deb: every
# file where the package promises it (debian/README.Debian).  The suites
# inside the package build are skipped (DEB_BUILD_OPTIONS=nocheck): make
# check runs them already.  Two packages: vnuma (the compute host) and
# python3-vnuma-nova (the Nova filter and weigher).  Output is TAP; exit 77 when Debian's packaging
# tools or git are missing, or the tree is not a git checkout.
set -u
src=${VN_SOURCE_ROOT:?run through meson test}
out=${VN_BUILD_ROOT:?run through meson test}/package-deb
for t in git dpkg-buildpackage dpkg-deb dh lintian; do
    command -v "$t" >/dev/null || { echo "1..0 # SKIP needs $t (tools/install-deps.sh)"; exit 77; }
done
git -C "$src" rev-parse --git-dir >/dev/null 2>&1 || { echo "1..0 # SKIP not a git checkout"; exit 77; }

n=0 failed=0
ok()  { n=$((n + 1)); echo "ok $n - $1"; }
nok() { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { local what=$1; shift; if "$@" >/dev/null 2>&1; then ok "$what"; else nok "$what" "command: $*"; fi; }

# --- the build and lintian ---------------------------------------------------
before=$(git -C "$src" status --porcelain)
if VN_DEB_NOCHECK=1 "$src/tools/build-deb.sh" "$out" >"$out.log" 2>&1; then
    ok "build-deb: packages built, lintian passed"
else
    nok "build-deb: packages built, lintian passed" "$(tail -n 40 "$out.log" | sed 's/^/  /')"
fi
check "build-deb: the checkout is untouched" test "$(git -C "$src" status --porcelain)" = "$before"
# what lintian said, overrides included: no error, no warning left standing
if [ -f "$out/lintian.txt" ]; then
    bad=$(grep -E '^(E|W):' "$out/lintian.txt")
    if [ -z "$bad" ]; then ok "lintian: no error, no warning without an override"; else nok "lintian: no error, no warning without an override" "$bad"; fi
    grep -E '^[EWIPXO]:' "$out/lintian.txt" | sed 's/^/# lintian: /'
else
    nok "lintian: its report exists" "no $out/lintian.txt"
fi

# find_deb NAME PATTERN: sets $found to the package file, or ends the run
find_deb() {
    found=$(ls "$out"/$2 2>/dev/null | head -n 1)
    if [ -z "$found" ]; then
        nok "the $1 package exists" "no $2 in $out"
        echo "1..$n"
        exit 1
    fi
    ok "the $1 package exists: ${found##*/}"
}
find_deb vnuma 'vnuma_*_*.deb'
deb=$found

# --- where every file goes ----------------------------------------------------
# dpkg-deb -c lines: MODE OWNER SIZE DATE TIME PATH [-> TARGET]
contents=$(dpkg-deb -c "$deb") || nok "dpkg-deb -c reads the package"
# has MODE-REGEX PATH [TARGET]: PATH in the package with that mode (and link target)
has() {
    local mode=$1 path=$2 target=${3-}
    awk -v m="^$mode\$" -v p="./$path" -v t="$target" '
        $1 ~ m && $6 == p && (t == "" || ($7 == "->" && $8 == t)) { found = 1 }
        END { exit !found }' <<<"$contents"
}
want() {
    local what=$1; shift
    if has "$@"; then ok "$what"; else nok "$what" "no $2 with mode $1${3:+ -> $3} in:" "$(grep -F "${2%/*}" <<<"$contents")"; fi
}
want "vnumactl in /usr/sbin, executable" '-rwxr-xr-x' usr/sbin/vnumactl
want "vnumad in /usr/sbin, executable" '-rwxr-xr-x' usr/sbin/vnumad
want "the hook binary in /usr/libexec/vnuma" '-rwxr-xr-x' usr/libexec/vnuma/vnuma-hook
want "the hook: /etc/libvirt/hooks/qemu.d/vnuma a symlink to it" 'l.*' etc/libvirt/hooks/qemu.d/vnuma /usr/libexec/vnuma/vnuma-hook
want "the irqbalance policy script in /usr/libexec/vnuma" '-rwxr-xr-x' usr/libexec/vnuma/vnuma-irqbalance-policy
want "vnumad.service where Debian 12's systemd and debhelper look" '-rw-r--r--' lib/systemd/system/vnumad.service
want "the state directory from systemd-tmpfiles" '-rw-r--r--' usr/lib/tmpfiles.d/vnuma.conf
want "man vnumactl" '-rw-r--r--' usr/share/man/man8/vnumactl.8.gz
want "man vnumad" '-rw-r--r--' usr/share/man/man8/vnumad.8.gz
want "man vnuma.conf" '-rw-r--r--' usr/share/man/man5/vnuma.conf.5.gz
want "bash completion for vnumactl" '-rw-r--r--' usr/share/bash-completion/completions/vnumactl
want "the sample /etc/vnuma/vnuma.conf" '-rw-r--r--' etc/vnuma/vnuma.conf
want "the API contract beside the unit's Documentation=" '-rw-r--r--' usr/share/doc/vnuma/openapi.yaml.gz
want "README.Debian" '-rw-r--r--' usr/share/doc/vnuma/README.Debian
want "the Grafana dashboard" '-rw-r--r--' usr/share/vnuma/monitoring/vnuma-dashboard.json
want "the Prometheus alert rules" '-rw-r--r--' usr/share/vnuma/monitoring/vnuma-alerts.yml

# every regular file under /etc is a conffile, and vnuma.conf is one; the
# hook is not (a conffile would outlive remove)
tmp=$(mktemp -d) || exit 99
trap 'rm -rf "$tmp"' EXIT
dpkg-deb -e "$deb" "$tmp/control"
etc_files=$(awk '$1 ~ /^-/ && $6 ~ /^\.\/etc\// { print substr($6, 2) }' <<<"$contents" | sort)
check "conffiles: exactly the regular files under /etc (/etc/vnuma/vnuma.conf)" \
    test "$(sort "$tmp/control/conffiles")" = "$etc_files" -a "$etc_files" = /etc/vnuma/vnuma.conf

# the control fields the host relies on
field() { dpkg-deb -f "$deb" "$1"; }
depends=$(field Depends)
for lib in libvirt0 libhwloc15 libsoup-3.0-0 libglib2.0-0; do
    check "Depends: $lib (from shlibs)" grep -q "\(^\|, \)$lib " <<<"$depends"
done
check "Recommends: libvirt-daemon-system" test "$(field Recommends)" = libvirt-daemon-system
check "Suggests: irqbalance" test "$(field Suggests)" = irqbalance

# the installed paths are the ones compiled in and written into the unit
dpkg-deb -x "$deb" "$tmp/root"
check "vnumad.service starts /usr/sbin/vnumad" grep -qx 'ExecStart=/usr/sbin/vnumad --foreground' "$tmp/root/lib/systemd/system/vnumad.service"
check "the hook runs /usr/sbin/vnumactl for a live apply" grep -q -a /usr/sbin/vnumactl "$tmp/root/usr/libexec/vnuma/vnuma-hook"
check "vnumad runs /usr/sbin/vnumactl for a rebalance" grep -q -a /usr/sbin/vnumactl "$tmp/root/usr/sbin/vnumad"
check "the packaged vnumactl runs" "$tmp/root/usr/sbin/vnumactl" --help
check "the compute-host package holds no Python" test -z "$(grep -F dist-packages <<<"$contents")"

# --- python3-vnuma-nova: the Nova filter and weigher ---------------------------
find_deb python3-vnuma-nova 'python3-vnuma-nova_*_all.deb'
nova_deb=$found
contents=$(dpkg-deb -c "$nova_deb") || nok "dpkg-deb -c reads python3-vnuma-nova"
py=usr/lib/python3/dist-packages
for m in __init__ client conf extra_specs filter request verdicts weigher; do
    want "vnuma_nova/$m.py in Debian's dist-packages" '-rw-r--r--' "$py/vnuma_nova/$m.py"
done
distinfo=$py/vnuma_nova-$(dpkg-deb -f "$nova_deb" Version).dist-info
want "its dist-info METADATA" '-rw-r--r--' "$distinfo/METADATA"
want "its dist-info entry points" '-rw-r--r--' "$distinfo/entry_points.txt"
stray=$(awk '$1 ~ /^-/ && $6 !~ "^\\./(usr/lib/python3/dist-packages/vnuma_nova|usr/share/doc/python3-vnuma-nova/)" { print $6 }' <<<"$contents")
if [ -z "$stray" ]; then ok "python3-vnuma-nova: no file beside its module, dist-info and docs"; else nok "python3-vnuma-nova: no file beside its module, dist-info and docs" "$stray"; fi
nfield() { dpkg-deb -f "$nova_deb" "$1"; }
check "python3-vnuma-nova: Architecture all" test "$(nfield Architecture)" = all
check "python3-vnuma-nova: Depends python3:any, python3-nova" test "$(nfield Depends)" = "python3:any, python3-nova"
dpkg-deb -x "$nova_deb" "$tmp/nova"
# what Nova's stevedore and oslo-config-generator look up, read as Python
# reads an installed distribution
check "the entry points Nova looks up, read from the dist-info" /usr/bin/python3 -c '
import sys, importlib.metadata as md
(d,) = md.distributions(path=[sys.argv[1]])
eps = {(e.group, e.name): e.value for e in d.entry_points}
assert d.metadata["Name"] == "vnuma-nova", d.metadata["Name"]
assert eps[("nova.api.extra_spec_validators", "vnuma")] == "vnuma_nova.extra_specs", eps
assert eps[("oslo.config.opts", "vnuma_nova")] == "vnuma_nova.conf:list_opts", eps
' "$tmp/nova/$py"
if /usr/bin/python3 -c 'import nova' 2>/dev/null; then
    check "the packaged filter, weigher and validator import with Debian's Nova" \
        env PYTHONPATH="$tmp/nova/$py" /usr/bin/python3 -c \
        'import vnuma_nova.filter, vnuma_nova.weigher, vnuma_nova.extra_specs, vnuma_nova.conf'
else
    n=$((n + 1)); echo "ok $n - the packaged modules import with Debian's Nova # SKIP python3-nova not installed"
fi
echo "1..$n"
[ "$failed" = 0 ]
