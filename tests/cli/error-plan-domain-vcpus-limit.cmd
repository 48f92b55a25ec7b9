# <vcpu>8192</vcpu>: the element and the same limit named (as --vcpus and POST /v1/plan)
plan tests/data/domain/vcpus-8192.xml --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml
