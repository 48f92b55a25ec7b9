#!/bin/bash
# test-innermost-frame.sh: innermost-frame.sh on real crash reports of
# fuzz-hwloc-xml-inproc (stacks/, from an ASan/libFuzzer build): an
# assertion inside libhwloc (an abort: the report starts in the fuzzer
# binary) and a segfault inside it both belong to hwloc_load_doc, the
# vnuma function that called hwloc_topology_load().
set -u
here=$(cd "$(dirname "$0")" && pwd)
rc=0
for stack in hwloc-abort hwloc-segv; do
    got=$("$here/innermost-frame.sh" <"$here/stacks/$stack.txt")
    if [ "$got" = hwloc_load_doc ]; then
        echo "ok - $stack: $got"
    else
        echo "not ok - $stack: innermost vnuma frame '$got', expected hwloc_load_doc"
        rc=1
    fi
done
exit $rc
