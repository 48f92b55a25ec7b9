# --interleave: a 20 GiB VM on nodes of 16 GiB gets no guest cells but its
# memory interleaved over a nearest pair (distance 16), 10 GiB each
plan --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --vcpus 4 --memory 20G --interleave
