# irq apply on a copy of the fixture, then reset: apply writes what differs and
# saves what was there, a second apply finds everything in place, reset restores
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/
irq apply --device eth1 --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" && cat "$VN_CASE_TMP/2socket-2nic/proc/irq/83/smp_affinity_list" "$VN_CASE_TMP/state/irq-managed" && "$vnumactl" irq apply --device eth1 --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" && "$vnumactl" irq reset --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | head -3 && cat "$VN_CASE_TMP/2socket-2nic/proc/irq/83/smp_affinity_list" && ls "$VN_CASE_TMP/state"
