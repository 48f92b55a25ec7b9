# cache domains preferred, 12 vCPUs on domains of 6 CPUs: two domains, two guest dies
explain --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml --config tests/data/config/cache-domains-prefer.conf --vcpus 12 --memory 4G
