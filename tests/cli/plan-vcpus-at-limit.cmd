# --vcpus 4096, the request schema's limit itself, passes every check: no fit on 64 CPUs, not a refusal
plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --vcpus 4096 --memory 64G
