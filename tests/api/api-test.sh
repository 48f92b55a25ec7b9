#!/bin/bash
# api-test.sh VNUMAD -- the planning API's contract, against a real vnumad
# on a real unix socket (and loopback TCP), driven by curl.
#
# Every endpoint with good and bad requests, socket permissions, a 2 MiB
# body (413, declared and chunked), 404/405, reservations with a TTL and
# under 100 concurrent clients, /v1/domains from a replayed sysroot with a
# QEMU's numa_maps, /metrics, bearer tokens on TCP, SIGHUP reloading
# vnuma.conf (and refusing a broken one), bodies the JSON loader refuses
# (400,000 deep, a second value, a member twice), a corrupt ledger set
# aside and rebuilt, a second daemon on a live socket, SIGTERM; the
# monitoring kit (tools/monitoring) uses only exported metrics.  Output is TAP.  Exit 77 when curl or jq is
# missing.  VNUMAD_WRAPPER (e.g. "valgrind -q --error-exitcode=9") runs
# the daemons under a wrapper (tests/api/libsoup-3.2.supp names a known
# libsoup 3.2 leak for valgrind).
set -u
command -v curl >/dev/null && command -v jq >/dev/null || { echo "1..0 # SKIP needs curl and jq"; exit 77; }

vnumad=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=${VN_SOURCE_ROOT:?run through meson test}
data=${VN_TEST_DATA:-$src/tests/data}
tmp=$(mktemp -d) || exit 99
pids=()
cleanup() {
    for p in "${pids[@]}"; do kill "$p" 2>/dev/null; done
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
unset VNUMA_TOPOLOGY VNUMA_LIBVIRT_RUN_DIR
# vnumad's automatic rounds (on by default) only where a test turns them on:
# a round of its own would move what the other tests look at
printf '[rebalance]\nauto = false\n' >"$tmp/base.conf"
export VNUMA_CONFIG=$tmp/base.conf

. "$src/tests/api/tap.sh"

# start NAME SOCKET ARGS... : vnumad in the foreground, ready when the socket answers
start() {
    local name=$1 sock=$2; shift 2
    ${VNUMAD_WRAPPER:-} "$vnumad" --foreground --socket "$sock" "$@" 2>"$tmp/$name.log" &
    pids+=($!)
    eval "pid_$name=$!"
    for _ in $(seq 1 100); do
        curl -s --unix-socket "$sock" -o /dev/null http://vnumad/v1/host && return 0
        sleep 0.1
    done
    echo "# $name did not start:"; sed 's/^/#   /' "$tmp/$name.log"
    return 1
}

S=$tmp/api.sock
# req METHOD PATH [BODY] -> $code and $tmp/body
req() {
    local method=$1 path=$2 body=${3-}
    if [ $# -ge 3 ]; then
        code=$(curl -s --unix-socket "$S" -X "$method" -H 'Content-Type: application/json' \
               --data-binary "$body" -o "$tmp/body" -w '%{http_code}' "http://vnumad$path")
    else
        code=$(curl -s --unix-socket "$S" -X "$method" -o "$tmp/body" -w '%{http_code}' "http://vnumad$path")
    fi
}
# expect METHOD PATH BODY CODE [ERROR-SUBSTRING]
expect() {
    local what="$1 $2 ${3:0:60} -> $4${5:+ ($5)}"
    req "$1" "$2" "$3"
    if [ "$code" != "$4" ]; then nok "$what" "got $code: $(head -c 300 "$tmp/body")"; return; fi
    if [ -n "${5-}" ] && ! jq -e --arg s "$5" '.error | contains($s)' "$tmp/body" >/dev/null; then
        nok "$what" "error does not name '$5': $(head -c 300 "$tmp/body")"; return
    fi
    ok "$what"
}
jqb() { jq -e "$@" "$tmp/body" >/dev/null; }

export VNUMA_STATE_DIR=$tmp/state
start main "$S" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" || { echo "1..0 # could not start"; exit 1; }

# --- the socket -----------------------------------------------------------
check "socket is a socket" test -S "$S"
check "socket mode 0660" test "$(stat -c %a "$S")" = 660
if getent group libvirt >/dev/null && [ "$(id -u)" = 0 ]; then
    check "socket group libvirt" test "$(stat -c %G "$S")" = libvirt
fi
# another user (not in the socket's group) is refused by the socket's mode
if [ "$(id -u)" = 0 ] && command -v setpriv >/dev/null; then
    chmod o+x "$tmp"
    code=$(setpriv --reuid=65534 --regid=65534 --clear-groups \
           curl -s --unix-socket "$S" -o /dev/null -w '%{http_code}' http://vnumad/v1/host)
    check "socket: another user cannot connect (got ${code:-none})" test "$code" = 000
    chmod o-x "$tmp"
fi

# --- GET /v1/host ----------------------------------------------------------
req GET /v1/host
check "host: 200" test "$code" = 200
check "host: 8 nodes with capacity" jqb '(.nodes | length == 8) and (.nodes[0].free_for_vms_mib > 0) and .capacity.node_count == 8'
check "host: every node has a tier and its reason" jqb '[.nodes[] | (.tier == "dram") and (.tier_reason == "local memory of 8 CPUs") and (.access == [])] | all'

# --- POST /v1/plan -----------------------------------------------------------
req POST /v1/plan '{"vcpus": 4, "memory_mib": 4096}'
check "plan: 200" test "$code" = 200
check "plan: one cell with 4 vCPUs" jqb '(.placement.cells | length == 1) and .placement.cells[0].vcpus == "0-3" and (.reasons | length > 0)'
req POST /v1/plan '{"vcpus": 8, "memory_mib": 8192, "dedicated": true, "smt": "prefer", "iothreads": 2, "priority": "high", "cells": 2, "hugepages": 2048, "devices": [{"node": 1, "iothread": 1, "name": "nic"}], "explain": true}'
check "plan: every member accepted (409 no hugepages here)" test "$code" = 409
req POST /v1/plan '{"vcpus": 8, "memory_mib": 8192, "dedicated": true, "smt": "isolate", "iothreads": 2, "priority": "high", "cells": 2, "devices": [{"node": 1, "iothread": 1}], "explain": true}'
check "plan: dedicated 2-cell plan with candidates" jqb '(.placement.cells | length == 2) and .placement.dedicated and (.candidates | length > 0) and (.placement.iothreads | length == 2)'
xml=$(jq -Rs . "$src/xml-templates/web-2vcpu.xml")
req POST /v1/plan "{\"domain_xml\": $xml}"
check "plan: domain_xml -> 200" test "$code" = 200
check "plan: rewritten XML with cputune and vnuma metadata" jqb '(.xml | contains("<cputune>")) and (.xml | contains("vnuma:placement")) and (.placement.cells | length >= 1)'
expect POST /v1/plan '{"vcpus": 400, "memory_mib": 409600}' 409 "no placement"
check "plan: 409 has reasons" jqb '.reasons | length > 1'
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096' 400 "not JSON"
expect POST /v1/plan '[1, 2]' 400 "JSON object"
expect POST /v1/plan '' 400 "body"
expect POST /v1/plan '{"memory_mib": 4096}' 400 "vcpus"
expect POST /v1/plan '{"vcpus": 4}' 400 "memory_mib"
expect POST /v1/plan '{"vcpus": "4", "memory_mib": 4096}' 400 "vcpus"
expect POST /v1/plan '{"vcpus": 4.5, "memory_mib": 4096}' 400 "vcpus"
expect POST /v1/plan '{"vcpus": -1, "memory_mib": 4096}' 400 "vcpus"
expect POST /v1/plan '{"vcpus": 100000, "memory_mib": 4096}' 400 "vcpus"
# the request schema's vCPU limit (vn-request.h), named as --vcpus and <vcpu> name it
expect POST /v1/plan '{"vcpus": 8192, "memory_mib": 65536}' 400 "vcpus: must be an integer from 1 to 4096"
expect POST /v1/plan '{"vcpus": 4096, "memory_mib": 65536}' 409 "no placement for 4096 vCPUs"
xml8192=$(jq -Rs . "$data/domain/vcpus-8192.xml")
expect POST /v1/plan "{\"domain_xml\": $xml8192}" 400 "<vcpu>: must be from 1 to 4096"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": -5}' 400 "memory_mib"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 99999999999999}' 400 "memory_mib"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "dedicated": "yes"}' 400 "dedicated"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "smt": "isolate"}' 400 "smt"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "dedicated": true, "smt": "often"}' 400 "smt"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "hugepages": "4M"}' 400 "hugepages"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "iothreads": 1000}' 400 "iothreads"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "priority": "urgent"}' 400 "priority"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "cells": 8}' 400 "cells"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "tiers": "fast"}' 400 "tiers"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "memory": "spread"}' 400 "memory"
# tiers and interleave wishes: a guest tiers wish on this host without a slow
# tier is placed as off, with one warning; 20 GiB interleaved over two nodes
req POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "tiers": "guest"}'
check "plan tiers guest without a slow tier: placed, one warning" jqb '(.warnings | length == 1) and (.warnings[0] | test("no slow memory tier"))'
req POST /v1/plan '{"vcpus": 4, "memory_mib": 20480, "memory": "interleave"}'
check "plan memory interleave: two nodes, interleaved, no guest cells" jqb '.placement.interleave and (.placement.cells | length == 2)'
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "devices": {"node": 1}}' 400 "devices"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "devices": [{"iothread": 1}]}' 400 "devices[0]"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "devices": [{"node": 1, "bus": 3}]}' 400 "devices[0]"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "devices": [{"node": 99}]}' 400 "node 99"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "colour": "blue"}' 400 "colour"
# found by fuzz-api-request: a member name holding a newline is shown escaped, on one line
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "col\nour": "blue"}' 400 'col\nour: unknown member'
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "devices": [{"node": 1, "b\nus": 3}]}' 400 'devices[0]: unknown member "b\nus"'
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "ttl_s": 5}' 400 "ttl_s"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "force": true}' 400 "force"
expect POST /v1/plan "{\"domain_xml\": $xml, \"vcpus\": 2}" 400 "vcpus"
expect POST /v1/plan '{"domain_xml": "<domain>"}' 400 "domain_xml"
expect POST /v1/plan '{"domain_xml": 42}' 400 "domain_xml"
expect POST /v1/plan '{"domain_xml": "<!DOCTYPE d [<!ENTITY a \"aaaa\"><!ENTITY b \"&a;&a;\">]><domain>&b;</domain>"}' 400 ""
code=$(curl -s --unix-socket "$S" -H 'Content-Type: text/plain' -d '{"vcpus":1,"memory_mib":1}' -o "$tmp/body" -w '%{http_code}' http://vnumad/v1/plan)
check "plan: text/plain body -> 415" test "$code" = 415

# --- POST /v1/fit ------------------------------------------------------------
req POST /v1/fit '{"vcpus": 4, "memory_mib": 4096}'
check "fit: single node with a score" jqb '.fits and .single_node and .cells == 1 and .score > 0 and .score <= 100 and (.self_overcommitted | not)'
score1=$(jq .score "$tmp/body")
req POST /v1/fit '{"vcpus": 40, "memory_mib": 40960}'
check "fit: 3 cells, scores lower than a single node" jqb ".fits and (.single_node | not) and .cells > 1 and .score < $score1"
req POST /v1/fit '{"vcpus": 80, "memory_mib": 8192}'
check "fit: 80 vCPUs on 64 CPUs fit self-overcommitted (two a CPU on 5 of the 8-CPU nodes), score 0" jqb '.fits and .self_overcommitted and .score == 0 and .cells == 5'
req POST /v1/fit '{"vcpus": 400, "memory_mib": 409600}'
check "fit: no fit is 200 with fits false and reasons" jqb '(.fits | not) and .score == 0 and (.reasons | length > 1)'
expect POST /v1/fit '{"vcpus": 4, "memory_mib": 4096, "explain": true}' 400 "explain"
# distinct_nodes: each guest cell on a node of its own (Nova's rule)
req POST /v1/fit '{"vcpus": 4, "memory_mib": 4096, "cells": 2, "distinct_nodes": true}'
check "fit distinct_nodes: 2 cells on 2 different nodes" jqb '.fits and .cells == 2 and (.nodes | unique | length == 2)'
req POST /v1/fit '{"vcpus": 9, "memory_mib": 9216, "cells": 9, "distinct_nodes": true}'
check "fit distinct_nodes: 9 cells on an 8-node host do not fit" jqb '(.fits | not) and .score == 0'
req POST /v1/fit '{"vcpus": 9, "memory_mib": 9216, "cells": 9}'
check "fit without distinct_nodes: 9 cells share the 8 nodes" jqb '.fits and .cells == 9'
req POST /v1/fit '{"distinct_nodes": true, "cell_sizes": [{"vcpus": 2, "memory_mib": 1024}, {"vcpus": 1, "memory_mib": 512}]}'
check "fit distinct_nodes with cell_sizes: 2 nodes" jqb '.fits and (.nodes | unique | length == 2)'
expect POST /v1/fit '{"vcpus": 4, "memory_mib": 4096, "distinct_nodes": true}' 400 "distinct_nodes: only meaningful with"
expect POST /v1/plan '{"vcpus": 4, "memory_mib": 4096, "cells": 2, "distinct_nodes": 1}' 400 "distinct_nodes: must be true or false"

# --- cell_sizes: guest cells of their own sizes ----------------------------------
U='"cell_sizes": [{"vcpus": 6, "memory_mib": 13824}, {"vcpus": 2, "memory_mib": 4096}]'
req POST /v1/plan "{$U}"
check "plan cell_sizes: 200" test "$code" = 200
check "plan cell_sizes: each cell its own vCPUs and memory" \
    jqb '(.placement.cells | map([.vcpus, .memory_mib])) == [["0-5", 13824], ["6-7", 4096]]'
req POST /v1/plan "{\"vcpus\": 8, \"memory_mib\": 17920, \"cells\": 2, $U}"
check "plan cell_sizes: consistent vcpus, memory_mib and cells accepted" \
    jqb '(.placement.cells | map([.vcpus, .memory_mib])) == [["0-5", 13824], ["6-7", 4096]]'
req POST /v1/fit "{$U}"
check "fit cell_sizes: fits in 2 cells" jqb '.fits and .cells == 2'
C0='{"vcpus": 2, "memory_mib": 1024}'
expect POST /v1/plan '{"cell_sizes": {"vcpus": 2}}' 400 "cell_sizes: must be an array of 1 to 64"
expect POST /v1/plan '{"cell_sizes": []}' 400 "cell_sizes: must be an array of 1 to 64"
expect POST /v1/plan "$(jq -nc '{cell_sizes: [range(65) | {vcpus: 1, memory_mib: 64}]}')" 400 "cell_sizes: must be an array of 1 to 64"
expect POST /v1/plan "{\"cell_sizes\": [$C0, 7]}" 400 "cell_sizes[1]: must be an object"
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": 2, \"memory_mib\": 1024, \"node\": 1}]}" 400 'cell_sizes[1]: unknown member "node"'
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": 2}]}" 400 'cell_sizes[1]: "memory_mib" is required'
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"memory_mib\": 1024}]}" 400 'cell_sizes[1]: "vcpus" is required'
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": 2, \"memory_mib\": 0}]}" 400 "cell_sizes[1].memory_mib: must be an integer from 1 to 1073741824"
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": 2, \"memory_mib\": 1.5}]}" 400 "cell_sizes[1].memory_mib: must be an integer"
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": -1, \"memory_mib\": 1024}]}" 400 "cell_sizes[1].vcpus: must be an integer from 0 to 4096"
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": \"2\", \"memory_mib\": 1024}]}" 400 "cell_sizes[1].vcpus: must be an integer"
expect POST /v1/plan '{"cell_sizes": [{"vcpus": 0, "memory_mib": 1024}, {"vcpus": 0, "memory_mib": 512}]}' 400 "cell_sizes: no cell has vCPUs"
expect POST /v1/plan "{\"cell_sizes\": [$C0, {\"vcpus\": 4095, \"memory_mib\": 1024}]}" 400 "cell_sizes: the cells hold 4097 vCPUs"
expect POST /v1/plan "{\"vcpus\": 9, $U}" 400 "vcpus: 9, but cell_sizes hold 8 vCPUs"
expect POST /v1/plan "{\"memory_mib\": 1024, $U}" 400 "memory_mib: 1024, but cell_sizes hold 17920 MiB"
expect POST /v1/plan "{\"cells\": 3, $U}" 400 "cells: 3, but cell_sizes has 2 cells"
expect POST /v1/plan "{\"cells\": 0, $U}" 400 "cells: 0, but cell_sizes has 2 cells"
expect POST /v1/plan "{\"domain_xml\": $xml, $U}" 400 'cell_sizes: not allowed with "domain_xml"'
expect POST /v1/plan '{"hugepages": "2M", "cell_sizes": [{"vcpus": 2, "memory_mib": 3}, {"vcpus": 1, "memory_mib": 4}]}' 400 "hugepage size"
expect POST /v1/fit '{"cell_sizes": []}' 400 "cell_sizes"
expect POST /v1/reservations "{\"cell_sizes\": [$C0, {\"vcpus\": 2}]}" 400 'cell_sizes[1]: "memory_mib" is required'

# --- reservations ------------------------------------------------------------
req GET /v1/host
gen0=$(jq .generation "$tmp/body")
check "host: a generation" test "$gen0" -ge 0
req POST /v1/reservations '{"vcpus": 8, "memory_mib": 12288, "name": "vm-a", "ttl_s": 600}'
check "reserve: 201" test "$code" = 201
id_a=$(jq -r .id "$tmp/body")
node_a=$(jq -r '.placement.cells[0].node' "$tmp/body")
check "reserve: id, expiry, placement" jqb '(.id | test("^[0-9a-f-]{36}$")) and .expires > now and .name == "vm-a" and (.placement.cells | length == 1)'
check "reserve: in the ledger as reserved with expires" \
    jq -e --arg u "reservation:$id_a" '.domains[] | select(.uuid == $u) | .state == "reserved" and .expires > 0' "$tmp/state/ledger.json"
gen_before=$gen0
req GET /v1/host
check "reserve: the host's generation changed" jqb ".generation != $gen_before"
check "reserve: the host counts it" jqb ".nodes[] | select(.id == $node_a) | .load.committed_memory_mib >= 12288"
req POST /v1/plan '{"vcpus": 8, "memory_mib": 12288}'
check "reserve: the next plan avoids its node" jqb ".placement.cells[0].node != $node_a"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "name": "vm-a"}' 409 "vm-a"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "ttl_s": 0}' 400 "ttl_s"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "ttl_s": 1000000}' 400 "ttl_s"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "name": "a/b"}' 400 "name"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "name": 7}' 400 "name"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "name": "a\nb"}' 400 "control characters"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "uuid": "not-a-uuid"}' 400 "uuid: must be a UUID"
expect POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "uuid": "2a2a2a2a-0000-4000-8000-00000000002a", "name": "x"}' 400 "not both"
req POST /v1/reservations '{"vcpus": 1, "memory_mib": 512, "uuid": "2A2A2A2A-0000-4000-8000-00000000002A", "ttl_s": 60}'
check "reserve by uuid: held for the domain of that UUID (lower case)" jqb '.name == "2a2a2a2a-0000-4000-8000-00000000002a"'
id_u=$(jq -r .id "$tmp/body")
expect DELETE "/v1/reservations/$id_u" "" 204
expect POST /v1/reservations '{"vcpus": 400, "memory_mib": 409600}' 409 "no placement"
req GET /v1/reservations
check "reservations: listed" jqb --arg i "$id_a" '.reservations | map(.id) | index($i) != null'
expect DELETE /v1/reservations/not-an-id "" 400 "id"
req GET /v1/host
gen_held=$(jq .generation "$tmp/body")
expect DELETE "/v1/reservations/$id_a" "" 204
req GET /v1/host
check "release: the host's generation changed" jqb ".generation != $gen_held"
expect DELETE "/v1/reservations/$id_a" "" 404 "$id_a"
check "history: reserved and released lines for vm-a" \
    test "$(jq -r 'select(.vm == "vm-a" and .phase == "reservation") | .decision' "$tmp/state/history.log" | tr '\n' ' ')" = "reserved released "
