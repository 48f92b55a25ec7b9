# 9 vCPUs over two domains of 6 CPUs do not split evenly: one die
explain --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --config tests/data/config/cache-domains-prefer.conf --vcpus 9 --memory 4G
