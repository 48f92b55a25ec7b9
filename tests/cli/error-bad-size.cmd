topology --topology tests/data/hwloc/hagrid.xml --config tests/data/config/bad-size.conf
