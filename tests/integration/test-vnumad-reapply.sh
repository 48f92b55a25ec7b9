#!/bin/bash
# test-vnumad-reapply.sh HOOK VNUMAD VNUMACTL: vnumad applies again a
# placement the hook left unapplied (needs_apply), on a real libvirtd with
# a TCG guest.  Exit 77 when this machine cannot run a libvirt daemon (not
# root, packages unavailable), has no curl/jq or fewer than two CPUs.
#
# 1. A running guest whose ledger record says it runs on one CPU it is
#    not pinned to, with needs_apply (as a failed detached `vnumactl
#    apply` leaves it): left alone while another process holds the
#    record's apply lock; once it is released, after a sample or two, the
#    guest's vCPU and emulator pins are the record's, its memory nodeset
#    the record's node, needs_apply is cleared, vnumad logged and counted
#    the re-apply.
# 2. A record whose domain is gone: vnumad tries 3 times, logs each
#    failure with its reason and once that it gives up, counts them, and
#    tries no more until the record changes; then its count starts again.
#    vnumad keeps answering throughout.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
env_sh=$here/libvirt-env.sh
state=/run/vnuma-itest-reapply
conf=/run/vnuma-itest-reapply.conf
sock=/run/vnuma-itest-reapply.sock

command -v curl >/dev/null && command -v jq >/dev/null || { echo "skip: needs curl and jq"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "skip: needs two CPUs"; exit 77; }

if [ "${1:-}" != --inner ]; then
    hook=$(realpath "${1:?usage: $0 HOOK VNUMAD VNUMACTL}")
    vnumad=$(realpath "${2:?usage: $0 HOOK VNUMAD VNUMACTL}")
    export VNUMA_VNUMACTL=$(realpath "${3:?usage: $0 HOOK VNUMAD VNUMACTL}")
    rm -rf "$state"
    # one sample a second: the test waits seconds, not tens of them
    printf '[rebalance]\nauto = false\ninterval = 1\n' > "$conf"
    export VN_HOOK_ENV="VNUMA_STATE_DIR=$state VNUMA_CONFIG=$conf"
    "$env_sh" run "$hook" -- "$0" --inner "$vnumad"
    rc=$?
    rm -rf "$state" "$conf"
    exit $rc
fi

