# irq plan on the two-socket fixture: dedicated VMs on both sockets; ens1f0
# (bridge br0, vm-a and vm-d) on node 0 off vm-a's and vm-c's CPUs, eth1
# (macvtap of vm-b) on node 1 off vm-b's, vm-c's VF on node 0 off its vCPUs
irq plan --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state
