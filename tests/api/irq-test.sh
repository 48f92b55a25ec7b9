#!/bin/bash
# irq-test.sh VNUMAD VNUMACTL -- [rebalance] irq_steering against a real
# vnumad on a copy of the two-socket NIC fixture (tests/data/sysroot/
# 2socket-2nic, its ledger in tests/data/irq/state): the copy stands in for
# the host, so the daemon's writes to proc/irq and sys/class/net land in a
# temporary directory.
#
# At start the interrupt affinities and RPS/XPS masks are what `vnumactl irq
# plan` says; a value changed by hand is put back within a sample and
# logged with the value found and the one written; a placement that moves
# (the ledger rewritten) is applied anew; with irqbalance running without
# coordination drift is left to it (said once), with vnuma's policy script
# it is repaired again.  GET /v1/host and /metrics show the view of the
# last sample, built anew at once when the ledger's generation moves.
# Output is TAP; exit 77 without jq or curl.
# VNUMAD_WRAPPER (as for api-test.sh) runs the daemons under a wrapper.
set -u
command -v curl >/dev/null && command -v jq >/dev/null || { echo "1..0 # SKIP needs curl and jq"; exit 77; }

vnumad=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
vnumactl=$(cd "$(dirname "$2")" && pwd)/$(basename "$2")
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

cp -a "$data/sysroot/2socket-2nic" "$data/sysroot/resctrl-2node" "$data/irq/state" "$tmp"/
root=$tmp/2socket-2nic
cat >"$tmp/irq.conf" <<EOF
[rebalance]
auto = false
interval = 1
dataplane_repair = false
irq_steering = on
EOF
export VNUMA_CONFIG=$tmp/irq.conf VNUMA_STATE_DIR=$tmp/state
S=$tmp/irq.sock
log=$tmp/vnumad.log

# irq_is IRQ CPULIST: the vector's smp_affinity_list in the copy
irq_is() { file_is "proc/irq/$1/smp_affinity_list" "$2"; }
# file_is PATH VALUE: the file below the copy holds VALUE
file_is() { test "$(cat "$root/$1")" = "$2"; }
# in_place PLAN.json: every file the plan names holds what it plans
in_place() {
    jq -r '.nics[] | select(.cpus != null) | .irqs[] | select(.left | not) | "\(.irq) \(.planned)"' "$1" |
        while read -r irq cpus; do irq_is "$irq" "$cpus" || return 1; done || return 1
    jq -r '.nics[] | select(.cpus != null) | .name as $n | (.rps[] | "\($n) \(.queue) rps_cpus \(.planned)"),
           (.xps[] | select(.now != null) | "\($n) \(.queue) xps_cpus \(.planned)")' "$1" |
        while read -r dev q file mask; do
            test "$(cat "$root/sys/class/net/$dev/queues/$q/$file")" = "$mask" || return 1
        done
}
plan() { "$vnumactl" irq plan --json --sysroot "$root" >"$1" 2>/dev/null; }

plan "$tmp/plan.json"
check "the plan moves the fixture's vectors (all on 0-11 before)" \
    jq -e '[.nics[].irqs[] | select(.planned != null and .planned != .now)] | length > 10' "$tmp/plan.json"
irq83=$(jq -r '.nics[].irqs[] | select(.irq == 83) | .planned' "$tmp/plan.json")

if ! vnumad_started "$S" "$log" --sysroot "$root"; then
    echo "# vnumad did not start:"; sed 's/^/#   /' "$log"; echo "1..0 # could not start"; exit 1
fi

check "at start: every vector and queue mask as vnumactl irq plan says" in_place "$tmp/plan.json"
check "at start: one log line for the placement" grep -q "NIC interrupts placed for the running VMs: .*irq 83: 0-11 -> $irq83" "$log"
check "at start: irqbalance's mode logged" grep -q "NIC interrupts: irqbalance not running" "$log"
check "at start: irq-managed lists the placed vectors" grep -q "^83 1$" "$tmp/state/irq-managed"

