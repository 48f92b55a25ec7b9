#!/bin/bash
# make bench: the planner's speed and working set, and (when present) the
# OpenStack Nova fitter on the same host shapes for comparison.
# Figures are medians over many runs; compare them as ratios, never as
# absolute promises (these machines are shared).
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
bench=$build/tests/bench/bench-plan

echo "== vn_plan(): median microseconds per plan (targets: <= 20 us at 16 nodes, <= 1000 us at 256)"
"$bench" | tee "$build/bench-plan.txt"
awk 'NR > 1 && (($1 == 16 && $4 > 20) || ($1 == 256 && $4 > 1000)) { bad++; print "OVER TARGET: " $0 }
     END { if (bad) exit 1 }' "$build/bench-plan.txt" || echo "bench: some cases over target (see above)"

echo
echo "== the same with 4 L3 cache domains a node and [placement] cache_domains = prefer"
"$bench" --cache-domains | tee "$build/bench-plan-cache-domains.txt"
awk 'NR > 1 && (($1 == 16 && $4 > 20) || ($1 == 256 && $4 > 1000)) { bad++; print "OVER TARGET: " $0 }
     END { if (bad) exit 1 }' "$build/bench-plan-cache-domains.txt" ||
    echo "bench: some cases over target (see above)"

echo
echo "== working set of one plan (target <= 1 MiB at 256 nodes)"
for n in 16 256; do "$bench" --working-set $n; done

echo
echo
echo "== vn_plan() with the opt-in balance keep-hole, 16 and 256 nodes (same targets)"
"$bench" --balance keep-hole | awk 'NR == 1 || $1 == 16 || $1 == 256'

echo
echo "== what-if: 5,000 VMs of the Azure mix (seed 1, arrivals over 4,000 h) on the 8-node host, vnuma"
echo "   (balance adaptive, consolidation on: the defaults), vnuma-no-consolidate, vnuma-load (least"
echo "   loaded), vnuma-packing (memory-packing) and vnuma-hole (keep-hole, opt-in)"
echo "   vs the peers' policies; remote is the uniform model, dist_slw/slowdown/effect_GiBh the"
echo "   performance model (vnumactl(8))"
"$build/tools/vnumactl" trace-gen --vms 5000 --seed 1 --hours 4000 -o "$build/bench-trace.csv"
TIMEFORMAT="simulate: %R s (9 policies, with the vn_plan oracles)"
time "$build/tools/vnumactl" simulate --topology "$here/tests/data/hwloc/64amd64-4p2n4ca2co.xml" \
    --trace "$build/bench-trace.csv" \
    --policy vnuma --policy vnuma-no-consolidate --policy vnuma-load --policy vnuma-packing --policy vnuma-hole --policy first-fit \
    --policy most-free \
    --policy round-robin --policy no-pinning

echo
echo "== placement quality over a host's life: every policy on the multi-node hosts of tests/data and"
echo "   synthetic 2-socket, 4-, 8- and 16-node hosts, light/normal/saturated traces (tools/sim-compare.py;"
echo "   the README's 'Measured' row reads this table; --matched: each policy also on the VMs each"
echo "   pinning peer admitted, and every missed case judged at that equal work)"
python3 "$here/tools/sim-compare.py" "$build" --matched

if [ -x "$build/tests/bench/bench-hook" ]; then
    echo
    "$here/tests/bench/run-hook-bench.sh" "$build"
fi

if [ -x "$build/tests/bench/bench-api" ]; then
    echo
    "$here/tests/bench/run-api-bench.sh" "$build"
fi

echo
echo "== vnuma next to OpenStack Nova's numa_fit_instance_to_host (../shared/peers), same hosts and requests"
"$here/tools/bench-vs-nova.sh" "$build"

echo
echo "== the vnuma Nova filter's cost per scheduling request (vnumad instances on loopback, parallel"
echo "   fan-out; target <= 50 ms for 32 hosts), next to Nova's NUMATopologyFilter on the same hosts"
if /usr/bin/python3 -c 'import nova.scheduler.filters' 2>/dev/null; then
    VNUMAD=$build/daemon/vnumad VN_SOURCE_ROOT=$here \
        PYTHONPATH=$here/integrations/nova:$build/integrations/nova/pythonpath \
        /usr/bin/python3 -W ignore::DeprecationWarning "$here/tests/bench/bench-nova-filter.py" 2>/dev/null
else
    echo "skipped: needs Debian's python3-nova"
fi
