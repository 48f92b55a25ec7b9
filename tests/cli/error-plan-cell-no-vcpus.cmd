plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --cell 0:4G --cell 0:2G
