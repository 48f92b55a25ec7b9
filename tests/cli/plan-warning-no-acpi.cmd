# a domain that gets 3 guest NUMA cells but has no <features><acpi/>: the
# placement is written, and a warning says an x86 guest will see one node
#env SOURCE_DATE_EPOCH=1795903200
plan tests/data/domain/no-acpi.xml --topology tests/data/hwloc/16amd64-4distances.xml
