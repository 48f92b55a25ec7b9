#!/bin/bash
# run-fuzz.sh FUZZER NAME MAX_LEN CORPUS DICT SEED...
#
# Fuzzes one libFuzzer target for $VN_FUZZ_SECONDS (default 15) seconds,
# starting from the regression corpus CORPUS (every file replayed first),
# the SEED files (glob patterns, each must match) and what earlier runs in
# this build dir found ($VN_BUILD_ROOT/fuzz-work/NAME/corpus).  DICT is
# used when it exists.  Any finding (crash, sanitizer report, leak,
# timeout over 10 s, out of memory) fails with the reproducer's path; a
# clean run prints one line: executions, corpus, coverage.
set -uo pipefail
fuzzer=$1 name=$2 max_len=$3 corpus=$4 dict=$5
shift 5
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

args=(-max_total_time="$seconds" -max_len="$max_len" -timeout=10 -rss_limit_mb=2048
      -print_final_stats=1 -artifact_prefix="$work/artifacts/" -seed_inputs=@"$work/seeds.txt")
[ -f "$dict" ] && args+=(-dict="$dict")

here=$(cd "$(dirname "$0")" && pwd)
TMPDIR=$work/tmp ASAN_OPTIONS=${ASAN_OPTIONS:-detect_leaks=1} \
LSAN_OPTIONS=${LSAN_OPTIONS:-suppressions=$here/lsan.supp:print_suppressions=0} \
UBSAN_OPTIONS=${UBSAN_OPTIONS:-halt_on_error=1:print_stacktrace=1} \
    "$fuzzer" "${args[@]}" "$work/corpus" >"$work/fuzz.log" 2>&1
rc=$?

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log")
cov=$(grep -o 'cov: [0-9]* ft: [0-9]*' "$work/fuzz.log" | tail -1)
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
echo "$name: ${execs:-?} executions in ${seconds} s, no finding; corpus $n inputs, $cov"
