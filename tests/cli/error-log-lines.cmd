log --state-dir tests/data/status/state --lines -1
