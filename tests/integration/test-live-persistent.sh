#!/bin/bash
# test-live-persistent.sh VNUMACTL: a VM's persistent definition follows
# its live moves, against a real libvirtd with TCG guests (no hook: the
# ledger records are written here as the hook or a move writes them).
# Exit 77 when this machine cannot run a libvirt daemon, has fewer than two
# CPUs, or lacks jq or lstopo.
#
# The host is a two-node stand-in ($VNUMA_TOPOLOGY, an hwloc synthetic
# topology: node 0 = CPU 0, node 1 = CPU 1, as this machine's CPUs, so the
# live pins work; node 1 is not this machine's, so the memory nodeset
# stays and the apply says so).  Each guest starts on node 0, then its
# ledger record is moved to node 1 and `vnumactl apply` applies it live:
# 1. defined by `vnumactl define`: `virsh dumpxml --inactive` names node 1
#    and CPU 1 (vcpupin, emulatorpin, numatune, vnuma metadata); applying
#    again leaves it byte-identical;
# 2. defined by virsh without a vnuma placement: the persistent XML is
#    byte-identical after the move (the hook places it at each start);
# 3. a vnuma placement next to another manager's emulatorpin: left as it
#    is, one warning line naming the domain, the apply still succeeds;
# 4. a transient guest: the apply succeeds, no definition appears.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)

command -v jq >/dev/null && command -v lstopo-no-graphics >/dev/null ||
    { echo "skip: needs jq and lstopo-no-graphics"; exit 77; }
[ "$(nproc)" -ge 2 ] || { echo "skip: needs two CPUs"; exit 77; }

if [ "${1:-}" != --inner ]; then
    vnumactl=$(realpath "${1:?usage: $0 VNUMACTL}")
    exec "$here/libvirt-env.sh" run -- "$0" --inner "$vnumactl"
fi

vnumactl=$2
work=$(mktemp -d)
mkdir "$work/state"
: > "$work/vnuma.conf"
lstopo-no-graphics --input "numa:2(memory=1GiB) core:1 pu:1" --of xml "$work/two.xml" ||
    { echo "lstopo cannot write the two-node topology"; exit 1; }
export VNUMA_STATE_DIR=$work/state VNUMA_CONFIG=$work/vnuma.conf VNUMA_TOPOLOGY=$work/two.xml
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
virsh_q() { timeout 60 virsh -c qemu:///system -q "$@"; }
# (libvirt writes the metadata with double quotes, the rest with single
# ones: the checks read one style)
inactive() { virsh_q dumpxml --inactive "$1" | tr '"' "'"; }
has() {  # NAME WHAT TEXT...: each TEXT in WHAT, else FAIL
    local name=$1 what=$2; shift 2
    for want in "$@"; do
        grep -qF "$want" <<<"$what" || { fail "$name lacks $want"; return 1; }
    done
    ok "$name: $*"
}

# domain_xml NAME [EXTRA]: 1 vCPU, 64 MiB, ACPI
domain_xml() {
    cat <<XML
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>64</memory>
  <vcpu placement='static'>1</vcpu>
  ${2:-}
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <memballoon model='none'/>
  </devices>
</domain>
XML
}

# record NAME NODE CPUS: the running guest's ledger record, on NODE, to
# apply (as a move or the hook leaves it: needs_apply)
record() {
    local uuid now
    uuid=$(virsh_q domuuid "$1") || { fail "no uuid for $1"; return 1; }
    now=$(date +%s)
    [ -f "$work/state/ledger.json" ] || echo '{"version": 1, "generation": 1, "domains": []}' \
        > "$work/state/ledger.json"
    jq --arg u "$uuid" --arg n "$1" --argjson node "$2" --arg cpus "$3" --argjson now "$now" \
        '.domains = [.domains[] | select(.name != $n)] + [{"uuid": $u, "name": $n,
         "state": "running", "needs_apply": true, "time": $now,
         "cells": [{"id": 0, "node": $node, "cpus": $cpus, "vcpus": 1, "memory_kib": 65536}]}]' \
        "$work/state/ledger.json" > "$work/state/edit.tmp" &&
        mv "$work/state/edit.tmp" "$work/state/ledger.json"
}

# apply NAME: `vnumactl apply`, stdout in $out, stderr in $err, status in $rc
apply() {
    "$vnumactl" apply --timeout 30 "$1" > "$work/out" 2> "$work/err"
    rc=$?
    out=$(cat "$work/out") err=$(cat "$work/err")
}

start() {  # NAME: started, else FAIL
    virsh_q start "$1" >/dev/null 2>&1 && return 0
    fail "start $1: $(virsh_q start "$1" 2>&1)"
    return 1
}

