# plan --state-dir: the fixture ledger's VMs on a topology of another host
# (4 nodes of 1 GiB, 2 CPUs each).  With defragment = propose the 512 MiB
# guest is placed split over nodes 1 and 2, the move of small0 from node 0
# to node 1 that would place it on node 0 alone printed first (the
# arithmetic: tests/unit/test-engine-defrag.c).
#env SOURCE_DATE_EPOCH=1795903200
#env VNUMA_CONFIG=tests/data/config/defragment-propose.conf
plan --synthetic 'numa:4(memory=1GiB) core:2 pu:1' --state-dir tests/data/ledger/defrag tests/data/domain/split-512m.xml
