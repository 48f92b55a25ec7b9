# irq apply: when the kernel refuses one value, the NIC's files already
# written are put back (all or nothing per NIC) and the line names the file;
# the other NIC is still placed
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/ && rm "$VN_CASE_TMP/2socket-2nic/proc/irq/84/smp_affinity_list" && mkdir "$VN_CASE_TMP/2socket-2nic/proc/irq/84/smp_affinity_list"
irq apply --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | grep -c changed; cat "$VN_CASE_TMP/2socket-2nic/proc/irq/81/smp_affinity_list" "$VN_CASE_TMP/2socket-2nic/proc/irq/61/smp_affinity_list"
