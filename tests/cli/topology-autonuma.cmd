# topology on the status fixture's sysroot: kernel.numa_balancing 1 and the
# host's NUMA balancing counters since boot, last
topology --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot tests/data/status/sysroot
