#!/bin/bash
# test-domain-define.sh VNUMACTL: `vnumactl define` and `vnumactl place`
# against a real libvirtd (tests/integration/libvirt-env.sh starts it; no
# hook).  Exit 77 when this machine cannot run a libvirt daemon.
#
# Checks: define writes the placement into the definition libvirt keeps
# (pins, restrictive numatune, vnuma metadata; guest NUMA cells with
# distances on a 4-node topology); a defined-and-placed guest starts under
# TCG with its pins applied; place rewrites a defined domain, says it takes
# effect at the next start, and placing again changes nothing; a
# hand-written pin is refused without --force and replaced with it; an
# unplaceable domain gets exit 2 and a one-line reason.
set -uo pipefail

here=$(cd "$(dirname "$0")" && pwd)
root=$(cd "$here/../.." && pwd)

if [ "${1:-}" != --inner ]; then
    vnumactl=$(realpath "${1:?usage: $0 VNUMACTL}")
    exec "$here/libvirt-env.sh" run -- "$0" --inner "$vnumactl"
fi

vnumactl=$2
# no ledger or config of the host's own: a private, empty state
work=$(mktemp -d)
mkdir "$work/state"
: > "$work/vnuma.conf"
export VNUMA_STATE_DIR=$work/state VNUMA_CONFIG=$work/vnuma.conf
trap 'rm -rf "$work"' EXIT
failures=0
fail() { echo "FAIL: $*"; failures=$((failures + 1)); }
ok() { echo "ok: $*"; }
virsh_q() { timeout 60 virsh -c qemu:///system -q "$@"; }
four_nodes=(--topology "$root/tests/data/hwloc/hagrid.xml")

# domain_xml NAME MIB VCPUS [CPUTUNE]
domain_xml() {
    cat <<EOF
<domain type='qemu'>
  <name>$1</name>
  <memory unit='MiB'>$2</memory>
  <vcpu placement='static'>$3</vcpu>
  ${4:-}
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <features><acpi/></features>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
}

# 1. define on a 4-node topology (hagrid: 8 GiB nodes): 12 GiB needs two
#    guest cells on two nodes, so memory_mode auto writes strict (ACPI on:
#    without it the guest cannot see cells and vnuma interleaves instead);
#    the fill split levels the crowding of the nodes' 2 CPUs: cells of 2
#    and 2 vCPUs (6 GiB each), so 2 sockets of 2 cores (every cell whole
#    sockets)
domain_xml vnt-def-cells 12288 4 > "$work/cells.xml"
if out=$("$vnumactl" define "$work/cells.xml" "${four_nodes[@]}" 2>&1); then
    ok "define (4-node topology): $(echo "$out" | head -1)"
    xml=$(virsh_q dumpxml --inactive vnt-def-cells)
    for want in "<vnuma:placement" "<vcpupin vcpu='3'" "<emulatorpin" \
                "mode='strict'" "<memnode cellid='1'" "<sibling id='1'" \
                "<topology sockets='2' dies='1' cores='2'"; do
        grep -qF "$want" <<<"$xml" || fail "defined XML lacks $want"
    done
else
    fail "define vnt-def-cells: $out"
fi

# 2. place it again on the same host: the definition does not change
before=$(virsh_q dumpxml --inactive vnt-def-cells)
if out=$("$vnumactl" place vnt-def-cells "${four_nodes[@]}" 2>&1); then
    grep -q "Effective at its next start" <<<"$out" || fail "place did not say when: $out"
    after=$(virsh_q dumpxml --inactive vnt-def-cells)
    [ "$before" = "$after" ] && ok "place again: definition unchanged" \
        || fail "place again changed the definition: $(diff <(echo "$before") <(echo "$after") | head -5)"
else
    fail "place vnt-def-cells: $out"
fi

# 3. define on the live host and start it under TCG: the pins are applied
domain_xml vnt-def-live 128 2 > "$work/live.xml"
if out=$("$vnumactl" define "$work/live.xml" 2>&1); then
    ok "define (live host): $(echo "$out" | sed -n 2p)"
    if virsh_q start vnt-def-live >/dev/null 2>&1; then
        pins=$(virsh_q vcpupin vnt-def-live)
        want=$(virsh_q dumpxml --inactive vnt-def-live | sed -n "s/.*<vcpupin vcpu='0' cpuset='\([^']*\)'.*/\1/p")
        grep -Eq "^ *0 +$want *$" <<<"$pins" && ok "running guest pinned: vCPU 0 -> $want" \
            || fail "vCPU 0 not pinned to '$want': $pins"
        mode=$(virsh_q numatune vnt-def-live | awk '/numa_mode/ { print $3 }')
        [ "$mode" = restrictive ] && ok "running guest numatune restrictive" \
            || fail "numatune mode is '$mode'"
        # place on a running domain: next start, and it says so
        out=$("$vnumactl" place vnt-def-live 2>&1) && grep -q "it is running" <<<"$out" \
            && ok "place on a running domain: $(tail -1 <<<"$out")" || fail "place running: $out"
        virsh_q destroy vnt-def-live >/dev/null 2>&1
    else
        fail "start vnt-def-live: $(virsh_q start vnt-def-live 2>&1)"
    fi
else
    fail "define vnt-def-live: $out"
fi

# 3b. guest NUMA cells as vnuma writes them (memnodes, distances, topology)
#     start under QEMU: two user cells, both placed on this host's node(s)
cat > "$work/numa.xml" <<EOF
<domain type='qemu'>
  <name>vnt-def-numa</name>
  <memory unit='MiB'>256</memory>
  <vcpu placement='static'>2</vcpu>
  <os><type arch='x86_64' machine='pc'>hvm</type><boot dev='hd'/></os>
  <cpu>
    <numa>
      <cell id='0' cpus='0' memory='128' unit='MiB'/>
      <cell id='1' cpus='1' memory='128' unit='MiB'/>
    </numa>
  </cpu>
  <on_poweroff>destroy</on_poweroff>
  <devices>
    <emulator>/usr/bin/qemu-system-x86_64</emulator>
    <memballoon model='none'/>
  </devices>
</domain>
EOF
if out=$("$vnumactl" define "$work/numa.xml" 2>&1); then
    xml=$(virsh_q dumpxml --inactive vnt-def-numa)
    for want in "<memnode cellid='1' mode='restrictive'" "<sibling id='1' value=" \
                "<topology sockets='2' dies='1' cores='1' threads='1'/>"; do
        grep -qF "$want" <<<"$xml" || fail "vnt-def-numa lacks $want"
    done
    if virsh_q start vnt-def-numa >/dev/null 2>&1; then
        ok "two-cell guest with memnodes and distances starts under QEMU"
        virsh_q destroy vnt-def-numa >/dev/null 2>&1
    else
        fail "start vnt-def-numa: $(virsh_q start vnt-def-numa 2>&1)"
    fi
else
    fail "define vnt-def-numa: $out"
fi

# 4. a hand-written pin: refused, then replaced with --force
domain_xml vnt-def-pinned 128 2 "<cputune><vcpupin vcpu='0' cpuset='0'/></cputune>" > "$work/pinned.xml"
virsh_q define "$work/pinned.xml" >/dev/null || fail "virsh define vnt-def-pinned"
out=$("$vnumactl" place vnt-def-pinned "${four_nodes[@]}" 2>&1); rc=$?
if [ $rc = 1 ] && grep -q "hand-written" <<<"$out" && [ "$(wc -l <<<"$out")" = 1 ]; then
    ok "hand-written pin refused: $out"
else
    fail "hand-written pin: rc=$rc $out"
fi
# (here-strings, not pipes into grep -q: under pipefail the writer's
# SIGPIPE at an early match turns a match into a failure)
grep -q "vnuma:placement" <<<"$(virsh_q dumpxml --inactive vnt-def-pinned)" &&
    fail "refused place changed the definition"
"$vnumactl" place --force vnt-def-pinned "${four_nodes[@]}" >/dev/null 2>&1 \
    && grep -q "vnuma:placement" <<<"$(virsh_q dumpxml --inactive vnt-def-pinned)" \
    && ok "--force replaced the hand-written pin" || fail "place --force"

# 5. unplaceable: exit 2, one line of reason first
domain_xml vnt-def-huge 4194304 2 > "$work/huge.xml"
out=$("$vnumactl" define "$work/huge.xml" "${four_nodes[@]}" 2>&1); rc=$?
[ $rc = 2 ] && grep -q "no placement" <<<"$(head -1 <<<"$out")" \
    && ok "unplaceable: $(head -1 <<<"$out")" || fail "unplaceable: rc=$rc $out"
virsh_q dominfo vnt-def-huge >/dev/null 2>&1 && fail "unplaceable domain was defined"

# 6. a bad file: one line naming it
printf '<domain><name>x</name><vcpu>0</vcpu></domain>' > "$work/bad.xml"
out=$("$vnumactl" define "$work/bad.xml" 2>&1); rc=$?
[ $rc = 1 ] && [ "$(wc -l <<<"$out")" = 1 ] && grep -qF "$work/bad.xml" <<<"$out" && ok "bad domain: $out" || fail "bad domain: rc=$rc $out"

# 7. every golden output is accepted by the QEMU driver's define
#    (its validation is stricter than the schema's); undefined at once
for f in "$root"/tests/golden/*/expected.xml; do
    name=$(sed -n 's|.*<name>\(.*\)</name>.*|\1|p' "$f" | head -1)
    case=$(basename "$(dirname "$f")")
    if out=$(virsh_q define "$f" 2>&1); then
        ok "qemu driver defines golden $case"
        virsh_q undefine "$name" >/dev/null 2>&1
    elif grep -q "does not support virt type 'kvm'" <<<"$out" &&
        sed "0,/<domain type=[\"']kvm[\"']/s//<domain type='qemu'/" "$f" > "$work/golden.xml" &&
        out=$(virsh_q define "$work/golden.xml" 2>&1); then
        # a machine without /dev/kvm: the rest of the domain still checked
        ok "qemu driver defines golden $case (as type='qemu': no KVM on this machine)"
        virsh_q undefine "$name" >/dev/null 2>&1
    else
        fail "qemu driver rejects golden $case: $out"
    fi
done

# 8. libvirt's corpus through the QEMU driver: whatever it defines before
#    vnuma (renamed vnt-corpus), it defines after `define --dry-run --force`
corpus=${VN_CORPUS:-$root/../shared/corpus}/libvirt-domains
if [ -f "$corpus/INDEX.tsv" ]; then
    both=0 placed=0
    while IFS=$'\t' read -r file _ role _; do
        [ "$role" = input ] || continue
        out=$("$vnumactl" define --dry-run --force "${four_nodes[@]}" "$corpus/$file" 2>/dev/null) || continue
        placed=$((placed + 1))
        sed "s|<name>[^<]*</name>|<name>vnt-corpus</name>|" "$corpus/$file" > "$work/in.xml"
        sed "s|<name>[^<]*</name>|<name>vnt-corpus</name>|" <<<"$out" > "$work/out.xml"
        virsh_q define "$work/in.xml" >/dev/null 2>&1 || continue
        virsh_q undefine vnt-corpus >/dev/null 2>&1
        both=$((both + 1))
        if ! err=$(virsh_q define "$work/out.xml" 2>&1); then
            fail "corpus $file: the QEMU driver defines the input, not vnuma's output: $err"
        fi
        virsh_q undefine vnt-corpus >/dev/null 2>&1
    done < <(tail -n +2 "$corpus/INDEX.tsv")
    ok "corpus: $placed placed, $both defined by the QEMU driver before and after"
fi

# 9. the templates that fit this host start under TCG once placed (their
#    disks as sparse raw files; no network: the test daemon has none)
for t in web-2vcpu iothreads; do
    sed -e "s|type='qcow2'|type='raw'|" -e '/<interface/,/<\/interface>/d' \
        "$root/xml-templates/$t.xml" > "$work/$t.xml"
    imgs=$(sed -n "s|.*<source file='\([^']*\)'.*|\1|p" "$work/$t.xml")
    for img in $imgs; do mkdir -p "$(dirname "$img")"; truncate -s 64M "$img"; done
    name=$(sed -n 's|.*<name>\(.*\)</name>.*|\1|p' "$work/$t.xml" | head -1)
    out=$("$vnumactl" define "$work/$t.xml" 2>&1); rc=$?
    if [ $rc = 2 ]; then
        ok "template $t: not enough free on this host now, skipped ($(head -1 <<<"$out"))"
    elif [ $rc != 0 ]; then
        fail "define template $t: $out"
    elif ! err=$(virsh_q start "$name" 2>&1); then
        fail "template $t does not start: $err"
    else
        ok "template $t placed and started under TCG"
        virsh_q destroy "$name" >/dev/null 2>&1
    fi
    virsh_q undefine "$name" >/dev/null 2>&1
    rm -f $imgs
done

echo "$failures failure(s)"
[ $failures = 0 ]
