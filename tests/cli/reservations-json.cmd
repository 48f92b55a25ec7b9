# reservations --json: the ledger's records, sorted by name
reservations --json --state-dir tests/data/ledger/two
