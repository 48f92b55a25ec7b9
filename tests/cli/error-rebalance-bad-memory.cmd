#env VNUMA_STATE_DIR=tests/data/rebalance/hot
#env VNUMA_TOPOLOGY=tests/data/hwloc/64amd64-4p2n4ca2co.xml
rebalance --dry-run --max-memory 1X
