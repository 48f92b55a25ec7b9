# log: a history line nested 100,000 deep is one line naming the file, the line and where in it
#setup mkdir "$VN_CASE_TMP/state" && { echo '{"time":"2026-01-01T00:00:00Z","vm":"a","decision":"planned"}'; head -c 100000 /dev/zero | tr '\0' '['; echo; } >"$VN_CASE_TMP/state/history.log"
log --state-dir "$VN_CASE_TMP/state"
