#!/bin/bash
# run-hook-bench.sh BUILD: `prepare begin` of the qemu hook on a 16-node
# host (hwloc synthetic, 16 CPUs and 64 GB per node) holding 100
# reservations.  Target: median <= 10 ms.  With valgrind, each
# case also runs once under callgrind and its instruction count is printed
# next to the time (repeatable where the time is not; the target:
# <= 10 M).  VN_BENCH_CALLGRIND_DIR=DIR keeps the callgrind.out files.
set -euo pipefail
build=${1:-build}
topo=$(mktemp --suffix=.xml)
trap 'rm -f "$topo"' EXIT
rm -f "$topo"
lstopo-no-graphics -i "pack:16 [numa(memory=64GB)] core:8 pu:2" --of xml "$topo"
echo "== qemu hook, prepare begin, 16 nodes, 100 reservations (targets: median <= 10 ms, <= 10 M instructions)"
"$build/tests/bench/bench-hook" "$build/hooks/vnuma-hook" "$topo" 51
