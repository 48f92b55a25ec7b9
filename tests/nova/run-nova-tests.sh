#!/bin/sh
# run-nova-tests.sh MODULE: one module of integrations/nova/tests with
# Debian's Python (Nova's interpreter); 77 when Nova is not installed.
py=/usr/bin/python3
if ! "$py" -c 'import nova.scheduler.filters' 2>/dev/null; then
    echo "SKIP: $py cannot import nova (apt-get install python3-nova)"
    exit 77
fi
exec "$py" -W ignore::DeprecationWarning -m unittest -v "$1"
