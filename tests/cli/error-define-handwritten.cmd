# a hand-written pin is not replaced without --force
define --dry-run tests/data/domain/pinned.xml --topology tests/data/hwloc/hagrid.xml
