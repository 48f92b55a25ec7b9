# the same host in JSON: memory_mib_per_tier per VM; rates_per_s null
# (counters read once)
#setup cp -a tests/data/sysroot/kmem-tier "$VN_CASE_TMP/root" && cp -a tests/data/status/kmem/proc tests/data/status/kmem/run "$VN_CASE_TMP/root/"
status --sysroot "$VN_CASE_TMP/root" --state-dir tests/data/status/kmem/state --json
