topology --topology tests/data/hwloc/heteromem.xml