check "reserve: gone from the ledger" jq -e --arg u "reservation:$id_a" '[.domains[] | select(.uuid == $u)] | length == 0' "$tmp/state/ledger.json"
req POST /v1/reservations '{"vcpus": 2, "memory_mib": 1024, "ttl_s": 1}'
id_b=$(jq -r .id "$tmp/body")
check "reserve: TTL 1 s -> 201" test "$code" = 201
sleep 2.1
req GET /v1/reservations
check "reserve: lapsed one not listed" jqb --arg i "$id_b" '.reservations | map(.id) | index($i) == null'
req POST /v1/reservations "{\"domain_xml\": $xml, \"ttl_s\": 60}"
check "reserve: from domain_xml, named after the domain, with xml" jqb '.name == "vnt-web" and (.xml | contains("vnuma:placement"))'
id_c=$(jq -r .id "$tmp/body")
check "history: the lapsed one" jq -se 'map(select(.decision == "lapsed")) | length == 1' "$tmp/state/history.log"
check "reserve: the lapsed one was reclaimed from the ledger" \
    jq -e --arg u "reservation:$id_b" '[.domains[] | select(.uuid == $u)] | length == 0' "$tmp/state/ledger.json"
expect DELETE "/v1/reservations/$id_c" "" 204
req POST /v1/reservations "{$U, \"name\": \"vm-u\", \"ttl_s\": 600}"
check "reserve cell_sizes: 201" test "$code" = 201
id_u=$(jq -r .id "$tmp/body")
check "reserve cell_sizes: in the ledger cell by cell, each its own size" \
    jq -e --arg u "reservation:$id_u" '.domains[] | select(.uuid == $u) | (.cells | map([.vcpus, .memory_kib])) == [[6, 14155776], [2, 4194304]]' "$tmp/state/ledger.json"
req GET /v1/reservations
check "reserve cell_sizes: listed with the cells' sums" \
    jqb --arg i "$id_u" '.reservations[] | select(.id == $i) | .vcpus == 8 and .memory_mib == 17920'
expect DELETE "/v1/reservations/$id_u" "" 204

# 100 concurrent clients: plans all answer, reservations never overcommit
for i in $(seq 1 100); do
    curl -s --unix-socket "$S" -H 'Content-Type: application/json' -d '{"vcpus": 2, "memory_mib": 2048}' \
         -o /dev/null -w '%{http_code}\n' http://vnumad/v1/plan >"$tmp/c$i" &
done
wait_clients() { for j in $(jobs -p); do case " ${pids[*]} " in *" $j "*) ;; *) wait "$j";; esac; done; }
wait_clients
check "100 concurrent plans: all 200" test "$(cat "$tmp"/c* | sort | uniq -c | tr -s ' ')" = " 100 200"
rm -f "$tmp"/c*
for i in $(seq 1 100); do
    curl -s --unix-socket "$S" -H 'Content-Type: application/json' -d '{"vcpus": 4, "memory_mib": 6144, "ttl_s": 600}' \
         -o /dev/null -w '%{http_code}\n' http://vnumad/v1/reservations >"$tmp/c$i" &
done
wait_clients
created=$(grep -c 201 "$tmp"/c* | awk -F: '{ s += $2 } END { print s }')
refused=$(grep -c 409 "$tmp"/c* | awk -F: '{ s += $2 } END { print s }')
check "100 concurrent reservations: each 201 or 409 ($created + $refused)" test $((created + refused)) = 100
check "100 concurrent reservations: ledger holds exactly the $created created" \
    test "$(jq '[.domains[] | select(.uuid | startswith("reservation:"))] | length' "$tmp/state/ledger.json")" = "$created"
sleep 0.3
fds=$(ls "/proc/$pid_main/fd" | wc -l)
check "200 closed client connections leave no descriptors behind ($fds open)" test "$fds" -lt 40
req GET /v1/host
check "100 concurrent reservations: no node over 95 % committed (headroom)" \
    jqb 'all(.nodes[]; .load.committed_memory_mib <= .memory_total_mib * 0.95 + 1)'

