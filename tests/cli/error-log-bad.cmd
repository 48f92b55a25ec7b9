log --state-dir tests/data/status/bad
