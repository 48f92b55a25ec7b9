# irq apply: a read-only /proc/irq entry (no write bit) is left and named,
# the NIC's other vectors are placed
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/ && chmod 0444 "$VN_CASE_TMP/2socket-2nic/proc/irq/82/smp_affinity_list"
irq apply --device eth1 --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state"
