#!/bin/bash
# irq-bench.sh VNUMAD [N] -- what GET /v1/host and GET /metrics cost with
# the NIC view: median and p90 of curl's time_total over N requests each
# (default 200), one after another, against VNUMAD on a copy of the
# two-socket NIC fixture (3 NICs, 4 running domains; irq_steering on,
# [rebalance] interval 10 s).  Not a test (no meson suite): run it for two
# builds and compare, e.g. one before and one after a change:
#   tests/api/irq-bench.sh build/daemon/vnumad
# The daemon's CPU time a request (from /proc/PID/stat, which a sample
# every 10 s barely touches) is the figure that load on the machine does
# not blur.  Needs curl; the source tree is where this script is.
set -u
vnumad=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
n=${2:-200}
src=$(cd "$(dirname "$0")/../.." && pwd)
tmp=$(mktemp -d) || exit 1
trap '[ -n "${pid:-}" ] && kill "$pid" 2>/dev/null; wait 2>/dev/null; rm -rf "$tmp"' EXIT
unset VNUMA_TOPOLOGY VNUMA_LIBVIRT_RUN_DIR
cp -a "$src/tests/data/sysroot/2socket-2nic" "$src/tests/data/sysroot/resctrl-2node" \
    "$src/tests/data/irq/state" "$tmp"/
printf '[rebalance]\nauto = false\ninterval = 10\ndataplane_repair = false\nirq_steering = on\n' >"$tmp/c.conf"
VNUMA_CONFIG=$tmp/c.conf VNUMA_STATE_DIR=$tmp/state "$vnumad" --foreground --socket "$tmp/s" \
    --sysroot "$tmp/2socket-2nic" 2>"$tmp/log" &
pid=$!
for _ in $(seq 100); do curl -s --unix-socket "$tmp/s" -o /dev/null http://v/v1/host && break; sleep 0.1; done
# the daemon's CPU time (user + system, clock ticks) so far
cpu_ticks() { awk '{ print $14 + $15 }' "/proc/$pid/stat"; }
hz=$(getconf CLK_TCK)
for path in /v1/host /metrics; do
    t0=$(cpu_ticks)
    for _ in $(seq "$n"); do
        curl -s --unix-socket "$tmp/s" -o /dev/null -w '%{time_total}\n' "http://v$path"
    done > "$tmp/times"
    cpu=$(awk -v a="$t0" -v b="$(cpu_ticks)" -v hz="$hz" -v n="$n" 'BEGIN { printf "%.2f", (b - a) * 1000 / hz / n }')
    sort -n "$tmp/times" | awk -v p="$path" -v cpu="$cpu" '{ a[NR] = $1 }
        END { printf "%s: median %.2f ms, p90 %.2f ms, vnumad CPU %s ms a request (n=%d)\n", p, a[int((NR + 1) / 2)] * 1000, a[int(NR * 0.9)] * 1000, cpu, NR }'
done
