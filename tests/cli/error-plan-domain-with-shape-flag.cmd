# a shape flag next to DOMAIN.xml is refused, not silently ignored
plan tests/data/domain/web.xml --topology tests/data/hwloc/16amd64-4distances.xml --vcpus 64
