# a recorded <vnuma:cell vcpus='11-65535'>: the element, the attribute and
# the limit (4096, the most vCPUs a VM may have) named
plan tests/data/domain/meta-vcpus-65536.xml --force --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml
