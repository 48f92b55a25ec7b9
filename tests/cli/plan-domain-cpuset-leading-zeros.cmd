# <vcpu cpuset='040-047'>: read in base 10 as libvirt does, the VM is
# placed on CPUs 40-47 (hwloc alone reads 040 as octal 32)
#env SOURCE_DATE_EPOCH=1795903200
plan tests/data/domain/cpuset-leading-zeros.xml --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --json
