log --state-dir tests/data/status/empty
