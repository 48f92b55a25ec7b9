#env VNUMA_STATE_DIR=tests/data/rebalance/domains
#env VNUMA_TOPOLOGY=tests/data/hwloc/96em64t-4n4d3ca2co-pci.xml
rebalance --dry-run --load tests/data/load/96em64t-domain-hot.json --config tests/data/config/cache-domains-prefer.conf --max-moves 5
