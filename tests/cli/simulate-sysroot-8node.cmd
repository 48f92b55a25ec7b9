simulate --sysroot tests/data/sysroot/16amd64-8n2c --trace tests/data/trace/azure-300.csv --policy vnuma
