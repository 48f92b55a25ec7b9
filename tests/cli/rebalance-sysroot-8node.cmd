rebalance --dry-run --sysroot tests/data/sysroot/16amd64-8n2c
