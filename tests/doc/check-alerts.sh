#!/bin/sh
# check-alerts.sh RULES TESTS -- the operator kit's Prometheus alert rules
# load (promtool check rules) and fire as their unit test says, and only
# then (promtool test rules).  Exit 77 without promtool (Debian's
# prometheus package; tools/install-deps.sh installs it).
command -v promtool >/dev/null || { echo "promtool missing (Debian package prometheus): skipped"; exit 77; }
promtool check rules "$1" && promtool test rules "$2"
