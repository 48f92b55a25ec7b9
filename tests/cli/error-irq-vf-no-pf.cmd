# irq plan --device: a VF whose PF is gone is one line
irq plan --device 0000:3b:02.1 --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
