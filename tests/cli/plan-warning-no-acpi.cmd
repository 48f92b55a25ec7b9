# a domain that needs 3 nodes but has no <features><acpi/> (an x86 guest
# would not see guest NUMA cells): no cells, its memory interleaved over the
# 3 nodes, its vCPUs on their CPUs (plan-interleave-json: the reasons)
#env SOURCE_DATE_EPOCH=1795903200
plan tests/data/domain/no-acpi.xml --topology tests/data/hwloc/16amd64-4distances.xml
