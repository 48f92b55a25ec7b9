# apply --dataplane-only: a [dataplane] value that is not a spec is refused, naming the key
#env VNUMA_CONFIG=tests/data/dataplane/bad.conf
apply --dataplane-only --state-dir tests/data/ledger/two web
