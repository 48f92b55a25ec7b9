# plan --state-dir --json with defragment = apply: the placement given is
# the one after the moves (small0 node 0 -> 3), whole on node 0, and the
# moves in the "defragment" member.
#env VNUMA_CONFIG=tests/data/config/defragment-apply.conf
plan --synthetic 'numa:4(memory=1GiB) core:2 pu:1' --state-dir tests/data/ledger/defrag --vcpus 2 --memory 512M --json