# --- limits, unknown paths, methods --------------------------------------------
head -c $((2 * 1024 * 1024)) /dev/zero | tr '\0' ' ' >"$tmp/big"
code=$(curl -s --unix-socket "$S" -H 'Content-Type: application/json' --data-binary @"$tmp/big" -o "$tmp/body" -w '%{http_code}' http://vnumad/v1/plan)
check "2 MiB body -> 413" test "$code" = 413
code=$(curl -s --unix-socket "$S" -H 'Content-Type: application/json' -H 'Transfer-Encoding: chunked' --data-binary @"$tmp/big" -o "$tmp/body" -w '%{http_code}' http://vnumad/v1/plan)
check "2 MiB chunked body -> 413" test "$code" = 413
head -c 50000000 /dev/zero | curl -s --unix-socket "$S" -H 'Content-Type: application/json' \
    -H 'Transfer-Encoding: chunked' --data-binary @- -o /dev/null http://vnumad/v1/plan
rss=$(awk '/^VmRSS/ { print $2 }' "/proc/$pid_main/status")
# a wrapper's own memory, or ASan's quarantine of freed chunks, would count
if [ -z "${VNUMAD_WRAPPER:-}" ] && ! ldd "$vnumad" 2>/dev/null | grep -q libasan; then
    check "50 MB chunked body: the daemon does not keep it (RSS $rss KiB)" test "$rss" -lt 40000
fi
expect GET /v1/nothing "" 404 "/v1/nothing"
expect GET /v2/plan "" 404 ""
expect GET /v1/plan "" 405 "POST"
expect DELETE /v1/host "" 405 "GET"
expect PUT /v1/reservations/x "" 405 "DELETE"
allow=$(curl -s --unix-socket "$S" -X GET -D - -o /dev/null http://vnumad/v1/fit | tr -d '\r' | sed -n 's/^Allow: //Ip')
check "405 carries Allow: POST" test "$allow" = POST

# --- bodies the JSON loader refuses (plugin/base/vn-json-parse.h) ------------------------
# json-glib alone recursed once per '[' (a stack overflow), took a second
# value and dropped it, and let the last of two same-named members win.
head -c 400000 /dev/zero | tr '\0' '[' >"$tmp/deep"
code=$(curl -s --unix-socket "$S" -H 'Content-Type: application/json' --data-binary @"$tmp/deep" -o "$tmp/body" -w '%{http_code}' http://vnumad/v1/plan)
check "400,000-deep body -> 400" test "$code" = 400
check "400,000-deep body: a JSON error naming the depth and where" \
    jqb '.error == "body: nesting deeper than 64 levels at byte offset 64"'
req GET /v1/host
check "400,000-deep body: vnumad still answers /v1/host" test "$code" = 200
req GET /v1/reservations
jq -c '.reservations | map(.id) | sort' "$tmp/body" >"$tmp/holds-before"
T='{"vcpus":2,"memory_mib":1024}{"x":1}'
expect POST /v1/plan "$T" 400 "body: trailing data after the JSON value at byte offset 29"
expect POST /v1/fit "$T" 400 "body: trailing data after the JSON value"
expect POST /v1/reservations "$T" 400 "body: trailing data after the JSON value"
expect POST /v1/reservations '{"vcpus":2,"memory_mib":1024,"name":"a","name":"b"}' 400 'body: member "name" given twice'
req GET /v1/reservations
check "trailing JSON, duplicate member: no hold recorded" \
    test "$(jq -c '.reservations | map(.id) | sort' "$tmp/body")" = "$(cat "$tmp/holds-before")"
expect POST /v1/plan '{"vcpus": 2, "memory_mib": 1024, "memory_mib": 999999}' 400 'body: member "memory_mib" given twice in one object'
expect POST /v1/fit '{"vcpus": 2, "memory_mib": 1024, "devices": [{"node": 1, "node": 2}]}' 400 'member "node" given twice'
expect POST /v1/plan '{"vcpus": 2, /* two */ "memory_mib": 1024}' 400 "unexpected character '/'"
expect POST /v1/plan "{'vcpus': 2, 'memory_mib': 1024}" 400 "unexpected character '''"
expect POST /v1/plan "$(printf '{"vcpus": 2, "memory_mib": 1024, "name": "\377"}')" 400 "invalid UTF-8 at byte offset"

# --- rebalance ----------------------------------------------------------------
expect POST '/v1/rebalance?dry_run=perhaps' "" 400 "dry_run"
req POST '/v1/rebalance?dry_run=true' ''
check "rebalance dry run: 200 with moves and notes" jqb '.dry_run and (.moves | type == "array") and (.notes | type == "array")'

# --- GET /v1/domains and /metrics on a replayed host with a running QEMU ----------
root=$tmp/sysroot
cp -r "$data/sysroot/two-node-busy" "$root"
mkdir -p "$root/run/libvirt/qemu" "$root/proc/4242"
echo 4242 >"$root/run/libvirt/qemu/vm1.pid"
cat >"$root/proc/4242/numa_maps" <<'EOF'
55d0c0a00000 default file=/usr/bin/qemu-system-x86_64 mapped=900 N0=900 kernelpagesize_kB=4
7f0000000000 default anon=786432 dirty=786432 N0=655360 N1=131072 kernelpagesize_kB=4
7f1000000000 default anon=1024 dirty=1024 active=0 N1=1024 kernelpagesize_kB=4
EOF
mkdir -p "$tmp/state2"
cat >"$tmp/state2/ledger.json" <<'EOF'
{"version": 1, "generation": 1, "domains": [
 {"uuid": "11111111-2222-3333-4444-555555555555", "name": "vm1", "state": "running",
  "needs_apply": false, "dedicated": false, "priority": "normal", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 0, "cpus": "0-3", "vcpus": 2, "memory_kib": 3145728}]},
 {"uuid": "33333333-2222-3333-4444-555555555555", "name": "vm3", "state": "running",
  "needs_apply": false, "dedicated": false, "priority": "normal", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 0, "cpus": "0-3", "vcpus": 4, "memory_kib": 5242880}]},
 {"uuid": "44444444-2222-3333-4444-555555555555", "name": "vm4", "state": "running",
  "needs_apply": false, "dedicated": false, "priority": "low", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 0, "cpus": "0-3", "vcpus": 4, "memory_kib": 5242880}]},
 {"uuid": "66666666-2222-3333-4444-555555555555", "name": "vm2", "state": "reserved",
  "needs_apply": false, "dedicated": false, "priority": "high", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 1, "cpus": "4-7", "vcpus": 2, "memory_kib": 1048576}]}]}
EOF
S2=$tmp/replay.sock
# a stand-in for `vnumactl rebalance --json`: echoes its arguments as a note
cat >"$tmp/fake-vnumactl" <<'EOF'
#!/bin/sh
echo "$*" >>"${0%/*}/fake-calls"
[ -e "${0%/*}/fake-fail" ] && { echo "cannot connect to qemu:///system" >&2; exit 1; }
sleep 0.5
printf '{"moves": [{"vm": "vm3", "cell": 0, "from": 0, "to": 1, "applied": true}], "notes": ["args: %s"]}\n' "$*"
echo "vm4: domain busy" >&2
exit 1
EOF
chmod +x "$tmp/fake-vnumactl"
VNUMA_VNUMACTL=$tmp/fake-vnumactl VNUMA_STATE_DIR=$tmp/state2 start replay "$S2" --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$root" ||
    nok "replayed daemon starts"
S_main=$S; S=$S2
req GET /v1/domains
check "domains: 200 with four records" jqb '.domains | length == 4'
check "domains: vm1 measured from numa_maps" \
    jqb '.domains[] | select(.name == "vm1") | .pid == 4242 and .memory_mib_by_node["0"] == 2564 and .memory_mib_by_node["1"] == 516 and .locality_percent == 83'
check "domains: vm2 without a pid file is unmeasured, saying why" \
    jqb '.domains[] | select(.name == "vm2") | .pid == null and .locality_percent == null and (.measure_error | contains("vm2.pid"))'
req GET /metrics
check "metrics: 200 text" test "$code" = 200
check "metrics: locality of vm1" grep -q '^vnuma_domain_locality_ratio{domain="vm1"} 0.83' "$tmp/body"
check "metrics: measured CPU busy per node" grep -q '^vnuma_node_cpu_busy_ratio{node="0"} 0\.' "$tmp/body"
check "metrics: numastat counters per node from the sysroot" \
    grep -q '^vnuma_node_numastat_pages_total{node="1",counter="numa_miss"} [0-9]' "$tmp/body"
check "metrics: committed memory per node" grep -q '^vnuma_node_committed_memory_bytes{node="1"} [1-9]' "$tmp/body"
# the operator kit's dashboard and alert rules ask only for these names
kit=$src/tools/monitoring
if out=$(python3 "$src/tests/api/check-monitoring.py" "$tmp/body" "$kit/vnuma-dashboard.json" "$kit/vnuma-alerts.yml" 2>&1); then
    ok "monitoring kit: every metric its dashboard and alert rules use is exported"
else
    nok "monitoring kit: every metric its dashboard and alert rules use is exported" "$out"
fi
req POST /v1/rebalance ''
check "rebalance dry run: node 0 is hot, one cell moves to node 1, nothing applied" \
    jqb '(.moves | length >= 1) and .moves[0].from == 0 and .moves[0].to == 1 and (.moves[0].applied | not) and (.moves[0].reason | length > 0)'
