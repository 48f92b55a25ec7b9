# --sample: the counters read twice 0.2 s apart; a captured host's files do
# not change, so every rate is 0 (the arithmetic is test-autonuma's)
#setup cp -a tests/data/sysroot/kmem-tier "$VN_CASE_TMP/root" && cp -a tests/data/status/kmem/proc tests/data/status/kmem/run "$VN_CASE_TMP/root/"
status --sysroot "$VN_CASE_TMP/root" --state-dir tests/data/status/kmem/state --sample 0.2 | sed -n '/^AutoNUMA/,$p'
