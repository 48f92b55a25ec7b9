# --sample out of range: one line naming the option
status --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot tests/data/status/sysroot --state-dir tests/data/status/state --sample 700
