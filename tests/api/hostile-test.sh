#!/bin/bash
# hostile-test.sh VNUMAD -- a real vnumad against hostile clients, on its own unix socket and loopback TCP.
#
# Each case is one run of hostile-client.py (Python 3 standard library
# sockets; answers read with http.client), which must see its answer
# within 2 s: Content-Length over the limit (413), negative, 23 digits,
# a list, with chunked (400), a 64 KiB header and 20,000 headers (431), a
# 1 MiB path (414), all before any body is sent; a head sent one byte a
# second (408 at [api] idle_timeout); idle connections beyond [api]
# max_connections (503, the rest closed at the timeout); keep-alive and
# pipelining; 16 clients x 25 concurrent reservations (all 201) and
# every one deleted twice at once (one 204, one 404); hostile JSON bodies
# (400,000 '[', trailing JSON, a duplicate key: 400).  Afterwards the
# daemon still serves /v1/host, holds no descriptor of a client, and its
# RSS is within 20 MiB of where it started.  Output is TAP; under a
# minute.  Exit 77 when python3 or curl is missing.  VNUMAD_WRAPPER runs
# the daemon under a wrapper, as in api-test.sh.
set -u
command -v python3 >/dev/null && command -v curl >/dev/null ||
    { echo "1..0 # SKIP needs python3 and curl"; exit 77; }

vnumad=$(cd "$(dirname "$1")" && pwd)/$(basename "$1")
src=${VN_SOURCE_ROOT:?run through meson test}
# libsoup 3.2 leaks in its own request-line parser (see the file)
export LSAN_OPTIONS="${LSAN_OPTIONS:+$LSAN_OPTIONS:}suppressions=$src/tests/api/libsoup-3.2.lsan.supp"
# ...and the suppression matches only a full stack: the fast unwinder stops
# at libsoup's frames (no frame pointers) and the leak shows as g_malloc alone
export ASAN_OPTIONS="${ASAN_OPTIONS:+$ASAN_OPTIONS:}fast_unwind_on_malloc=0"
data=${VN_TEST_DATA:-$src/tests/data}
client=$src/tests/api/hostile-client.py
# the ledger is written (and fsynced) on every reservation: tmpfs when there is one
tmp=$(mktemp -d -p /dev/shm 2>/dev/null || mktemp -d) || exit 99
pid=
cleanup() {
    [ -n "$pid" ] && kill "$pid" 2>/dev/null
    wait 2>/dev/null
    rm -rf "$tmp"
}
trap cleanup EXIT
unset VNUMA_TOPOLOGY VNUMA_LIBVIRT_RUN_DIR
export VNUMA_STATE_DIR=$tmp/state

. "$src/tests/api/tap.sh"
# hostile WHAT ADDRESS CASE ARGS...: the client's line describes what it saw
hostile() {
    local what=$1 out; shift
    if out=$(timeout 90 python3 "$client" "$@" 2>&1); then ok "$what: $out"; else nok "$what" "$out"; fi
}
# started_bg ID ADDRESS CASE ARGS... / reported ID WHAT: a case run meanwhile
# (those that wait on a timeout), its result reported later
bg=()
started_bg() {
    local id=$1; shift
    timeout 90 python3 "$client" "$@" >"$tmp/bg.$id" 2>&1 &
    bg+=($!)
    eval "bg_$id=$!"
}
reported() {
    local p; eval "p=\$bg_$1"
    if wait "$p"; then ok "$2: $(cat "$tmp/bg.$1")"; else nok "$2" "$(cat "$tmp/bg.$1")"; fi
}