code=$(curl -s --unix-socket "$S" -o "$tmp/host" -w '%{http_code}' http://vnumad/v1/host)
check "GET /v1/host: 200" test "$code" = 200
check "GET /v1/host: three NICs, steered and in place, irqbalance off" \
    jq -e '(.nics | length == 3) and all(.nics[]; .steered and .state == "in-place") and .irqbalance.mode == "off" and
           (.nics[] | select(.name == "eth1") | .device_node == 1 and .rx_queues == 4 and .irqs == 9)' "$tmp/host"
curl -s --unix-socket "$S" -o "$tmp/metrics0" http://vnumad/metrics
check "metrics: eth1's nine vectors in place" grep -qx 'vnuma_nic_irqs{device="eth1",node="1",state="in-place"} 9' "$tmp/metrics0"
check "metrics: eth1 steered" grep -qx 'vnuma_nic_steered{device="eth1",node="1"} 1' "$tmp/metrics0"
check "metrics: irqbalance off" grep -qx 'vnuma_irqbalance_mode{mode="off"} 1' "$tmp/metrics0"

echo 0-11 >"$root/proc/irq/83/smp_affinity_list"
check "a hand change is put back within a sample" wait_for 3 irq_is 83 "$irq83"
check "the repair is logged with the value found and the one written" \
    wait_for 3 grep -q "NIC interrupts: drifted, put back: irq 83: 0-11 -> $irq83" "$log"
echo 0 >"$root/sys/class/net/eth1/queues/rx-1/rps_cpus"
check "a queue mask changed by hand is put back" \
    wait_for 3 file_is sys/class/net/eth1/queues/rx-1/rps_cpus "$(jq -r '.nics[] | select(.name == "eth1") | .rps[1].planned' "$tmp/plan.json")"
code=$(curl -s --unix-socket "$S" -o "$tmp/metrics" -w '%{http_code}' http://vnumad/metrics)
check "metrics: the repairs counted" grep -q '^vnuma_irq_repaired_total 2$' "$tmp/metrics"

# vm-b's dedicated cores move from 8-9 to 10-11: eth1 (its macvtap) moves off them
jq '(.domains[] | select(.name == "vm-b") | .cells[0].cpus) = "10-11" | .generation += 1' \
    "$tmp/state/ledger.json" >"$tmp/ledger.new" && mv "$tmp/ledger.new" "$tmp/state/ledger.json"
plan "$tmp/plan2.json"
check "the new placement gives eth1 another plan" \
    test "$(jq -c '.nics[] | select(.name == "eth1") | .cpus' "$tmp/plan.json")" != "$(jq -c '.nics[] | select(.name == "eth1") | .cpus' "$tmp/plan2.json")"
check "a placement that moved is applied within a sample" wait_for 3 in_place "$tmp/plan2.json"
check "and logged as a placement, not as drift" \
    test "$(grep -c "NIC interrupts placed for the running VMs" "$log")" = 2
# host_shows "CPUS STATE" [SOCKET]: GET /v1/host's eth1 has these planned CPUs and state
host_shows() {
    curl -s --unix-socket "${2:-$S}" -o "$tmp/host.json" http://vnumad/v1/host &&
        test "$(jq -r '.nics[] | select(.name == "eth1") | "\(.cpus) \(.state)"' "$tmp/host.json")" = "$1"
}
eth1_cpus2=$(jq -r '.nics[] | select(.name == "eth1") | .cpus' "$tmp/plan2.json")
check "GET /v1/host: eth1 on its new CPUs, in place" \
    wait_for 3 host_shows "$eth1_cpus2 in-place"

# irqbalance running without coordination: drift is left to it, said once
mkdir "$root/proc/4242"
echo irqbalance >"$root/proc/4242/comm"
printf '/usr/sbin/irqbalance\0--foreground\0' >"$root/proc/4242/cmdline"
check "irqbalance uncoordinated: said once" wait_for 3 grep -q "irqbalance running (pid 4242) without vnuma's policy script.*drift not repaired" "$log"
irq81=$(jq -r '.nics[].irqs[] | select(.irq == 81) | .planned' "$tmp/plan2.json")
echo 0-11 >"$root/proc/irq/81/smp_affinity_list"
sleep 2.5 # two samples
check "irqbalance uncoordinated: a changed affinity is not fought" irq_is 81 0-11
check "irqbalance uncoordinated: the mode is logged once" \
    test "$(grep -c "irqbalance running (pid 4242)" "$log")" = 1

# with vnuma's policy script it leaves vnuma's interrupts alone: repaired again
printf '/usr/sbin/irqbalance\0--foreground\0--policyscript=/usr/libexec/vnuma/vnuma-irqbalance-policy\0' \
    >"$root/proc/4242/cmdline"
check "irqbalance with vnuma's policy script: drift repaired again" wait_for 3 irq_is 81 "$irq81"

kill "$pid"; wait "$pid"; rc=$?; pid=
check "SIGTERM: exit 0" test "$rc" = 0
check "no warnings or criticals in the log" bash -c "! grep -Eq 'WARNING|CRITICAL' '$log'"
# a fixture topology is not this host: its CPUs are never written into /proc/irq
vnumad_started "$tmp/fixture.sock" "$tmp/fixture.log" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml"
check "a fixture topology: not steered, said once" \
    test "$(grep -c "NIC interrupts: not steered: the topology is a fixture" "$tmp/fixture.log")" = 1
kill "$pid"; wait "$pid"; pid=
# this host itself (no --sysroot, no --topology), steering off so nothing
# is written: its samples read this host's free memory under "/"
printf '[rebalance]\nauto = false\ninterval = 1\ndataplane_repair = false\n' >"$tmp/live.conf"
VNUMA_CONFIG=$tmp/live.conf vnumad_started "$tmp/live.sock" "$tmp/live.log"
sleep 2.5 # two samples
check "this host: alive after two samples" kill -0 "$pid"
check "this host: no warnings or criticals in the log" bash -c "! grep -Eq 'WARNING|CRITICAL' '$tmp/live.log'"
kill "$pid"; wait "$pid"; pid=

# Requests read no NIC file: with samples an hour apart (steering off)
# GET /v1/host shows what the start read, built anew only when the
# ledger's generation moves.  The copy is as the first daemon left it
# (plan2's values); this ledger still has vm-b on 8-9, so eth1 is off-plan.
cp -a "$data/irq/state" "$tmp/state3"
printf '[rebalance]\nauto = false\ninterval = 3600\n' >"$tmp/slow.conf"
VNUMA_CONFIG=$tmp/slow.conf VNUMA_STATE_DIR=$tmp/state3 vnumad_started "$tmp/slow.sock" "$tmp/slow.log" --sysroot "$root"
check "cached view: eth1 off its plan at start" \
    host_shows "$(jq -r '.nics[] | select(.name == "eth1") | .cpus' "$tmp/plan.json") off-plan" "$tmp/slow.sock"
jq '(.domains[] | select(.name == "vm-b") | .cells[0].cpus) = "10-11" | .generation += 1' \
    "$tmp/state3/ledger.json" >"$tmp/ledger.new" && mv "$tmp/ledger.new" "$tmp/state3/ledger.json"
check "cached view: a ledger rewrite shows at the next request, not the next sample" \
    host_shows "$eth1_cpus2 in-place" "$tmp/slow.sock"
echo 0-11 >"$root/proc/irq/83/smp_affinity_list"
check "cached view: a hand change waits for the next sample (no request reads /proc/irq)" \
    host_shows "$eth1_cpus2 in-place" "$tmp/slow.sock"
check "cached view: /metrics from the same view" \
    grep -qx 'vnuma_nic_irqs{device="eth1",node="1",state="in-place"} 9' <(curl -s --unix-socket "$tmp/slow.sock" http://vnumad/metrics)
kill "$pid"; wait "$pid"; pid=

[ "$failed" = 0 ] || { echo "# vnumad's log:"; sed 's/^/#   /' "$log"; }
tap_end
