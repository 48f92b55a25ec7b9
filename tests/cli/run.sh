#!/bin/sh
# run.sh VNUMACTL CASE.cmd -- one CLI transcript test.
#
# CASE.cmd holds one vnumactl command line (without "vnumactl"; lines
# starting with # are comments, "#env NAME=VALUE" sets a variable for the
# command, "#setup COMMAND" runs a shell command first, for inputs too big
# to keep in the tree), run through the shell from the source
# root so fixture paths are relative and transcripts do not depend on
# where the tree lives.  $VN_CASE_TMP is an empty directory of the case's
# own (removed afterwards) for #setup and the command to use; it reads as
# "$VN_CASE_TMP" in the transcript.  CASE.out is the expected transcript: stdout, then
# each stderr line as "stderr: ...", then "exit: N".
# VN_TEST_REGENERATE=1 rewrites CASE.out instead of comparing.
set -u

# meson hands over the program relative to the build directory
vnumactl=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
case_file=$2
expected=${case_file%.cmd}.out
actual=$(mktemp) || exit 99
err=$(mktemp) || exit 99
VN_CASE_TMP=$(mktemp -d) || exit 99
export VN_CASE_TMP
trap 'rm -f "$actual" "$actual.raw" "$err"; rm -rf "$VN_CASE_TMP"' EXIT

cd "${VN_SOURCE_ROOT:?run through meson test}" || exit 99
# The host's own configuration and topology must not leak in.
unset VNUMA_TOPOLOGY VNUMA_STATE_DIR
export VNUMA_CONFIG=tests/data/config/empty.conf

cmdline=$(grep -v '^#' "$case_file")
for assignment in $(sed -n 's/^#env //p' "$case_file"); do
    export "$assignment"
done
sed -n 's/^#setup //p' "$case_file" | while IFS= read -r setup; do
    sh -c "$setup" || { echo "setup failed: $setup" >&2; exit 99; }
done || exit 99
eval "\"\$vnumactl\" $cmdline" >"$actual.raw" 2>"$err"
status=$?
sed 's/^/stderr: /' "$err" >>"$actual.raw"
echo "exit: $status" >>"$actual.raw"
# the case's directory by name, not by where mktemp put it
awk -v dir="$VN_CASE_TMP" '{ while ((i = index($0, dir)) > 0)
        $0 = substr($0, 1, i - 1) "$VN_CASE_TMP" substr($0, i + length(dir)); print }' \
    "$actual.raw" >"$actual"
rm -f "$actual.raw"

if [ "${VN_TEST_REGENERATE:-0}" = 1 ]; then
    cp "$actual" "$expected"
    echo "regenerated $expected"
    exit 0
fi
if [ ! -f "$expected" ]; then
    echo "no $expected; run with VN_TEST_REGENERATE=1 and review it" >&2
    cat "$actual"
    exit 1
fi
diff -u "$expected" "$actual"
