topology --topology tests/data/hwloc/hagrid.xml --load tests/data/load/bad-negative.json
