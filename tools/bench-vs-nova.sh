#!/bin/bash
# bench-vs-nova.sh BUILD_DIR: vnuma and OpenStack Nova's NUMA fitter
# (nova.virt.hardware.numa_fit_instance_to_host, run standalone by
# ../shared/peers/nova_fit.py) on the same hosts and requests, in one run.
#
# Host: K cells x 16 cores x 2 threads, 64 GiB each.  Guest: 8 pinned vCPUs
# + 8 GiB per guest NUMA node, N guest nodes (Nova's hw:numa_nodes=N; vnuma
# --cells N).  Scenarios as in ../shared/peers/nova_fit_bench.sh:
#   empty  idle host
#   decoy  K-N cells with free CPUs but memory full, N cells 24/32 pinned
#   nofit  every cell 28/32 pinned: nothing fits
#   shared idle host, shared (unpinned) vCPUs
# Prints median microseconds per call for each, the fit verdicts and the ratio.
set -euo pipefail
build=${1:-build}
here=$(cd "$(dirname "$0")/.." && pwd)
fit=$here/../shared/peers/nova_fit.py
vnumactl=$build/tools/vnumactl
py=/usr/bin/python3

if [ ! -f "$fit" ] || ! "$py" -c 'import nova' 2>/dev/null; then
    echo "skipped: needs ../shared/peers/nova_fit.py and Debian's python3-nova"
    exit 0
fi
tmp=$(mktemp -d)
trap 'rm -rf "$tmp"' EXIT

# The load file for vnuma: pinned CPUs (whole cores first, as nova_fit.py
# pins them) and used memory per cell.
load_json() { # K N scenario
    local k=$1 n=$2 s=$3 cpus="" nodes="" i pinned used
    for ((i = 0; i < k; i++)); do
        pinned=0; used=0
        case $s in
            decoy) if ((i < k - n)); then used=65536; else pinned=24; fi ;;
            nofit) pinned=28 ;;
        esac
        ((pinned > 0)) && cpus="$cpus,$((i * 32))-$((i * 32 + pinned - 1))"
        nodes="$nodes,{\"id\": $i, \"committed_memory_mib\": $used}"
    done
    printf '{"dedicated_cpus": "%s", "nodes": [%s]}\n' "${cpus#,}" "${nodes#,}"
}

printf '%-7s %3s %3s | %10s %6s | %10s %6s | %8s\n' scenario K N "nova_us" nova "vnuma_us" vnuma "speedup"
for k in 2 4 8 16; do
    for n in 1 2 4; do
        ((n > k)) && continue
        for s in empty decoy nofit shared; do
            [ "$s" = decoy ] && ((n == k)) && continue
            extra=() pol=dedicated
            case $s in
                decoy)
                    used="" pin=""
                    for ((i = 0; i < k; i++)); do
                        if ((i < k - n)); then used="$used,65536"; pin="$pin,0"
                        else used="$used,0"; pin="$pin,24"; fi
                    done
                    extra=(--used-mem "${used#,}" --pinned "${pin#,}") ;;
                nofit) extra=(--pinned 28) ;;
                shared) pol=shared ;;
            esac
            nova=$("$py" "$fit" --cells $k --cores-per-cell 16 --threads 2 --mem-per-cell 65536 \
                   --vcpus $((8 * n)) --mem $((8192 * n)) --numa-nodes $n --cpu-policy $pol \
                   "${extra[@]}" --bench 200 2>/dev/null || true)
            nova_us=$(printf '%s' "$nova" | "$py" -c 'import json,sys; print("%.1f" % json.load(sys.stdin)["bench"]["us_per_call_median"])')
            nova_fit=$(printf '%s' "$nova" | "$py" -c 'import json,sys; print("fit" if json.load(sys.stdin)["fit"] else "nofit")')
            load_json $k $n $s > "$tmp/load.json"
            flags=(--vcpus $((8 * n)) --memory $((8 * n))G --cells $n)
            [ $pol = dedicated ] && flags+=(--dedicated)
            set +e
            "$vnumactl" plan --synthetic "pack:$k numa:1(memory=64GiB) core:16 pu:2" --load "$tmp/load.json" \
                --config "$here/tests/data/config/empty.conf" "${flags[@]}" --repeat 2001 >/dev/null 2>"$tmp/err"
            rc=$?
            set -e
            vn_us=$(sed -n 's/^plan: median \([0-9]*\) us.*/\1/p' "$tmp/err")
            vn_fit=$([ $rc -eq 0 ] && echo fit || echo nofit)
            printf '%-7s %3d %3d | %10s %6s | %10s %6s | %7sx\n' $s $k $n "$nova_us" $nova_fit "$vn_us" $vn_fit \
                "$(awk -v a="$nova_us" -v b="$vn_us" 'BEGIN { printf "%.0f", a / (b > 0 ? b : 1) }')"
        done
    done
done
echo "(Nova's 16-cell / 8-guest-node no-fit call enumerates 518,918,400 permutations: ~411 s measured in"
echo " ../shared/reference/performance-anchors.md; vnuma's worst case is bounded by O(N^2 k).)"
