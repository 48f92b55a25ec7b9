topology --topology tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml
