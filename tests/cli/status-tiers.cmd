# status on a host with a kmem tier (tests/data/sysroot/kmem-tier plus
# tests/data/status/kmem): the spilled VM's memory by tier, 904 MiB on
# dram node 0 and 300 MiB on slow node 1; promoted/demoted since boot
#setup cp -a tests/data/sysroot/kmem-tier "$VN_CASE_TMP/root" && cp -a tests/data/status/kmem/proc tests/data/status/kmem/run "$VN_CASE_TMP/root/"
status --sysroot "$VN_CASE_TMP/root" --state-dir tests/data/status/kmem/state
