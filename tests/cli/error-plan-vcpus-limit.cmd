# --vcpus past the request schema's limit: the flag and the limit named (as POST /v1/plan and <vcpu>)
plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --vcpus 8192 --memory 64G
