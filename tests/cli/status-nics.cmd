# status on the two-socket NIC fixture: every NIC serving a running VM with
# its device node, queues and interrupts, none steered yet (all vectors on
# 0-11: off the plan), and irqbalance's mode
status --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
