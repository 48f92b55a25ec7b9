# topology --svg on the two-socket NIC fixture: every NIC serving a running
# VM drawn inside the node its device sits on (ens1f0 and vm-c's VF on node
# 0, eth1 on node 1) with its queues, interrupts and planned CPUs, amber
# while off the plan (nothing applied yet), and the NIC legend
topology --sysroot tests/data/sysroot/2socket-2nic --state-dir tests/data/irq/state --svg -
