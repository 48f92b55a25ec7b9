log --state-dir tests/data/status/state
