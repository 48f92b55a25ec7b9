# tap.sh: the api suite's shell library (sourced by api-test.sh,
# hostile-test.sh and irq-test.sh).  TAP output: ok WHAT / nok WHAT
# [DETAIL...] print one result; check WHAT COMMAND... is ok when COMMAND
# succeeds; tap_end prints the plan and fails when any result did.
# Daemons: wait_for and vnumad_started below.
n=0 failed=0
ok()   { n=$((n + 1)); echo "ok $n - $1"; }
nok()  { n=$((n + 1)); failed=$((failed + 1)); echo "not ok $n - $1"; shift; for l in "$@"; do echo "#   $l"; done; }
check() { local what=$1; shift; if "$@" >/dev/null; then ok "$what"; else nok "$what" "command: $*"; fi; }
tap_end() { echo "1..$n"; [ "$failed" = 0 ]; }

# wait_for SECONDS COMMAND...: polls every 0.1 s until COMMAND succeeds
wait_for() {
    local tries=$(($1 * 10)); shift
    for _ in $(seq 1 "$tries"); do "$@" && return 0; sleep 0.1; done
    return 1
}
# vnumad_started SOCKET LOG ARGS...: starts $vnumad (under $VNUMAD_WRAPPER)
# in the foreground on SOCKET with ARGS, its stderr in LOG, its pid in
# $pid; returns once GET /v1/host on SOCKET answers 200.  Fails (the pid
# reaped, $pid empty) when the daemon exits first or has not answered
# within 10 s (then it is killed).
vnumad_started() {
    local sock=$1 log=$2; shift 2
    ${VNUMAD_WRAPPER:-} "$vnumad" --foreground --socket "$sock" "$@" 2>"$log" &
    pid=$!
    for _ in $(seq 1 100); do
        [ "$(curl -s --unix-socket "$sock" -o /dev/null -w '%{http_code}' http://vnumad/v1/host)" = 200 ] &&
            return 0
        kill -0 "$pid" 2>/dev/null || break
        sleep 0.1
    done
    kill "$pid" 2>/dev/null
    wait "$pid" 2>/dev/null
    pid=
    return 1
}
