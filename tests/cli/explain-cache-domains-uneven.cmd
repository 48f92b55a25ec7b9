explain --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --config tests/data/config/cache-domains-prefer-overcommit2.conf --vcpus 13 --memory 4G
