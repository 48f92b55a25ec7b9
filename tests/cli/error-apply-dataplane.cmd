# apply --dataplane-only: no libvirt; each step one line: the QEMU is gone (no vhost
# workers to find), specs that resolve nowhere, a spec shared with db left alone; exit 1
#env VNUMA_LIBVIRT_RUN_DIR=tests/data/dataplane/run
#env VNUMA_CONFIG=tests/data/dataplane/apply.conf
apply --dataplane-only --state-dir tests/data/ledger/two web