curl -s --unix-socket "$S" -X POST -o "$tmp/apply1" -w '%{http_code}' 'http://vnumad/v1/rebalance?dry_run=false' >"$tmp/apply1.code" &
sleep 0.2
req POST '/v1/rebalance?dry_run=false' ''
check "rebalance apply: a second round while one runs -> 409" test "$code" = 409
wait $!
check "rebalance apply: 200 from vnumactl's JSON" test "$(cat "$tmp/apply1.code")" = 200
check "rebalance apply: moves applied, vnumactl's stderr as errors, daemon's source options passed" \
    jq -e --arg r "$root" '(.dry_run | not) and .moves[0].applied and .errors == ["vm4: domain busy"] and
        (.notes[0] | contains("rebalance --json --synthetic")) and (.notes[0] | contains("--sysroot " + $r))' "$tmp/apply1"
touch "$tmp/fake-fail"
expect POST '/v1/rebalance?dry_run=false' "" 502 "cannot connect"
req GET /metrics
check "metrics: request counter" grep -q '^vnuma_api_requests_total{endpoint="/v1/domains",code="200"} 1$' "$tmp/body"
check "metrics: the move applied through the API counted" grep -q '^vnuma_rebalance_moves_total 1$' "$tmp/body"
check "metrics: paused requests counted once answered (200, 409, 502)" \
    test "$(grep -c '^vnuma_api_requests_total{endpoint="/v1/rebalance",code="\(200\|409\|502\)"} [1-9]' "$tmp/body")" = 3
S=$S_main
req GET /metrics
check "metrics: plan histogram counts the plans" grep -q '^vnuma_plan_duration_seconds_count [1-9][0-9][0-9]' "$tmp/body"
check "metrics: 413 and 404 counted" grep -q 'endpoint="/v1/plan",code="413"' "$tmp/body"
check "metrics: reservation events" grep -q '^vnuma_reservation_events_total{event="expired"} 1$' "$tmp/body"
check "metrics: no metric without the vnuma_ prefix" \
    test -z "$(grep -v '^#' "$tmp/body" | grep -v '^vnuma_')"

# --- one writer of a ledger record: odd KiB sizes, three outputs, one MiB rule -------
# Cells of 1 GiB + 511 KiB and 1 GiB + 512 KiB (and a hold of 512 MiB +
# 255 / + 513 KiB) tell rounding down, up and to the nearest apart; GET
# /v1/domains, GET /v1/reservations and `vnumactl reservations --json`
# must show the same figures, each the nearest MiB of the KiB beside it.
mkdir -p "$tmp/state6"
cat >"$tmp/state6/ledger.json" <<'EOF'
{"version": 1, "generation": 1, "domains": [
 {"uuid": "77777777-2222-3333-4444-555555555555", "name": "odd", "state": "running",
  "time": 1764451200, "cells": [{"id": 0, "node": 0, "cpus": "0-3", "vcpus": 2, "memory_kib": 1049087},
                                {"id": 1, "node": 1, "cpus": "4-7", "vcpus": 2, "memory_kib": 1049088}]},
 {"uuid": "reservation:88888888-2222-4333-8444-555555555555", "name": "odd-hold", "state": "reserved",
  "time": 1764451200, "expires": 4102444800,
  "cells": [{"id": 0, "node": 0, "cpus": "0-3", "vcpus": 1, "memory_kib": 524543},
            {"id": 1, "node": 1, "cpus": "4-7", "vcpus": 1, "memory_kib": 524801}]}]}
EOF
VNUMA_STATE_DIR=$tmp/state6 start odd "$tmp/odd.sock" --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" ||
    nok "odd-KiB daemon starts"
S_keep=$S; S=$tmp/odd.sock
req GET /v1/domains; cp "$tmp/body" "$tmp/odd-domains"
req GET /v1/reservations; cp "$tmp/body" "$tmp/odd-reservations"
S=$S_keep
"${VN_BUILD_ROOT:?}/tools/vnumactl" reservations --json --state-dir "$tmp/state6" >"$tmp/odd-cli" ||
    nok "vnumactl reservations --json on the odd-KiB ledger"
figs='def figs: {name, vcpus, memory_mib, memory_kib, cells: [.cells[] | {vcpus, memory_mib, memory_kib}]};'
all3=(--slurpfile d "$tmp/odd-domains" --slurpfile r "$tmp/odd-reservations" --slurpfile c "$tmp/odd-cli")
check "odd KiB: GET /v1/domains and vnumactl reservations --json agree on every MiB figure" \
    jq -en "${all3[@]}" "$figs"' ($d[0].domains | map(figs)) as $x | ($x | length) == 1 and
        $x == ($c[0].domains | map(select(.name == "odd") | figs))'
check "odd KiB: GET /v1/reservations and vnumactl reservations --json agree on every MiB figure" \
    jq -en "${all3[@]}" "$figs"' ($r[0].reservations | map(figs)) as $x | ($x | length) == 1 and
        $x == ($c[0].domains | map(select(.name == "odd-hold") | figs))'
check "odd KiB: every memory_mib of the three is its memory_kib to the nearest MiB, halves up" \
    jq -en "${all3[@]}" '[$d[0].domains[], $r[0].reservations[], $c[0].domains[] | ., .cells[] |
        .memory_mib == ((.memory_kib + 512) / 1024 | floor)] | length == 12 and all'
check "odd KiB: the figures (cells 1024 and 1025 MiB, 2049 in all; the hold 512, 513, 1025)" \
    jq -e '(.domains | map([.memory_mib, (.cells | map(.memory_mib))])) == [[2049, [1024, 1025]], [1025, [512, 513]]]' \
    "$tmp/odd-cli"
kill -TERM "$pid_odd"; wait "$pid_odd"

# --- the adaptive loop: [rebalance] auto applies once a node stays hot --------------
rm -f "$tmp/fake-fail" "$tmp/fake-calls"
mkdir -p "$tmp/state5"
cp "$tmp/state2/ledger.json" "$tmp/state5/"
printf '[rebalance]\nauto = true\ninterval = 1\nhot_intervals = 2\n' >"$tmp/auto.conf"
VNUMA_VNUMACTL=$tmp/fake-vnumactl VNUMA_STATE_DIR=$tmp/state5 start auto "$tmp/auto.sock" \
    --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$root" --config "$tmp/auto.conf"
for _ in $(seq 1 80); do grep -q moved "$tmp/state5/history.log" 2>/dev/null && break; sleep 0.1; done
check "auto rebalance: a round ran once node 0 stayed hot" test "$(wc -l <"$tmp/fake-calls")" -ge 1
check "auto rebalance: vnumactl rebalance ran with the daemon's sources" grep -q -- "rebalance --json --synthetic" "$tmp/fake-calls"
check "auto rebalance: the applied move in history.log" \
    jq -se 'map(select(.phase == "rebalance" and .decision == "moved" and .vm == "vm3")) | length >= 1' "$tmp/state5/history.log"
check "auto rebalance: logged" grep -q "rebalancing round: 1 move(s) applied" "$tmp/auto.log"
kill -TERM "$pid_auto"; wait "$pid_auto"
check "auto: clean exit" test $? = 0

# --- SIGHUP: vnuma.conf read again --------------------------------------------------
# reloads SOCKET RESULT COUNT: until /metrics counts COUNT reloads with RESULT
reloads() {
    for _ in $(seq 1 100); do
        curl -s --unix-socket "$1" http://vnumad/metrics |
            grep -qxF "vnuma_config_reloads_total{result=\"$2\"} $3" && return 0
        sleep 0.1
    done
    return 1
}
R=$tmp/reload.sock
printf '[rebalance]\nauto = false\n[host]\nheadroom_percent = 5\n' >"$tmp/reload.conf"
VNUMA_STATE_DIR=$tmp/state6 start reload "$R" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" \
    --config "$tmp/reload.conf" || nok "reload: daemon starts"
S_main=$S; S=$R
req POST /v1/plan '{"vcpus": 4, "memory_mib": 14000}'
check "reload: before, 14000 MiB fit one node (headroom 5 %)" jqb '.placement.cells | length == 1'
req GET /v1/host
check "reload: before, memory_mode auto" jqb '.memory_mode == "auto"'
free5=$(jq .capacity.largest_single_node_free_mib "$tmp/body")
printf '[rebalance]\nauto = false\n[host]\nheadroom_percent = 40\n[placement]\nmemory_mode = strict\n[api]\nsocket = %s\n' \
    "$tmp/elsewhere.sock" >"$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: SIGHUP counted as a reload in /metrics" reloads "$R" ok 1
