# apply: the domain name is required
apply --state-dir tests/data/ledger/two
