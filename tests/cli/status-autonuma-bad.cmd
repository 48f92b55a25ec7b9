# a sysctl that is not a mode, a VM without its status XML, a kernel
# without NUMA balancing counters: each one line, the rest of status as
# ever (AutoNUMA's section only)
#setup cp -a tests/data/status/sysroot "$VN_CASE_TMP"/ && echo 7 >"$VN_CASE_TMP/sysroot/proc/sys/kernel/numa_balancing" && rm "$VN_CASE_TMP/sysroot/run/libvirt/qemu/db.xml" && grep -v '^numa_' tests/data/status/sysroot/proc/vmstat >"$VN_CASE_TMP/sysroot/proc/vmstat"
status --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$VN_CASE_TMP/sysroot" --state-dir tests/data/status/state | sed -n '/^AutoNUMA/,$p'