req POST /v1/plan '{"vcpus": 4, "memory_mib": 14000}'
check "reload: the new headroom (40 %) is in effect: 14000 MiB now take 2 cells" jqb '.placement.cells | length == 2'
req GET /v1/host
check "reload: the new memory_mode is in effect" jqb '.memory_mode == "strict"'
check "reload: a node's free memory shrank with the headroom ($free5 MiB before)" \
    jqb ".capacity.largest_single_node_free_mib < $free5 * 0.7"
check "reload: one log line saying what changed" \
    test "$(grep -c "config reloaded from $tmp/reload.conf: \[host\] headroom_percent 5 -> 40, \[placement\] memory_mode auto -> strict; needs a restart, running value kept: \[api\] socket$" "$tmp/reload.log")" = 1
check "reload: [api] socket needs a restart: still on the old socket only" \
    test -S "$R" -a ! -e "$tmp/elsewhere.sock"
kill -HUP "$pid_reload"
check "reload: the same file again is counted" reloads "$R" ok 2
check "reload: the same file again is logged as unchanged" \
    grep -q "config reloaded from $tmp/reload.conf: unchanged; needs a restart, running value kept: \[api\] socket$" "$tmp/reload.log"
printf '[rebalance]\nauto = false\n[host]\nheadroom_percent = 40\n[placement]\nmemory_mode = strict\nbalance = memory-packing\n[api]\nsocket = %s\n' \
    "$tmp/elsewhere.sock" >"$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: a file changing only [placement] balance is counted" reloads "$R" ok 3
check "reload: a change of [placement] balance alone is logged as that change" \
    grep -q "config reloaded from $tmp/reload.conf: \[placement\] balance adaptive -> memory-packing; needs a restart, running value kept: \[api\] socket$" "$tmp/reload.log"
# a broken file: the running config stays whole, the daemon answers
printf '[rebalance]\nauto = false\n[host]\nheadroom_percent = 400\n[placement]\nmemory_mode = restrictive\n' >"$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: an invalid value is counted as failed" reloads "$R" failed 1
req POST /v1/plan '{"vcpus": 4, "memory_mib": 14000}'
check "reload: after an invalid file, the daemon answers with the old headroom (2 cells)" \
    jqb '.placement.cells | length == 2'
req GET /v1/host
check "reload: after an invalid file, the old memory_mode too (nothing half-applied)" jqb '.memory_mode == "strict"'
check "reload: one error line naming the file, the key and the problem" \
    test "$(grep -c "config reload failed, the running config stays in effect: $tmp/reload.conf: \[host\] headroom_percent: \"400\" is not a whole number" "$tmp/reload.log")" = 1
printf 'headroom_percent 7\n' >"$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: a file that is not a key file is counted as failed" reloads "$R" failed 2
check "reload: its error line names the file" \
    grep -q "config reload failed, the running config stays in effect: $tmp/reload.conf: .*headroom_percent 7" "$tmp/reload.log"
rm "$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: a missing file is counted as failed" reloads "$R" failed 3
req GET /metrics
check "metrics: the last reload failed" grep -qx 'vnuma_config_last_reload_successful 0' "$tmp/body"
req POST /v1/plan '{"vcpus": 4, "memory_mib": 14000}'
check "reload: the daemon still plans with the last good config" jqb '.placement.cells | length == 2'
printf '[rebalance]\nauto = false\n[host]\nheadroom_percent = 5\n' >"$tmp/reload.conf"
kill -HUP "$pid_reload"
check "reload: a good file again" reloads "$R" ok 4
req POST /v1/plan '{"vcpus": 4, "memory_mib": 14000}'
check "reload: back to headroom 5 %: one node again" jqb '.placement.cells | length == 1'
req GET /metrics
check "metrics: the last reload succeeded" grep -qx 'vnuma_config_last_reload_successful 1' "$tmp/body"
S=$S_main

# [rebalance] reloads too: a daemon sampling hourly without the loop gets
# auto = true, interval = 1, and applies a round within seconds (the timer
# is re-armed, the loop switched on)
rm -f "$tmp/fake-calls"
mkdir -p "$tmp/state7"
cp "$tmp/state2/ledger.json" "$tmp/state7/"
printf '[rebalance]\nauto = false\ninterval = 3600\n' >"$tmp/loop.conf"
VNUMA_VNUMACTL=$tmp/fake-vnumactl VNUMA_STATE_DIR=$tmp/state7 start loop "$tmp/loop.sock" \
    --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$root" --config "$tmp/loop.conf" ||
    nok "reload: loop daemon starts"
printf '[rebalance]\nauto = true\ninterval = 1\nhot_intervals = 1\n' >"$tmp/loop.conf"
kill -HUP "$pid_loop"
reloads "$tmp/loop.sock" ok 1
for _ in $(seq 1 80); do grep -q "rebalancing round" "$tmp/loop.log" && break; sleep 0.1; done
check "reload: [rebalance] auto and interval in effect: a round ran" grep -q -- "rebalance --json --synthetic" "$tmp/fake-calls"
check "reload: logged what changed in [rebalance]" \
    grep -q "\[rebalance\] auto false -> true, \[rebalance\] interval 3600 -> 1, \[rebalance\] hot_intervals 3 -> 1$" "$tmp/loop.log"

