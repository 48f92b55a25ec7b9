# apply: a domain the ledger does not hold is refused before libvirt is asked
apply --state-dir tests/data/ledger/two nosuchvm
