plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --cell 2:4G --cell 2:4G
