define --dry-run tests/data/domain/no-such.xml --topology tests/data/hwloc/hagrid.xml
