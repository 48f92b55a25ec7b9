# reservations: a corrupt ledger is a one-line error naming the file and the field
reservations --state-dir tests/data/ledger/corrupt
