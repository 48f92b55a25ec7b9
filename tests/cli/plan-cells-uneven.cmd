plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --load tests/data/load/busy-8node.json --cell 6:13824M --cell 2:12800M
