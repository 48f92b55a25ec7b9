# reservations: one row per domain; $VNUMA_STATE_DIR names the ledger
#env VNUMA_STATE_DIR=tests/data/ledger/two
reservations
