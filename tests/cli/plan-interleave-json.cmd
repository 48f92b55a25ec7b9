# a domain without <features><acpi/> that needs 3 nodes: interleaved, and
# the reasons say why
#env SOURCE_DATE_EPOCH=1795903200
plan tests/data/domain/no-acpi.xml --topology tests/data/hwloc/16amd64-4distances.xml --json
