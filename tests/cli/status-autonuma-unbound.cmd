# status with web made restrictive over its two nodes: not bound, and the
# warning names both restrictive VMs; AutoNUMA's section only
#setup cp -a tests/data/status/sysroot "$VN_CASE_TMP"/ && sed -i "s/memory-mode='strict'/memory-mode='restrictive'/" "$VN_CASE_TMP/sysroot/run/libvirt/qemu/web.xml"
status --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot "$VN_CASE_TMP/sysroot" --state-dir tests/data/status/state | sed -n '/^AutoNUMA/,$p'
