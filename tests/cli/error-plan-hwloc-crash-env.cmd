#env VNUMA_TOPOLOGY=tests/data/hwloc-crash/pu-without-complete-cpuset.xml
plan --vcpus 2 --memory 1G
