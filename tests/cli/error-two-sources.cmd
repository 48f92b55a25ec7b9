topology --topology tests/data/hwloc/hagrid.xml --synthetic "pack:2 core:2"
