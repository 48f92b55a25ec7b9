simulate --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --trace tests/data/trace/azure-300.csv --policy vnuma --policy first-fit --matched-to first-fit --json
