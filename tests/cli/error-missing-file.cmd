topology --topology tests/data/hwloc/no-such-host.xml
