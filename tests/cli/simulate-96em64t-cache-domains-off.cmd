simulate --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --trace tests/data/trace/azure-300.csv --policy vnuma --policy no-pinning
