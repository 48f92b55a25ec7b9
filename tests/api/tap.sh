# tap.sh: TAP output for the api suite's scripts (sourced by api-test.sh
# and hostile-test.sh).  ok WHAT / nok WHAT [DETAIL...] print one result;
# check WHAT COMMAND... is ok when COMMAND succeeds; tap_end prints the
# plan and fails when any result did.
n=0 failed=0
ok()   { n=$((n + 1)); echo "ok $n - $1"; }
nok()  { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { local what=$1; shift; if "$@" >/dev/null; then ok "$what"; else nok "$what" "command: $*"; fi; }
tap_end() { echo "1..$n"; [ "$failed" = 0 ]; }
