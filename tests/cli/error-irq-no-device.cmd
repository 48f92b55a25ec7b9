# irq plan --device: an interface this host does not have is one line
irq plan --device eth9 --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
