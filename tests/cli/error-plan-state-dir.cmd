# plan --state-dir: a directory that does not exist is refused, named
# (it would otherwise read as an empty ledger)
plan --synthetic 'numa:4(memory=1GiB) core:2 pu:1' --state-dir tests/data/ledger/no-such-dir --vcpus 2 --memory 512M
