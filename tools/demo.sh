#!/bin/sh
# demo.sh BUILD_DIR -- `make demo`: what vnuma sees.
#
# 1. this host's NUMA topology, live (hwloc + sysfs + 100 ms of /proc/stat);
# 2. a real multi-node host bundled as a fixture: a Dell PowerEdge R815,
#    4 AMD Opteron 6272 packages with 2 NUMA nodes each (hwloc XML).
set -eu

build=${1:?usage: tools/demo.sh BUILD_DIR}
root=$(cd "$(dirname "$0")/.." && pwd)
vnumactl=$build/tools/vnumactl
fixture=$root/tests/data/hwloc/64amd64-4p2n4ca2co.xml

if [ ! -x "$vnumactl" ]; then
    echo "demo.sh: $vnumactl is missing; run 'make build' first" >&2
    exit 1
fi

section() {
    printf '\n==== %s\n\n' "$1"
}

section "This host: vnumactl topology"
"$vnumactl" topology

section "A real 8-node host (Dell R815, 4x Opteron 6272): vnumactl topology --topology $(basename "$fixture")"
"$vnumactl" topology --topology "$fixture"
