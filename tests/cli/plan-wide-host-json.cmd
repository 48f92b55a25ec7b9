# a VM wider than the host (24 vCPUs on 16 CPUs): 12 + 12, self_overcommitted
plan --json --synthetic "pack:2 numa:1(memory=16GiB) core:4 pu:2" --vcpus 24 --memory 4G
