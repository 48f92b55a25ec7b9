# a VM wider than a node (12 vCPUs, 8 CPUs a node): two cells of 6
plan --synthetic "pack:2 numa:1(memory=16GiB) core:4 pu:2" --vcpus 12 --memory 4G
