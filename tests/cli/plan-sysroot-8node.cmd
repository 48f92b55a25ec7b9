# plan, explain, status, rebalance, simulate see the same 8-node capture as topology
plan --sysroot tests/data/sysroot/16amd64-8n2c --vcpus 4 --memory 12G
