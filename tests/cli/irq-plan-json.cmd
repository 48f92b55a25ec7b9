# irq plan --json: the same plan with every vector, queue mask and CPU role
irq plan --json --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
