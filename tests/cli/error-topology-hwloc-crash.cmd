# an hwloc XML that crashes hwloc 2.9 (tests/data/hwloc-crash/README.md): one line, vnumactl lives
topology --topology tests/data/hwloc-crash/pu-without-complete-cpuset.xml
