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

# 3. Placing example VMs: what vnuma would do, with its reasons.
plan() {
    desc=$1
    shift
    section "$desc: vnumactl explain $*"
    "$vnumactl" explain "$@" || true
}

plan "This host: a 2-vCPU, 1 GiB VM" --vcpus 2 --memory 1G
plan "R815: a 2-vCPU web VM" --topology "$fixture" --vcpus 2 --memory 4G
plan "R815: a 12-vCPU database VM larger than one 16 GiB node" \
    --topology "$fixture" --vcpus 12 --memory 24G
plan "R815: the same VM with the host already busy (load file)" \
    --topology "$fixture" --load "$root/tests/data/load/busy-8node.json" --vcpus 12 --memory 24G
plan "R815: 8 dedicated vCPUs, whole cores only" \
    --topology "$fixture" --vcpus 8 --memory 8G --dedicated --smt require
plan "R815: a VM with 2 IOThreads and a NIC on node 5" \
    --topology "$fixture" --vcpus 4 --memory 8G --iothreads 2 --device-node 5
plan "R815: a VM that fits nowhere" --topology "$fixture" --vcpus 8 --memory 200G

# 3b. The same for a libvirt domain: the example database VM from
#     xml-templates/, rewritten with its placement (what `vnumactl define`
#     would hand to libvirt).
section "R815: vnumactl plan xml-templates/db-12vcpu.xml (the rewritten domain XML)"
"$vnumactl" plan "$root/xml-templates/db-12vcpu.xml" --topology "$fixture" || true

# 4. The operator's view: what if 300 VMs of the Azure mix arrive
#    on the R815, with vnuma and with the policies of its peers; and a
#    picture of a host with VMs on it (a captured two-node host).
section "R815: vnumactl simulate --trace tests/data/trace/azure-300.csv (vnuma vs the peers' policies)"
"$vnumactl" simulate --topology "$fixture" --trace "$root/tests/data/trace/azure-300.csv"

section "A captured two-node host: vnumactl status, and its picture"
"$vnumactl" status --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" \
    --sysroot "$root/tests/data/status/sysroot" --state-dir "$root/tests/data/status/state"
"$vnumactl" topology --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" \
    --sysroot "$root/tests/data/status/sysroot" --state-dir "$root/tests/data/status/state" \
    --svg "$build/demo-host.svg"
echo "picture: $build/demo-host.svg"
