#!/bin/sh
# check-man.sh PAGE... -- each man page renders without a warning.
# Exit 77 when man-db is not installed.
set -u
command -v man >/dev/null 2>&1 || { echo "man-db not installed: skipped"; exit 77; }
status=0
for page in "$@"; do
    warnings=$(LC_ALL=C.UTF-8 MANWIDTH=80 man --warnings -l "$page" 2>&1 >/dev/null)
    if [ -n "$warnings" ]; then
        echo "FAIL: $page:"
        echo "$warnings"
        status=1
    elif ! LC_ALL=C.UTF-8 MANWIDTH=80 man -l "$page" 2>/dev/null | grep -q '^NAME'; then
        echo "FAIL: $page renders no NAME section"
        status=1
    else
        echo "$page: ok"
    fi
done
exit $status
