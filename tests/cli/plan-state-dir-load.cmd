# plan --state-dir with defragment off: the ledger's VMs are the load of
# the topology given (node 0 holds 448 MiB of VMs, 528 MiB with their
# overhead, node 3 680 MiB); without --state-dir the same topology would
# be empty.
explain --synthetic 'numa:4(memory=1GiB) core:2 pu:1' --state-dir tests/data/ledger/defrag --vcpus 1 --memory 128M
