#!/bin/bash
# run-api-bench.sh BUILD -- vnumad's POST /v1/plan over its unix socket
# with keep-alive: requests/s, latency percentiles, and the
# daemon's RSS before, during and after 100,000 requests.
# Targets: >= 2,000 plans/s, p99 <= 5 ms, RSS <= 20 MiB and flat.
set -euo pipefail
build=$1
here=$(cd "$(dirname "$0")/../.." && pwd)
requests=${VN_BENCH_API_REQUESTS:-100000}
tmp=$(mktemp -d)
trap 'kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT

: >"$tmp/empty.conf"
VNUMA_STATE_DIR=$tmp/state VNUMA_CONFIG=$tmp/empty.conf \
    "$build/daemon/vnumad" --foreground --socket "$tmp/api.sock" \
    --topology "$here/tests/data/hwloc/64amd64-4p2n4ca2co.xml" 2>"$tmp/log" &
pid=$!
for _ in $(seq 1 50); do [ -S "$tmp/api.sock" ] && break; sleep 0.1; done

echo "== vnumad POST /v1/plan, $requests requests over keep-alive unix-socket connections"
echo "   (8-node host fixture; targets: >= 2000 req/s, p99 <= 5 ms, RSS <= 20 MiB and flat)"
for c in 1 2; do
    echo "-- $c connection(s)"
    "$build/tests/bench/bench-api" --socket "$tmp/api.sock" --requests "$requests" \
        --connections "$c" --pid "$pid" | tee "$tmp/out"
    awk '/^throughput/ && $2 < 2000 { print "OVER TARGET: throughput" }
         /^latency/ { if ($8 > 5) print "OVER TARGET: p99 " $8 " ms (a shared, loaded machine shows here first)" }
         /^rss/ { if ($NF > 20480) print "OVER TARGET: RSS " $NF " KiB" }' "$tmp/out"
done
echo "-- POST /v1/fit, 2 connections"
"$build/tests/bench/bench-api" --socket "$tmp/api.sock" --requests "$((requests / 5))" --connections 2 \
    --path /v1/fit --pid "$pid"
echo "-- inside the daemon: time from request read to answer built (vnuma_plan_duration_seconds)"
curl -s --unix-socket "$tmp/api.sock" http://vnumad/metrics |
    awk -F'[{}" ]+' '/^vnuma_plan_duration_seconds_bucket/ { b[$3] = $NF; order[n++] = $3 }
         /^vnuma_plan_duration_seconds_count/ { total = $NF }
         END { for (i = 0; i < n; i++) printf "   <= %s s: %.3f %%\n", order[i], 100 * b[order[i]] / total }'
