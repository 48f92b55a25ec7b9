# irq: an unknown action is refused, naming the three
irq move --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
