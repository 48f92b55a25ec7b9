# reservations: a ledger nested 100,000 deep (json-glib alone overflowed its stack) is one line naming the file and where
#setup mkdir "$VN_CASE_TMP/state" && head -c 100000 /dev/zero | tr '\0' '[' >"$VN_CASE_TMP/state/ledger.json"
reservations --state-dir "$VN_CASE_TMP/state"
