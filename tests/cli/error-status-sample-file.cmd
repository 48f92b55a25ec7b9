# --sample on a topology file: the counters are the kernel's
status --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --state-dir tests/data/status/state --sample 1
