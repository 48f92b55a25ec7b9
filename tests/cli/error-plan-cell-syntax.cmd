plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --cell 2x4G
