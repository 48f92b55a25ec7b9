# topology --svg after irq apply on a copy of the fixture: the NICs in place
# and steered (blue); then eth1's function made to report no NUMA node
# (numa_node -1): it is drawn below the nodes, under its own heading
#setup cp -a tests/data/sysroot/2socket-2nic tests/data/sysroot/resctrl-2node tests/data/irq/state "$VN_CASE_TMP"/
irq apply --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" >/dev/null && "$vnumactl" topology --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" --svg - | grep -o 'NIC[^<]*</text><text[^>]*>[^<]*' | sed 's/<\/text><text[^>]*>/ | /' && echo -1 >"$VN_CASE_TMP/2socket-2nic/sys/devices/pci0000:ae/0000:ae:00.0/0000:af:00.0/numa_node" && "$vnumactl" topology --sysroot "$VN_CASE_TMP/2socket-2nic" --state-dir "$VN_CASE_TMP/state" --svg - | grep -o 'NICs on no NUMA node\|NIC eth1[^<]*</text><text[^>]*>[^<]*' | sed 's/<\/text><text[^>]*>/ | /'
