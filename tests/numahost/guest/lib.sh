# guest/lib.sh - helpers for scenario scripts inside the emulated NUMA host
# (POSIX sh: runs under busybox sh and dash).  Source it first thing.
#
# Environment from guest-main: NH (rig dir), NH_LAYOUT, NH_BOOT, NH_NODES
# ("cpus:MiB" per node as asked from QEMU), NH_DIST (rows split by '/').

SYS_NODE=/sys/devices/system/node

# t NAME STATUS DETAIL: one result line; STATUS 0 = pass
t() {
    if [ "$2" = 0 ]; then echo "NUMAHOST-TEST $1 PASS $3"
    else echo "NUMAHOST-TEST $1 FAIL $3"; fi
}
# check NAME DETAIL COMMAND...: run COMMAND, report and return its status
check() {
    _n=$1 _d=$2; shift 2
    if "$@"; then t "$_n" 0 "$_d"; return 0; fi
    t "$_n" 1 "$_d"
    return 1
}
# a measured value worth reading in the log (not a pass/fail)
result() { echo "NUMAHOST-RESULT $*"; }
uptime_s() { cut -d' ' -f1 /proc/uptime; }
sect() { echo "--- $* (uptime $(cut -d" " -f1 /proc/uptime))"; }
# within A B TOL: integers A and B differ by at most TOL
within() { [ "$1" -ge $(($2 - $3)) ] 2>/dev/null && [ "$1" -le $(($2 + $3)) ]; }

# node ids the kernel knows, ascending, space separated
kernel_nodes() {
    ls -d $SYS_NODE/node[0-9]* 2>/dev/null | sed 's/.*node//' | sort -n | xargs
}
kernel_cpulist() { cat "$SYS_NODE/node$1/cpulist"; }
kernel_distance_row() { xargs < "$SYS_NODE/node$1/distance"; }
# MemTotal of node $1 in KiB
kernel_mem_kib() { awk '/MemTotal/ { print $4 }' "$SYS_NODE/node$1/meminfo"; }
# 0 if node $1 is in the kernel's has_memory / has_cpu state list
node_in_list() {
    _f=$SYS_NODE/$1
    [ -f "$_f" ] || return 1
    echo ",$(cat "$_f")," | awk -v n="$2" -F, '{
        for (i = 2; i < NF; i++) {
            split($i, r, "-"); if (r[2] == "") r[2] = r[1]
            if (n >= r[1] && n <= r[2]) found = 1
        }
    } END { exit !found }'
}
# layout expectations for node index $1
layout_cpus() { echo "$NH_NODES" | awk -v i="$1" '{ split($(i + 1), a, ":"); print a[1] }'; }
layout_mib() { echo "$NH_NODES" | awk -v i="$1" '{ split($(i + 1), a, ":"); print a[2] }'; }
layout_node_count() { echo "$NH_NODES" | awk '{ print NF }'; }
layout_distance_row() { echo "$NH_DIST" | awk -v i="$1" -F/ '{ print $(i + 1) }' | xargs; }
# number of CPUs in a cpulist like 0-1,4
cpulist_count() {
    echo "$1" | awk -F, '{ n = 0; for (i = 1; i <= NF; i++) { if ($i == "") continue
        split($i, r, "-"); n += (r[2] == "" ? 1 : r[2] - r[1] + 1) } print n }'
}
