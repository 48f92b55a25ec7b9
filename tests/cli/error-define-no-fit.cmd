# a domain too big for the host: exit 2, the reason and what is short
define --dry-run tests/golden/unplaceable-memory/domain.xml --topology tests/data/hwloc/hagrid.xml
