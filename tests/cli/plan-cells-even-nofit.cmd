plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --load tests/data/load/busy-8node.json --vcpus 8 --memory 26G --cells 2