# --- 1. a placement vnuma recorded follows the move ------------------------
domain_xml vnt-follow > "$work/follow.xml"
if out=$("$vnumactl" define "$work/follow.xml" 2>&1); then
    has "defined on node 0" "$(inactive vnt-follow)" "<vnuma:cell id='0' node='0'" \
        "<vcpupin vcpu='0' cpuset='0'/>" "nodeset='0'"
    if start vnt-follow && record vnt-follow 1 1; then
        apply vnt-follow
        [ $rc = 0 ] && ok "apply: $(tail -1 <<<"$out")" || fail "apply vnt-follow: rc=$rc $err"
        grep -q "vnt-follow: persistent definition rewritten: node(s) 1" <<<"$out" &&
            ok "apply says the definition was rewritten" || fail "apply output: $out"
        grep -q "warning" <<<"$err" && fail "apply warned: $err"
        live=$(virsh_q vcpupin vnt-follow --live | awk '$1 == 0 { print $2 }')
        [ "$live" = 1 ] && ok "running guest: vCPU 0 on CPU 1" || fail "live vCPU 0 on '$live'"
        xml=$(inactive vnt-follow)
        has "persistent definition after the move" "$xml" \
            "<vnuma:cell id='0' node='1' vcpus='0' cpus='1' memory-kib='65536'/>" \
            "<vnuma:emulator cpus='1'/>" "<vcpupin vcpu='0' cpuset='1'/>" \
            "<emulatorpin cpuset='1'/>" "<memory mode='restrictive' nodeset='1'/>"
        grep -qF "node='0'" <<<"$xml" && fail "persistent definition still names node 0"
        # applied again (as vnumad's re-apply would): nothing to rewrite
        record vnt-follow 1 1
        apply vnt-follow
        after=$(inactive vnt-follow)
        [ $rc = 0 ] && [ "$xml" = "$after" ] && grep -q "records node(s) 1 already" <<<"$out" &&
            ok "applied again: definition byte-identical" ||
            fail "applied again: rc=$rc $(diff <(echo "$xml") <(echo "$after") | head -5) $out"
        virsh_q destroy vnt-follow >/dev/null 2>&1
    fi
else
    fail "define vnt-follow: $out"
fi

# --- 2. no vnuma placement recorded: left alone, byte for byte -------------
domain_xml vnt-follow-plain > "$work/plain.xml"
virsh_q define "$work/plain.xml" >/dev/null || fail "virsh define vnt-follow-plain"
before=$(inactive vnt-follow-plain)
if start vnt-follow-plain && record vnt-follow-plain 1 1; then
    apply vnt-follow-plain
    after=$(inactive vnt-follow-plain)
    [ $rc = 0 ] && ok "apply vnt-follow-plain: $(tail -1 <<<"$out")" || fail "apply plain: rc=$rc $err"
    [ "$before" = "$after" ] && ok "no vnuma placement: persistent XML byte-identical" ||
        fail "plain definition changed: $(diff <(echo "$before") <(echo "$after") | head -5)"
    grep -q "left alone: it records no vnuma placement" <<<"$out" &&
        ok "apply says it left the definition alone" || fail "plain apply output: $out"
    virsh_q destroy vnt-follow-plain >/dev/null 2>&1
fi

# --- 3. another manager's pin next to vnuma's placement: kept, warned ------
domain_xml vnt-follow-foreign > "$work/foreign.xml"
if out=$("$vnumactl" define --dry-run "$work/foreign.xml" 2>&1); then
    # the emulator pinned by hand over both CPUs: vnuma recorded CPU 0
    sed "s|<emulatorpin cpuset='0'/>|<emulatorpin cpuset='0-1'/>|" <<<"$out" > "$work/foreign-pinned.xml"
    virsh_q define "$work/foreign-pinned.xml" >/dev/null || fail "virsh define vnt-follow-foreign"
    before=$(inactive vnt-follow-foreign)
    grep -qF "<emulatorpin cpuset='0-1'/>" <<<"$before" || fail "foreign pin not defined"
    if start vnt-follow-foreign && record vnt-follow-foreign 1 1; then
        apply vnt-follow-foreign
        after=$(inactive vnt-follow-foreign)
        [ $rc = 0 ] && ok "apply with a foreign pin succeeds: $(tail -1 <<<"$out")" ||
            fail "apply foreign: rc=$rc $err"
        [ "$before" = "$after" ] && ok "foreign pin: persistent XML byte-identical" ||
            fail "foreign definition changed: $(diff <(echo "$before") <(echo "$after") | head -5)"
        warn=$(grep "warning: persistent definition of vnt-follow-foreign not updated" <<<"$err")
        [ "$(grep -c . <<<"$warn")" = 1 ] && grep -q "emulatorpin.*hand-written" <<<"$warn" &&
            ok "one warning line: $warn" || fail "foreign warning: $err"
        grep -q "placement applied on node(s) 1 (its persistent definition not updated)" <<<"$out" &&
            ok "the summary says so" || fail "foreign summary: $out"
        virsh_q destroy vnt-follow-foreign >/dev/null 2>&1
    fi
else
    fail "define --dry-run vnt-follow-foreign: $out"
fi

# --- 4. a transient guest: nothing persistent to follow --------------------
if out=$("$vnumactl" define --dry-run "$work/follow.xml" 2>&1); then
    sed "s|<name>vnt-follow</name>|<name>vnt-follow-transient</name>|" <<<"$out" > "$work/transient.xml"
    if virsh_q create "$work/transient.xml" >/dev/null 2>&1 && record vnt-follow-transient 1 1; then
        apply vnt-follow-transient
        [ $rc = 0 ] && grep -q "transient domain: no persistent definition" <<<"$out" &&
            ok "transient guest: applied, nothing persistent" || fail "transient: rc=$rc $out $err"
        grep -q "^Persistent: *no" <<<"$(virsh_q dominfo vnt-follow-transient)" &&
            ok "transient guest stays transient" || fail "transient guest became persistent"
        virsh_q destroy vnt-follow-transient >/dev/null 2>&1
    else
        fail "create vnt-follow-transient: $(virsh_q create "$work/transient.xml" 2>&1)"
    fi
fi

echo "$failures failure(s)"
[ $failures = 0 ]
