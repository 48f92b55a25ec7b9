# topology --json on the status fixture's sysroot: its "autonuma" member
# (the counters; no rates from one read)
topology --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot tests/data/status/sysroot --json | jq .autonuma
