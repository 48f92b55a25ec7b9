# irq apply when a running VM's devices are gone: vm-b's macvtap source is
# an interface this host does not have, vm-c's VF one whose PF is gone;
# one warning line each naming the VM and the device, nothing of theirs
# written, the NIC that is there (ens1f0) placed, exit 0; status says the same
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/ && sed -i "s/dev='eth1'/dev='eth9'/" "$VN_CASE_TMP/2socket-2nic/run/libvirt/qemu/vm-b.xml" && sed -i "s/slot='0x02' function='0x0'/slot='0x02' function='0x1'/" "$VN_CASE_TMP/2socket-2nic/run/libvirt/qemu/vm-c.xml"
irq apply --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | grep -c changed; cat "$VN_CASE_TMP/2socket-2nic/proc/irq/80/smp_affinity_list" "$VN_CASE_TMP/2socket-2nic/proc/irq/70/smp_affinity_list" 2>&1; "$vnumactl" status --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | sed -n '/^nic /,$p'
