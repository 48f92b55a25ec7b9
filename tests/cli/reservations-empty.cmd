# reservations: no ledger yet is an empty list, not an error
reservations --json --state-dir tests/data/ledger/none