vnumad=$2
unset VNUMA_TOPOLOGY
export VNUMA_STATE_DIR=$state VNUMA_CONFIG=$conf
log=$state.log
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
check() {  # NAME COMMAND...: ok or FAIL
    local name=$1; shift
    if "$@"; then ok "$name"; else fail "$name"; fi
}
api() { curl -s --unix-socket "$sock" "$@"; }
metric() { api http://vnumad/metrics | awk -v m="$1" '$1 == m { print $2 }'; }
until_true() {  # TENTHS COMMAND...: polls every 0.1 s
    local n=$1; shift
    for _ in $(seq "$n"); do "$@" && return 0; sleep 0.1; done
    return 1
}
record() { jq -c --arg n "$1" '.domains[] | select(.name == $n)' "$state/ledger.json"; }
# JQ-FILTER: rewrites ledger.json under its lock, as a writer of the
# ledger does (a new file renamed over the old one)
edit_ledger() {
    flock "$state/ledger.lock" sh -c 'jq "$1" "$2/ledger.json" > "$2/edit.tmp" && mv "$2/edit.tmp" "$2/ledger.json"' \
        sh "$1" "$state"
}
vcpu_pin() { virsh -q vcpupin "$1" --vcpu 0 --live | awk '{ print $2 }'; }
# (virsh -q leaves the emulator's affinity out: its line is "       *: 0-1")
emulator_pin() { virsh emulatorpin "$1" --live | awk '$1 == "*:" { print $2 }'; }
# needs_apply false is left out of the file
needs_apply() { record "$1" | jq '.needs_apply // false'; }
applied() { [ "$(needs_apply vnt-reapply)" = false ]; }
metric_is() { [ "$(metric "$1")" = "$2" ]; }

"$vnumad" --foreground --socket "$sock" 2>"$log" &
dpid=$!
holder=
trap 'kill "$dpid" 2>/dev/null; wait "$dpid" 2>/dev/null; rm -f "$log"; [ -z "$holder" ] || pkill -P "$holder" 2>/dev/null' EXIT
until_true 50 test -S "$sock" && ok "vnumad listens on the live host" || { fail "vnumad did not start"; cat "$log"; exit 1; }

# --- 1. a placement left unapplied is applied ------------------------------
cpus=$(cat /sys/devices/system/node/node0/cpulist)
first=$(cut -d, -f1 <<<"${cpus%%-*}")
other=$((first + 1))
ns="xmlns:vnuma='http://vnuma.dev/xmlns/domain/1.0'"
xml=$(mktemp)
cat > "$xml" <<XML
<domain type='qemu'>
  <name>vnt-reapply</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>1</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <metadata><vnuma:vnuma $ns manage='yes'><vnuma:placement version='1' memory-mode='restrictive'><vnuma:cell id='0' node='0' vcpus='0' cpus='$first' memory-kib='65536'/></vnuma:placement></vnuma:vnuma></metadata>
  <devices><emulator>/usr/bin/qemu-system-x86_64</emulator><memballoon model='none'/></devices>
</domain>
XML
virsh -q define "$xml" >/dev/null || fail "define vnt-reapply"
rm -f "$xml"
virsh -q start vnt-reapply >/dev/null || fail "start vnt-reapply"
# the hook records it (running where its XML put it: no pins, or CPU
# $first if the hook's own detached apply ran)
check "the hook recorded vnt-reapply, applied" until_true 300 applied
echo "   $(record vnt-reapply)"
before=$(vcpu_pin vnt-reapply)
echo "   vCPU 0 runs on CPUs $before, the emulator on $(emulator_pin vnt-reapply)"

# as a detached apply that failed leaves it: the record on CPU $other,
# needs_apply set, the guest still where it was; first while someone
# holds the record's apply lock (the hook's helper still at work)
uuid=$(record vnt-reapply | jq -r .uuid)
# held until the checks below are done (a fixed hold raced them on a
# loaded machine: vnumad re-applied between the release and the check)
flock "$state/apply-$uuid.lock" sleep 120 &
holder=$!
until_true 50 test -e "$state/apply-$uuid.lock"
sleep 0.5
edit_ledger "(.domains[] | select(.name == \"vnt-reapply\")) |= (.needs_apply = true | .cells[0].cpus = \"$other\")"
sleep 3.5
check "not applied while another holds its apply lock" \
    test "$(needs_apply vnt-reapply) $(metric vnuma_placement_reapplied_total)" = "true 0"
check "ledger: vnt-reapply on CPU $other, needs_apply" \
    test "$(record vnt-reapply | jq -c '[.needs_apply, .cells[0].cpus]')" = "[true,\"$other\"]"
check "the guest still runs on CPUs $before, not the record's $other" \
    test "$(vcpu_pin vnt-reapply)" = "$before" -a "$before" != "$other"
pkill -P "$holder" sleep
wait "$holder"
check "re-applied: needs_apply cleared" until_true 150 applied
check "re-applied: vCPU 0 pinned to CPU $other" test "$(vcpu_pin vnt-reapply)" = "$other"
check "re-applied: emulator pinned to CPU $other" test "$(emulator_pin vnt-reapply)" = "$other"
check "re-applied: memory nodeset 0" \
    test "$(virsh -q numatune vnt-reapply --live | awk '$1 == "numa_nodeset" { print $3 }')" = 0
check "re-applied: logged once" \
    test "$(grep -c "placement of vnt-reapply re-applied on node(s) 0" "$log")" = 1
check "re-applied: counted" test "$(metric vnuma_placement_reapplied_total)" = 1
check "re-applied: no failure counted" test "$(metric vnuma_placement_reapply_failures_total)" = 0
check "re-applied: in history.log" grep -q "vnt-reapply.*reapply.*applied" "$state/history.log"
sleep 3
check "applied once, not again" test "$(metric vnuma_placement_reapplied_total)" = 1

# --- 2. bounded: a record that cannot be applied ---------------------------
now=$(date +%s)
edit_ledger ".domains += [{\"uuid\": \"00000000-0000-4000-8000-0000000dead1\", \"name\": \"vnt-gone\",
    \"state\": \"running\", \"needs_apply\": true, \"time\": $now,
    \"cells\": [{\"id\": 0, \"node\": 0, \"cpus\": \"$first\", \"vcpus\": 1, \"memory_kib\": 65536}]}]"
gave_up() { grep -q "placement of vnt-gone: giving up after 3 failures in a row until its record changes" "$log"; }
check "gone: gives up" until_true 200 gave_up
check "gone: each failure logged with its reason" \
    test "$(grep -c "placement of vnt-gone not re-applied (failure [123] of 3): .*vnt-gone" "$log")" = 3
check "gone: 3 failures counted, 1 record given up" \
    test "$(metric vnuma_placement_reapply_failures_total) $(metric vnuma_placement_reapply_given_up)" = "3 1"
sleep 4
check "gone: no more tries while the record is unchanged" \
    test "$(metric vnuma_placement_reapply_failures_total)" = 3
check "gone: its record keeps needs_apply" test "$(needs_apply vnt-gone)" = true
check "vnumad still answers" test "$(api -o /dev/null -w '%{http_code}' http://vnumad/v1/host)" = 200
edit_ledger "(.domains[] | select(.name == \"vnt-gone\")) |= (.time = $((now + 1)))"
gave_up_twice() { [ "$(grep -c "placement of vnt-gone: giving up after 3 failures" "$log")" = 2 ]; }
check "gone: once its record changed, 3 tries again and gives up again" until_true 200 gave_up_twice
check "gone: 6 failures counted, 1 record given up" \
    test "$(metric vnuma_placement_reapply_failures_total) $(metric vnuma_placement_reapply_given_up)" = "6 1"
edit_ledger "del(.domains[] | select(.name == \"vnt-gone\"))"

virsh -q destroy vnt-reapply >/dev/null || fail "destroy vnt-reapply"
virsh -q undefine vnt-reapply >/dev/null 2>&1
kill -TERM "$dpid"
wait "$dpid"
[ $? = 0 ] && ok "vnumad: clean exit" || fail "vnumad exit status"
[ "$failures" = 0 ] || { echo "--- vnumad log"; cat "$log"; }
[ "$failures" = 0 ]