S=$tmp/api.sock
TOKEN=hostile-test-token-0123456789
IDLE=2 MAX=40
conf() {
    printf '[rebalance]\nauto = false\n[host]\ncpu_overcommit = 16\n[api]\nidle_timeout = %s\nmax_connections = %s\ntcp_listen = 127.0.0.1:%s\nbearer_token = %s\n' \
        "$1" "$MAX" "$port" "$TOKEN" >"$tmp/hostile.conf"
}
host() { curl -s --unix-socket "$S" -o /dev/null -w '%{http_code}' http://vnumad/v1/host; }
started() {
    vnumad_started "$S" "$tmp/vnumad.log" --config "$tmp/hostile.conf" \
        --topology "$data/hwloc/64amd64-4p2n4ca2co.xml"
}
# a free port is a guess: try a few
for attempt in 1 2 3 4 5; do
    port=$(shuf -i 20000-60000 -n 1)
    conf "$IDLE"
    started && break
done
if [ -z "$pid" ]; then
    echo "1..0 # could not start vnumad:"; sed 's/^/#   /' "$tmp/vnumad.log"
    exit 1
fi
T=127.0.0.1:$port
rss() { awk '/^VmRSS/ { print $2 }' "/proc/$pid/status"; }
# ASan's quarantine or a wrapper's own memory would count
measure_rss=yes
if [ -n "${VNUMAD_WRAPPER:-}" ] || ldd "$vnumad" 2>/dev/null | grep -q libasan; then measure_rss=; fi
rss0=$(rss)
metric() { curl -s --unix-socket "$S" http://vnumad/metrics | awk -v m="$1" '$1 == m { print $2 }'; }
# afterwards PHASE: alive, serving, no client descriptor kept, RSS bounded,
# no sanitizer report (an ASan build's)
afterwards() {
    local fds rss1
    check "$1: the daemon is alive and serves /v1/host" test "$(host)" = 200
    if grep -q "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$tmp/vnumad.log"; then
        nok "$1: no sanitizer report" "$(grep -m1 -A12 "ERROR: AddressSanitizer\|runtime error:\|ERROR: LeakSanitizer" "$tmp/vnumad.log")"
    else
        ok "$1: no sanitizer report"
    fi
    fds=$(ls "/proc/$pid/fd" 2>/dev/null | wc -l)
    check "$1: no client connection left open ($fds descriptors)" test "$fds" -gt 0 -a "$fds" -lt 30
    if [ -n "$measure_rss" ]; then
        rss1=$(rss)
        check "$1: RSS $rss1 KiB, within 20 MiB of the $rss0 KiB at start" test "${rss1:-999999}" -le $((rss0 + 20480))
    fi
}

# --- limits answered at once, before any body ------------------------------
for c in length-over:413 length-negative:400 length-23-digits:400 length-list:400 \
         length-and-chunked:400 header-64k:431 headers-20000:431 path-1mib:414 http10-no-host:400; do
    hostile "unix ${c%:*} -> ${c#*:}" "$S" refuse "${c%:*}" "${c#*:}"
done
for c in length-over:413 length-negative:400 length-text:400 header-64k:431 path-1mib:414; do
    hostile "tcp ${c%:*} -> ${c#*:}" "$T" refuse "${c%:*}" "${c#*:}" "$TOKEN"
done
hostile "tcp length-over without the token -> 401 (before the body)" "$T" refuse length-over 401

# --- connections: keep-alive, slow requests, idle ones over the cap ----------
started_bg keep "$S" keepalive "$IDLE"
started_bg slow "$S" slow "$IDLE"
started_bg slowtcp "$T" slow "$IDLE"
started_bg slowbody "$S" slow "$IDLE" body
reported keep "keep-alive and pipelining"
reported slow "one byte a second -> 408 at idle_timeout"
reported slowtcp "tcp: one byte a second -> 408 at idle_timeout"
reported slowbody "a body one byte a second -> 408 at idle_timeout"
hostile "100 idle connections, max_connections $MAX" "$S" idle 100 "$MAX" "$IDLE"
check "metrics: the scrape is the one connection open" test "$(metric vnuma_api_connections)" = 1
check "metrics: connections over the cap counted" test "$(metric vnuma_api_connections_rejected_total)" -ge 60
check "metrics: idle timeouts counted" test "$(metric 'vnuma_api_timeouts_total{phase="idle"}')" -ge "$MAX"
check "metrics: request timeouts (408) counted" test "$(metric 'vnuma_api_timeouts_total{phase="request"}')" -ge 3
for l in request_line:2 head:2 header_fields:1 content_length:5 body:2; do
    check "metrics: refusals by limit ${l%:*} >= ${l#*:}" \
        test "$(metric "vnuma_api_refused_total{limit=\"${l%:*}\"}")" -ge "${l#*:}"
done

# --- concurrency: reservations never lost or doubled -------------------------
hostile "16 x 25 concurrent reservations, double deletes" "$S" reserve 16 25

# --- SIGHUP: the new idle_timeout for every later connection -----------------
conf 1
kill -HUP "$pid"
for _ in $(seq 1 50); do grep -q "config reloaded" "$tmp/vnumad.log" && break; sleep 0.1; done
check "reload: [api] idle_timeout takes effect at once" grep -q "\[api\] idle_timeout 2 -> 1" "$tmp/vnumad.log"
hostile "reload: an idle connection closed after the new 1 s" "$S" idle 1 1 1
afterwards "after the HTTP cases"

# --- hostile JSON bodies -----------
for p in /v1/plan /v1/fit /v1/reservations; do
    hostile "trailing JSON on $p -> 400" "$S" json trailing-json "$p" 400
done
hostile "duplicate key -> 400" "$S" json duplicate-key /v1/plan 400
hostile "400,000 '[' -> 400" "$S" json deep-array /v1/plan 400
afterwards "at the end"
kill -0 "$pid" 2>/dev/null || { echo "# vnumad died; its log:"; tail -20 "$tmp/vnumad.log" | sed 's/^/#   /'; }

if kill -0 "$pid" 2>/dev/null; then
    kill -TERM "$pid"
    wait "$pid"
    check "SIGTERM: clean exit" test $? = 0
fi
pid=
tap_end
