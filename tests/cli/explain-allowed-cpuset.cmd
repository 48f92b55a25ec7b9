explain --topology tests/data/hwloc/hagrid.xml tests/golden/nova-shared-set/domain.xml
