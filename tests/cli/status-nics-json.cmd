# status --json on the two-socket NIC fixture: "irqbalance", "nics" and
# "nic_problems" beside "vms" and "nodes"
status --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state --json
