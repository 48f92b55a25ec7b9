# a domain without <features><acpi/> that needs 3 nodes: interleaved, and
# the reasons say why
plan tests/data/domain/no-acpi.xml --topology tests/data/hwloc/16amd64-4distances.xml --json
