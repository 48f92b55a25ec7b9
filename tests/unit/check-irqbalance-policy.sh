#!/bin/sh
# check-irqbalance-policy.sh SCRIPT: vnuma's irqbalance policy script answers ban=true
# and the node for the interrupts in irq-managed, nothing for the others.
set -u
script=$1
dir=$(mktemp -d) || exit 99
trap 'rm -rf "$dir"' EXIT
printf '81 1\n82 1\n70 -1\n' >"$dir/irq-managed"
fail=0
check() {  # check IRQ EXPECTED
    got=$(VNUMA_STATE_DIR=$dir sh "$script" /sys/devices/pci0000:10/0000:10:01.0 "$1" | tr '\n' ' ')
    [ "$got" = "$2" ] || { echo "irq $1: got '$got', want '$2'"; fail=1; }
}
check 81 'ban=true numa_node=1 '
check 70 'ban=true '
check 83 ''
check x ''
VNUMA_STATE_DIR=$dir/none sh "$script" /sys/x 81 | grep -q . && { echo "no file: output"; fail=1; }
[ $fail = 0 ] && echo "policy script: ok"
exit $fail
