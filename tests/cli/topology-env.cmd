# $VNUMA_TOPOLOGY names the default topology source
#env VNUMA_TOPOLOGY=tests/data/hwloc/hagrid.xml
topology
