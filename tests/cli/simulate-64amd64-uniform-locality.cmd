simulate --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --trace tests/data/trace/azure-300.csv --guest-locality 0 --policy vnuma --policy first-fit
