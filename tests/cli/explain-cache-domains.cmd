explain --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --load tests/data/load/96em64t-domains.json --config tests/data/config/cache-domains-prefer.conf --vcpus 4 --memory 4G --iothreads 1
