#!/bin/bash
# run-fuzz.sh FUZZER NAME MAX_LEN CORPUS DICT UPSTREAM SEED...
#
# Fuzzes one libFuzzer target for $VN_FUZZ_SECONDS (default 15) seconds,
# starting from the regression corpus CORPUS (every file replayed first),
# the SEED files (glob patterns, each must match) and what earlier runs in
# this build dir found ($VN_BUILD_ROOT/fuzz-work/NAME/corpus).  DICT is
# used when it exists.  Any finding (crash, sanitizer report, leak,
# timeout over 30 s, out of memory) fails with the reproducer's path; a
# clean run prints one line: executions, corpus, coverage.
#
# UPSTREAM ('-' for none) names the innermost vnuma function of crashes
# in a library vnuma cannot fix (hwloc_load_doc: inside libhwloc's
# hwloc_topology_load()).  libFuzzer then runs in fork mode and goes on
# after a crash; each crash is replayed, and those whose innermost vnuma
# frame is UPSTREAM are counted and kept apart ($work/upstream/), not
# failed; any other crash is a finding.
set -uo pipefail
fuzzer=$1 name=$2 max_len=$3 corpus=$4 dict=$5 upstream=$6
shift 6
seconds=${VN_FUZZ_SECONDS:-15}
work=${VN_BUILD_ROOT:?}/fuzz-work/$name
mkdir -p "$work/corpus" "$work/artifacts" "$work/tmp" || exit 1
rm -f "$work/artifacts/"*

seeds=()
shopt -s nullglob
for f in "$corpus"/*; do
    [ -f "$f" ] && seeds+=("$f")
done
for pattern in "$@"; do
    matched=($pattern)
    if [ ${#matched[@]} -eq 0 ]; then
        echo "$name: no seed file matches $pattern" >&2
        exit 1
    fi
    for f in "${matched[@]}"; do
        [ -f "$f" ] && seeds+=("$f")
    done
done
for f in "${seeds[@]}"; do
    case $f in *,*) echo "$name: seed path with a comma: $f" >&2; exit 1 ;; esac
done
(IFS=,; printf '%s' "${seeds[*]}") >"$work/seeds.txt"

# -timeout: vnuma's own bound on an import (VN_TOPOLOGY_ISOLATED_TIMEOUT_S,
# 30 s); a 60 KB hwloc seed takes 5.5 s of CPU in this ASan build and
# 44 s of wall time at load 8 on 2 cores, a "timeout" at 10 s that was
# load, not a hang.  -report_slow_units likewise: libFuzzer writes a
# slow-unit-* artifact (a finding here) for any input over 10 s by default
args=(-max_total_time="$seconds" -max_len="$max_len" -timeout=30 -report_slow_units=30
      -rss_limit_mb=2048
      -artifact_prefix="$work/artifacts/")
# A reproducible smoke (make check-fuzz, CI): a fixed seed and at most
# $VN_FUZZ_RUNS inputs, so every run walks the same inputs (a slower
# machine only a prefix of them) and a CI result does not depend on luck;
# make fuzz explores freely.
[ -n "${VN_FUZZ_SEED:-}" ] && args+=(-seed="$VN_FUZZ_SEED")
[ -n "${VN_FUZZ_RUNS:-}" ] && args+=(-runs="$VN_FUZZ_RUNS")
[ -f "$dict" ] && args+=(-dict="$dict")
dirs=("$work/corpus")
if [ "$upstream" = - ]; then
    args+=(-print_final_stats=1 -seed_inputs=@"$work/seeds.txt")
else
    # fork mode reads its seeds from directories only
    rm -rf "$work/seeds" && mkdir -p "$work/seeds" "$work/upstream"
    for i in "${!seeds[@]}"; do
        ln -s "${seeds[$i]}" "$work/seeds/$i-$(basename "${seeds[$i]}")"
    done
    args+=(-fork=1 -ignore_crashes=1 -ignore_timeouts=0 -ignore_ooms=0)
    dirs+=("$work/seeds")
fi

here=$(cd "$(dirname "$0")" && pwd)
TMPDIR=$work/tmp ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
    "$fuzzer" "${args[@]}" "${dirs[@]}" >"$work/fuzz.log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
[ -n "$execs" ] || execs=$(sed -n 's/^#\([0-9]*\): cov:.*/\1/p' "$work/fuzz.log" | tail -1)
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/fuzz.log" | tail -1)
known=0
if [ "$upstream" != - ]; then
    # the innermost frame in vnuma's own sources says whose crash it is
    for f in "$work/artifacts/"crash-*; do
        frame=$(TMPDIR=$work/tmp LSAN_OPTIONS=detect_leaks=0 "$fuzzer" "$f" 2>&1 |
                "$here/innermost-frame.sh")
        if [ "$frame" = "$upstream" ]; then
            mv "$f" "$work/upstream/"
            known=$((known + 1))
        fi
    done
    # the crashes left are findings; fork mode exits 0 after ignoring them
    found=("$work/artifacts/"*)
    [ ${#found[@]} -eq 0 ] && rc=0
fi
found=("$work/artifacts/"*)
if [ $rc -ne 0 ] || [ ${#found[@]} -gt 0 ]; then
    tail -n 60 "$work/fuzz.log"
    echo "$name: FINDING (exit $rc) after ${execs:-?} executions; log $work/fuzz.log"
    for f in "${found[@]}"; do
        echo "$name: reproducer $f"
    done
    echo "$name: replay with '$fuzzer FILE'; once fixed, add the file to $corpus/"
    exit 1
fi
n=$(find "$work/corpus" -type f | wc -l)
note=
[ "$upstream" != - ] && note="; $known upstream crashes (under $upstream) set apart in $work/upstream"
echo "$name: ${execs:-?} executions in ${seconds} s, no finding; corpus $n inputs, $cov$note"