# --- drift repair: the data path put back on its VM's CPUs ------------------------
# Real processes, real affinities: `sleep`s stand in for a QEMU and for
# [dataplane] back-ends.  The fixture host maps CPU 0 and CPU 1 to nodes 0
# and 1; vmd is placed on node 1 (the last CPU this test may use), vmok on
# both CPUs with its back-end pinned narrower, to the last one, as a DPDK
# thread would be: in place, so it must stay exactly so.
# cpus_of PID: the Cpus_allowed_list of every thread of PID, one line each
cpus_of() { cat /proc/"$1"/task/*/status 2>/dev/null | awk '/^Cpus_allowed_list/ { print $2 }' | sort -u; }
# metric SOCKET NAME: its value in /metrics
metric() { curl -s --unix-socket "$1" http://vnumad/metrics | awk -v m="$2" '$1 == m { print $2 }'; }
# on_cpus PID CPUS: every thread of PID may run on CPUS exactly
on_cpus() { [ "$(cpus_of "$1")" = "$2" ]; }
# metric_ge SOCKET NAME N: the metric is at least N
metric_ge() { local v; v=$(metric "$1" "$2"); [ -n "$v" ] && [ "$v" -ge "$3" ]; }
# until_true TRIES CMD...: polls every 0.1 s
until_true() { local t=$1; shift; for _ in $(seq 1 "$t"); do "$@" && return 0; sleep 0.1; done; return 1; }
# spawn_sleep PIDFILE CPU: a sleep pinned to CPU, its pid in PIDFILE and in $spawned
spawn_sleep() { taskset -c "$2" sleep 600 & spawned=$!; pids+=("$spawned"); echo "$spawned" >"$1"; }
allowed=$(awk '/^Cpus_allowed_list/ { print $2 }' /proc/self/status)
lo=$(echo "$allowed" | tr ',' '\n' | head -1 | cut -d- -f1)
hi=$(echo "$allowed" | tr ',' '\n' | tail -1 | awk -F- '{ print $NF }')
if [ "$lo" = "$hi" ] || ! command -v taskset >/dev/null; then
    ok "drift repair # SKIP needs two CPUs and taskset"
else
    D=$tmp/drift.sock
    mkdir -p "$tmp/run" "$tmp/state8"
    spawn_sleep "$tmp/run/vmd.pid" "$lo"; qemu=$spawned
    cp "$tmp/run/vmd.pid" "$tmp/run/vmok.pid"
    spawn_sleep "$tmp/dp.pid" "$lo"; dp=$spawned
    spawn_sleep "$tmp/ok.pid" "$hi"; okp=$spawned
    cat >"$tmp/state8/ledger.json" <<LEDGER
{"version": 1, "generation": 1, "domains": [
 {"uuid": "77777777-2222-3333-4444-555555555555", "name": "vmd", "state": "running",
  "needs_apply": false, "dedicated": false, "priority": "normal", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 1, "cpus": "$hi", "vcpus": 1, "memory_kib": 1048576}]},
 {"uuid": "88888888-2222-3333-4444-555555555555", "name": "vmok", "state": "running",
  "needs_apply": false, "dedicated": false, "priority": "normal", "hugepage_kib": 0,
  "time": 1764451200, "cells": [{"id": 0, "node": 0, "cpus": "$lo-$hi", "vcpus": 1, "memory_kib": 1048576}]}]}
LEDGER
    drift_conf() {
        printf '[rebalance]\nauto = false\ninterval = 1\n%s[dataplane]\nvmd = pidfile:%s\nvmok = pidfile:%s\n' \
            "$1" "$tmp/dp.pid" "$tmp/ok.pid" >"$tmp/drift.conf"
    }
    drift_conf ""
    VNUMA_LIBVIRT_RUN_DIR=$tmp/run VNUMA_STATE_DIR=$tmp/state8 start drift "$D" \
        --synthetic "pack:2 numa:1(memory=4GiB) core:1 pu:1" --config "$tmp/drift.conf" ||
        nok "drift: daemon starts"
    # vmd's back-end was started off vmd's CPU (as if moved by hand)
    check "drift: a drifted back-end is put back on its VM's CPU $hi" until_true 60 on_cpus "$dp" "$hi"
    check "drift: one log line naming the VM, the process and old -> new CPUs" \
        test "$(grep -c "data path of vmd drifted, re-steered: data plane pidfile:$tmp/dp.pid: process $dp: 1 thread(s), CPUs $lo -> $hi" "$tmp/drift.log")" = 1
    check "drift: counted in /metrics" test "$(metric "$D" vnuma_dataplane_resteered_total)" = 1
    check "drift: the back-end in place keeps its narrower pinning" test "$(cpus_of "$okp")" = "$hi"
    check "drift: no line for the VM in place" test "$(grep -c 'vmok' "$tmp/drift.log")" = 0
    check "drift: the fake QEMU itself is not the data path" test "$(cpus_of "$qemu")" = "$lo"
    # the back-end restarts: a new pid, the wrong affinity
    kill "$dp"; spawn_sleep "$tmp/dp.pid" "$lo"; dp2=$spawned
    check "drift: a restarted back-end (new pid) is put back" until_true 60 on_cpus "$dp2" "$hi"
    check "drift: its line names the new pid" \
        until_true 20 grep -q "data path of vmd drifted, re-steered: data plane pidfile:$tmp/dp.pid: process $dp2: 1 thread(s), CPUs $lo -> $hi" "$tmp/drift.log"
    check "drift: counted again" test "$(metric "$D" vnuma_dataplane_resteered_total)" = 2
    check "drift: no failure so far" test "$(metric "$D" vnuma_dataplane_repair_failures_total)" = 0
    # the back-end is down (pid file gone): a failure on every sample, logged once
    kill "$dp2"; rm "$tmp/dp.pid"
    check "drift: a back-end down counts a failure on every sample" \
        until_true 80 metric_ge "$D" vnuma_dataplane_repair_failures_total 3
    check "drift: ... and is logged once" \
        test "$(grep -c "data path of vmd: drift not repaired: data plane pidfile:$tmp/dp.pid" "$tmp/drift.log")" = 1
    check "drift: 3 samples later, still nothing for the VM in place" \
        test "$(cpus_of "$okp")" = "$hi" -a "$(grep -c 'vmok' "$tmp/drift.log")" = 0 -a "$(metric "$D" vnuma_dataplane_resteered_total)" = 2
    spawn_sleep "$tmp/dp.pid" "$hi"; dp3=$spawned
    check "drift: back up in place: logged once as clear" \
        until_true 40 grep -q "data path of vmd: checked again without failure" "$tmp/drift.log"
    drift_conf "dataplane_repair = false"$'\n'
    kill -HUP "$pid_drift"
    check "drift: [rebalance] dataplane_repair reloads on SIGHUP" \
        until_true 40 grep -q "\[rebalance\] dataplane_repair true -> false$" "$tmp/drift.log"
    taskset -pc "$lo" "$dp3" >/dev/null
    failures=$(metric "$D" vnuma_dataplane_repair_failures_total)
    drift_conf ""
    kill -HUP "$pid_drift"
    check "drift: switched on again, it repairs again" until_true 60 on_cpus "$dp3" "$hi"
    check "drift: 3 re-steered in all, no failure since" \
        test "$(metric "$D" vnuma_dataplane_resteered_total)" = 3 -a "$(metric "$D" vnuma_dataplane_repair_failures_total)" = "$failures"
    kill "$qemu" "$okp" "$dp3"
fi

# --- a corrupt ledger: set aside, rebuilt from libvirt's status XML, logged ----------
mkdir -p "$tmp/state9" "$tmp/run9"
cp "$data/hook/run/vm-status.xml" "$tmp/run9/"
head -c 100000 /dev/zero | tr '\0' '[' >"$tmp/state9/ledger.json"
cp "$tmp/state9/ledger.json" "$tmp/deep-ledger"
VNUMA_LIBVIRT_RUN_DIR=$tmp/run9 VNUMA_STATE_DIR=$tmp/state9 start ledger "$tmp/ledger.sock" \
    --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" || nok "corrupt ledger: daemon starts"
S_main=$S; S=$tmp/ledger.sock
req GET /v1/host
check "corrupt ledger: /v1/host -> 200" test "$code" = 200
aside=$(ls "$tmp/state9" | grep '^ledger\.json\.corrupt-[0-9]*$')
check "corrupt ledger: set aside once as ledger.json.corrupt-<time> ($aside)" test "$(echo "$aside" | wc -w)" = 1
check "corrupt ledger: the set-aside file has the original bytes" cmp -s "$tmp/state9/$aside" "$tmp/deep-ledger"
check "corrupt ledger: rebuilt with the running domain of the status XML" \
    jq -e '[.domains[] | select(.name == "vm-status" and .state == "running")] | length == 1' "$tmp/state9/ledger.json"
check "corrupt ledger: one log line naming the file, the reason and the new name" \
    test "$(grep -cF "ledger unreadable, rebuilt it with 1 running domains: $tmp/state9/ledger.json: nesting deeper than 64 levels at byte offset 64; set aside as $tmp/state9/$aside" "$tmp/ledger.log")" = 1
printf '{"version":1,"generation":5,"domains":[],"domains":[]}' >"$tmp/state9/ledger.json"
expect POST /v1/reservations '{"vcpus": 2, "memory_mib": 1024, "ttl_s": 60}' 201
check "corrupt ledger (a member twice) under a reservation: set aside too, the hold recorded" \
    test "$(ls "$tmp/state9" | grep -c '^ledger\.json\.corrupt-')" = 2 -a \
         "$(jq '[.domains[] | select(.uuid | startswith("reservation:"))] | length' "$tmp/state9/ledger.json")" = 1
check "corrupt ledger (a member twice): logged naming the member" \
    grep -q 'ledger.json: member "domains" given twice in one object; set aside' "$tmp/ledger.log"
S=$S_main

# --- [placement] defragment = propose: POST /v1/plan answers the moves -------------
# The fixture ledger (tests/data/ledger/defrag) on its host, 4 nodes of
# 1 GiB: a 2-vCPU 512 MiB VM fits no node and is placed split over nodes
# 0 and 1; moving small0 from node 0 to node 3 would fit it on node 0
# (the arithmetic: tests/unit/test-engine-defrag.c).  Nothing moves.
mkdir -p "$tmp/state10"
cp "$data/ledger/defrag/ledger.json" "$tmp/state10/"
printf '[rebalance]\nauto = false\n[placement]\ndefragment = propose\n' >"$tmp/defrag.conf"
VNUMA_CONFIG=$tmp/defrag.conf VNUMA_STATE_DIR=$tmp/state10 start defrag "$tmp/defrag.sock" \
    --synthetic 'numa:4(memory=1GiB) core:2 pu:1' || nok "defragment: daemon starts"
S_main=$S; S=$tmp/defrag.sock
defrag_moves='{"mode": "propose", "moves": [{"vm": "small0", "cell": 0, "from": 0, "to": 3, "vcpus": 1, "memory_mib": 128}], "node": 0, "placed_after_moves": false}'
expect POST /v1/plan '{"vcpus": 2, "memory_mib": 512}' 200
check "defragment = propose: placed split over nodes 0,1" jqb '[.placement.cells[].node] == [0, 1]'
check "defragment = propose: the move of small0 node 0 -> 3 that fits it on node 0" \
    jqb --argjson d "$defrag_moves" '.defragment == $d'
req POST /v1/plan "$(jq -n --rawfile x "$data/domain/split-512m.xml" '{domain_xml: $x}')"
check "defragment = propose, domain_xml: 200, split XML and the same move" \
    jqb --argjson d "$defrag_moves" '.defragment == $d and (.xml | contains("nodeset=\u00270-1\u0027"))'
expect POST /v1/plan '{"vcpus": 1, "memory_mib": 128}' 200
check "defragment = propose: a VM that fits one node gets no defragment member" jqb 'has("defragment") | not'
expect POST /v1/fit '{"vcpus": 2, "memory_mib": 512}' 200
check "defragment: /v1/fit is not defragmented" jqb '.single_node == false and (has("defragment") | not)'
check "defragment = propose: nothing moved (ledger.json as given)" \
    cmp -s "$tmp/state10/ledger.json" "$data/ledger/defrag/ledger.json"
S=$S_main

# --- TCP with a bearer token -----------------------------------------------------
token=0123456789abcdef-test-token
for attempt in 1 2 3; do
    port=$(shuf -i 20000-60000 -n 1)
    printf '[rebalance]\nauto = false\n[api]\ntcp_listen = 127.0.0.1:%s\nbearer_token = %s\n' "$port" "$token" >"$tmp/tcp.conf"
    VNUMA_STATE_DIR=$tmp/state3 start tcp$attempt "$tmp/tcp.sock" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" \
        --config "$tmp/tcp.conf" && break
done
tcp() { curl -s -o /dev/null -w '%{http_code}' "$@" "http://127.0.0.1:$port/v1/host"; }
check "tcp: no token -> 401" test "$(tcp)" = 401
check "tcp: wrong token -> 401" test "$(tcp -H 'Authorization: Bearer 0123456789abcdef-test-tokex')" = 401
code=$(curl -s -o /dev/null -w '%{http_code}' -H 'Content-Type: application/json' --data-binary @"$tmp/big" \
       "http://127.0.0.1:$port/v1/plan")
check "tcp: no token with a 2 MiB body -> 401 before the body is read" test "$code" = 401
check "tcp: token -> 200" test "$(tcp -H "Authorization: Bearer $token")" = 200
check "tcp: the unix socket needs no token" \
    test "$(curl -s --unix-socket "$tmp/tcp.sock" -o /dev/null -w '%{http_code}' http://vnumad/v1/host)" = 200
# SIGHUP rotates the token on the same listener; a new tcp_listen waits
# for a restart, and so does its token
token2=fedcba9876543210-new-token
printf '[rebalance]\nauto = false\n[api]\ntcp_listen = 127.0.0.1:%s\nbearer_token = %s\n' "$port" "$token2" >"$tmp/tcp.conf"
eval "kill -HUP \$pid_tcp$attempt"
reloads "$tmp/tcp.sock" ok 1
check "tcp reload: the new token -> 200" test "$(tcp -H "Authorization: Bearer $token2")" = 200
check "tcp reload: the old token -> 401" test "$(tcp -H "Authorization: Bearer $token")" = 401
check "tcp reload: the token is not logged" \
    test "$(grep -c "bearer_token changed" "$tmp/tcp$attempt.log")" = 1 -a "$(grep -c -- "$token2" "$tmp/tcp$attempt.log")" = 0
printf '[rebalance]\nauto = false\n[api]\ntcp_listen = 127.0.0.1:%s\nbearer_token = %s\n' "$((port + 1))" "$token" >"$tmp/tcp.conf"
eval "kill -HUP \$pid_tcp$attempt"
reloads "$tmp/tcp.sock" ok 2
check "tcp reload: a new tcp_listen needs a restart, and keeps the running token" \
    test "$(tcp -H "Authorization: Bearer $token2")" = 200
check "tcp reload: logged as needing a restart" \
    grep -q "unchanged; needs a restart, running value kept: \[api\] tcp_listen, \[api\] bearer_token$" "$tmp/tcp$attempt.log"
printf '[rebalance]\nauto = false\n[api]\ntcp_listen = 127.0.0.1:%s\n' "$port" >"$tmp/notoken.conf"
"$vnumad" --foreground --socket "$tmp/x.sock" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" \
    --config "$tmp/notoken.conf" 2>"$tmp/err"
check "tcp without a token: refused at start, naming the key" grep -q 'bearer_token' "$tmp/err"

# --- start-up errors --------------------------------------------------------------
"$vnumad" --foreground --socket "$S" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" 2>"$tmp/err"
check "second daemon on a live socket: exit 1" test $? = 1
check "second daemon: says another daemon listens" grep -q 'another daemon' "$tmp/err"
touch "$tmp/plainfile"
"$vnumad" --foreground --socket "$tmp/plainfile" --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" 2>"$tmp/err"
check "socket path on a regular file: refused, file kept" test $? = 1 -a -f "$tmp/plainfile"
"$vnumad" --socket "$tmp/y.sock" --topology "$tmp/no-such.xml" 2>"$tmp/err"
check "detached start with a bad topology: exit 1 with one line" test $? = 1 -a "$(wc -l <"$tmp/err")" = 1
# a topology file that crashes hwloc 2.9 is imported in a
# child; the daemon refuses to start with one line and does not crash
crash=$data/hwloc-crash/pu-without-complete-cpuset.xml
"$vnumad" --foreground --socket "$tmp/crash.sock" --topology "$crash" 2>"$tmp/err"
check "topology that crashes hwloc: exit 1" test $? = 1
check "topology that crashes hwloc: one line naming the file" \
    test "$(cat "$tmp/err")" = "vnumad: $crash: hwloc crashed reading it (signal 11)"
check "topology that crashes hwloc: no socket left" test ! -e "$tmp/crash.sock"
# --sysroot alone is the captured host, topology included
VNUMA_STATE_DIR=$tmp/state5 start capture "$tmp/capture.sock" --sysroot "$data/sysroot/16amd64-8n2c" ||
    nok "daemon on a captured 8-node host starts"
S_saved=$S; S=$tmp/capture.sock
req GET /v1/host
check "--sysroot alone: 8 nodes of 8 GiB from the capture, with its free memory" \
    jqb '(.nodes | length == 8) and ([.nodes[].memory_total_mib] | min >= 8190) and .nodes[0].memory_free_mib == 6734 and (.source | startswith("sysroot "))'
check "--sysroot alone: CPU busy since boot from its proc/stat" jqb '[.nodes[].load.cpu_busy] | all(. != null)'
S=$S_saved
kill "$pid_capture"
"$vnumad" --foreground --socket "$tmp/nocpu.sock" --sysroot "$data/sysroot/no-cpu-topology" 2>"$tmp/err"
check "--sysroot hwloc cannot read: exit 1, one line naming the file" \
    test $? = 1 -a "$(wc -l <"$tmp/err")" = 1 -a -n "$(grep -F 'cpu0/topology: none of' "$tmp/err")"
"$vnumad" --bogus 2>"$tmp/err"
check "unknown option: exit 1" test $? = 1
# detached: the parent returns once the child listens
(cd "$tmp" && VNUMA_STATE_DIR=$tmp/state4 "$vnumad" --socket detached.sock \
    --topology "$data/hwloc/64amd64-4p2n4ca2co.xml" 2>"$tmp/err")
check "detached start: exit 0, socket ready at once (relative path)" test $? = 0 -a -S "$tmp/detached.sock"
check "detached: answers" \
    test "$(curl -s --unix-socket "$tmp/detached.sock" -o /dev/null -w '%{http_code}' http://vnumad/v1/host)" = 200
if command -v ss >/dev/null; then
    dpid=$(ss -xlpn | grep -F "$tmp/detached.sock" | grep -o 'pid=[0-9]*' | head -1 | cut -d= -f2)
    if [ -n "$dpid" ]; then
        check "detached: in its own session" test "$(ps -o sid= -p "$dpid" | tr -d ' ')" = "$dpid"
        kill -TERM "$dpid"
        for _ in $(seq 1 50); do [ -e "$tmp/detached.sock" ] || break; sleep 0.1; done
        check "detached: SIGTERM removes the socket" test ! -e "$tmp/detached.sock"
    fi
fi

# --- SIGTERM ------------------------------------------------------------------------
kill -TERM "$pid_main"
wait "$pid_main"
check "SIGTERM: exit 0" test $? = 0
check "SIGTERM: socket removed" test ! -e "$S"
# the others too: under VNUMAD_WRAPPER (valgrind, ASan) a leak or a memory
# error shows as a non-zero exit here
for name in replay reload loop ledger defrag tcp$attempt ${pid_drift:+drift}; do
    eval "p=\$pid_$name"
    kill -TERM "$p"
    wait "$p"
    st=$?
    if [ "$st" = 0 ]; then ok "$name: clean exit"; else nok "$name: clean exit" "exit $st" "$(tail -5 "$tmp/$name.log")"; fi
done

tap_end
