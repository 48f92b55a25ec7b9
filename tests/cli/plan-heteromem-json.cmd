plan --topology tests/data/hwloc/heteromem.xml --vcpus 4 --memory 1G --json
