topology --json --sysroot tests/data/sysroot/16amd64-8n2c
