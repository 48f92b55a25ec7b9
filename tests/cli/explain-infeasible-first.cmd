# explain when an infeasible node ranks first (node 3: 252 MiB free): the
# reasons name the two best feasible alternatives (2, 0), never the chosen node 1
explain --synthetic "numa:4(memory=1GiB) core:2 pu:1" --state-dir tests/data/ledger/defrag --vcpus 2 --memory 256M
