#!/bin/bash
# autonuma-test.sh VNUMAD -- [host] numa_balancing against a real vnumad on
# a copy of the status fixture (tests/data/status: a two-node host whose
# ledger holds db, restrictive on node 1, and web, strict over nodes 0 and
# 1, with libvirt's status XML, kernel.numa_balancing = 1 and /proc/vmstat
# counters): the copy stands in for the host, so the daemon's writes to
# proc/sys/kernel/numa_balancing land in a temporary directory.
#
# With off, the sysctl becomes 0 within a sample because every placed VM
# is bound, logged with the reason; a VM that is no longer bound (web made
# restrictive over its two nodes) puts 1 back, logged with why; bound again
# gives 0 again; a reload to leave restores 1, the value found at start;
# a sysctl that cannot be written is one log line (not as root: root writes
# a read-only file); SIGTERM puts back the value vnumad changed.  GET
# /v1/host and /metrics carry the mode, the counters and the rates.
# Output is TAP; exit 77 without jq or curl.  VNUMAD_WRAPPER (as for
# api-test.sh) runs the daemon under a wrapper.
set -u
command -v curl >/dev/null && command -v jq >/dev/null || { echo "1..0 # SKIP needs curl and jq"; exit 77; }

vnumad=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=${VN_SOURCE_ROOT:?run through meson test}
data=${VN_TEST_DATA:-$src/tests/data}
tmp=$(mktemp -d) || exit 99
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
unset VNUMA_TOPOLOGY VNUMA_LIBVIRT_RUN_DIR

. "$src/tests/api/tap.sh"

cp -a "$data/status/sysroot" "$data/status/state" "$tmp"/
root=$tmp/sysroot
sysctl=$root/proc/sys/kernel/numa_balancing
conf() {
    printf '[host]\nnuma_balancing = %s\n\n[rebalance]\nauto = false\ninterval = 1\ndataplane_repair = false\n' "$1" \
        >"$tmp/vnuma.conf"
}
conf off
export VNUMA_CONFIG=$tmp/vnuma.conf VNUMA_STATE_DIR=$tmp/state
S=$tmp/vnumad.sock
log=$tmp/vnumad.log

sysctl_is() { test "$(cat "$sysctl")" = "$1"; }
# memory_mode VM MODE: rewrites the mode vnuma recorded in VM's status XML
memory_mode() {
    sed -i "s/memory-mode='[a-z]*'/memory-mode='$2'/" "$root/run/libvirt/qemu/$1.xml"
}
log_count() { grep -c "$1" "$log"; }

check "the fixture starts with normal balancing" sysctl_is 1
if ! vnumad_started "$S" "$log" --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$root"; then
    echo "# vnumad did not start:"; sed 's/^/#   /' "$log"; echo "1..0 # could not start"; exit 1
fi

check "off, every placed VM bound: 0 written" wait_for 3 sysctl_is 0
check "the change is logged with its reason" \
    grep -q "AutoNUMA: kernel.numa_balancing 1 -> 0: every placed VM (2) is bound" "$log"

