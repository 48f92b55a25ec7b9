# GLib's own message about an option value, holding a newline: one line
plan --topology tests/data/hwloc/hagrid.xml --vcpus "$(printf '4\nx')" --memory 1G
