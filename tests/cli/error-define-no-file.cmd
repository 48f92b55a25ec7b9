define --topology tests/data/hwloc/hagrid.xml
