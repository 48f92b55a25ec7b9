status --sysroot tests/data/sysroot/16amd64-8n2c --state-dir tests/data/ledger/none
