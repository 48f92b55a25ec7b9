explain --sysroot tests/data/sysroot/16amd64-8n2c --vcpus 2 --memory 4G