code=$(curl -s --unix-socket "$S" -o "$tmp/host" -w '%{http_code}' http://vnumad/v1/host)
check "GET /v1/host: 200" test "$code" = 200
check "GET /v1/host: the mode, the counters, both VMs bound and their figures" \
    jq -e '.autonuma.numa_balancing == 0 and .autonuma.counters.hint_faults == 152340 and
           .autonuma.counters.pages_migrated == 30882 and .autonuma.warning == null and
           ([.autonuma.vms[] | select(.bound)] | length == 2) and
           (.autonuma.vms[] | select(.name == "web") | .memory_mode == "strict" and
            .numa_faults == 2750 and .pages_migrated == 3084 and .threads == 3)' "$tmp/host"

# the kernel counts on: a second sample gives rates
sed -i 's/^numa_hint_faults 152340$/numa_hint_faults 162340/' "$root/proc/vmstat"
rate_seen() {
    curl -s --unix-socket "$S" http://vnumad/v1/host | jq -e '.autonuma.rates_per_s.hint_faults > 0' >/dev/null
}
check "GET /v1/host: hint faults per second once the counter moved" wait_for 4 rate_seen
curl -s --unix-socket "$S" -o "$tmp/metrics" http://vnumad/metrics
check "metrics: the mode gauge" grep -qx 'vnuma_numa_balancing_mode 0' "$tmp/metrics"
check "metrics: the host's hint faults counter" grep -qx 'vnuma_numa_hint_faults_total 162340' "$tmp/metrics"
check "metrics: pages migrated" grep -qx 'vnuma_numa_pages_migrated_total 30882' "$tmp/metrics"
check "metrics: promotions (a kernel with tiering counters)" grep -qx 'vnuma_numa_pages_promoted_total 0' "$tmp/metrics"

memory_mode web restrictive
check "a VM no longer bound: the value found at start comes back" wait_for 3 sysctl_is 1
check "and why is logged" \
    grep -q "AutoNUMA: kernel.numa_balancing 0 -> 1: off refused: VM web is restrictive over 2 nodes: AutoNUMA moves its pages: restoring 1" "$log"
sleep 2.5 # two samples
check "the refusal is not logged again on every sample" test "$(log_count "off refused")" = 1
memory_mode web strict
check "bound again: 0 again" wait_for 3 sysctl_is 0

conf leave
kill -HUP "$pid"
check "reload to leave: the value found at start restored" wait_for 3 sysctl_is 1
check "logged" grep -q "AutoNUMA: kernel.numa_balancing 0 -> 1: leave: restoring 1" "$log"
echo 3 >"$sysctl"
sleep 2.5 # two samples
check "leave: a value set by hand is left alone" sysctl_is 3
echo 1 >"$sysctl"

conf off
kill -HUP "$pid"
check "off again: 0" wait_for 3 sysctl_is 0
if [ "$(id -u)" = 0 ]; then
    ok "a read-only sysctl: one log line # SKIP root writes a read-only file (checked below in a mount namespace)"
else
    echo 1 >"$sysctl"
    chmod 0444 "$sysctl"
    check "a read-only sysctl: one log line naming it" \
        wait_for 3 grep -q "AutoNUMA: kernel.numa_balancing stays 1: cannot write 0 to $sysctl: Permission denied" "$log"
    chmod 0644 "$sysctl"
    wait_for 3 sysctl_is 0
fi

kill "$pid"; wait "$pid"; rc=$?; pid=
check "SIGTERM: exit 0" test "$rc" = 0
check "SIGTERM: the value vnumad changed is put back" sysctl_is 1
check "and logged" grep -q "AutoNUMA: kernel.numa_balancing restored to 1 (the value found at start) at stop" "$log"
check "no warnings or criticals in the log" bash -c "! grep -Eq 'WARNING|CRITICAL' '$log'"

# a read-only /proc/sys (as the shipped unit's ProtectKernelTunables makes
# it): one log line naming the file, the value stays; root needs a
# read-only mount for that, in a mount namespace of vnumad's own
if [ "$(id -u)" = 0 ] && unshare -m true 2>/dev/null; then
    ro_log=$tmp/ro.log
    unshare -m sh -c 'mount --bind "$1/proc/sys" "$1/proc/sys" && mount -o remount,bind,ro "$1/proc/sys" &&
        exec "$2" --foreground --socket "$3" --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$1"' \
        sh "$root" "$vnumad" "$tmp/ro.sock" 2>"$ro_log" &
    pid=$!
    check "a read-only sysctl: one log line naming it" \
        wait_for 5 grep -q "AutoNUMA: kernel.numa_balancing stays 1: cannot write 0 to $sysctl: Read-only file system (wanted 0: every placed VM (2) is bound" "$ro_log"
    sleep 2.5 # two samples
    check "a read-only sysctl: said once, not every sample" test "$(grep -c "stays 1" "$ro_log")" = 1
    check "a read-only sysctl: the value stays" sysctl_is 1
    kill "$pid"; wait "$pid"; pid=
else
    ok "a read-only sysctl in a mount namespace # SKIP not root or no unshare -m"
fi

# a fixture topology is not this host: its sysctl is never written, even with off
${VNUMAD_WRAPPER:-} "$vnumad" --foreground --socket "$tmp/fixture.sock" \
    --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" 2>"$tmp/fixture.log" &
pid=$!
wait_for 10 curl -s --unix-socket "$tmp/fixture.sock" -o "$tmp/fixture-host" http://vnumad/v1/host
check "a fixture topology: no autonuma in GET /v1/host" jq -e 'has("autonuma") | not' "$tmp/fixture-host"
check "a fixture topology: nothing about AutoNUMA logged" bash -c "! grep -q AutoNUMA '$tmp/fixture.log'"
kill "$pid"; wait "$pid"; pid=

[ "$failed" = 0 ] || { echo "# vnumad's log:"; sed 's/^/#   /' "$log"; }
tap_end
