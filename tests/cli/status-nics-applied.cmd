# status after irq apply on a copy of the fixture: the NICs steered and in
# place; one affinity then changed by hand shows that NIC steered but off
# the plan (drifted)
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/
irq apply --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" >/dev/null && "$vnumactl" status --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | sed -n '/^nic /,$p' && echo 0-11 >"$VN_CASE_TMP/2socket-2nic/proc/irq/83/smp_affinity_list" && "$vnumactl" status --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" | sed -n '/^nic /,$p'
