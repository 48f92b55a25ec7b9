simulate --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --trace tests/data/trace/too-big.csv --matched-to first-fit
