simulate --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --config tests/data/config/cache-domains-prefer.conf --trace tests/data/trace/azure-300.csv --policy vnuma --policy no-pinning
