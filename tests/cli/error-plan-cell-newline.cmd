# an argument holding a newline is shown escaped: the error stays one line
plan --topology tests/data/hwloc/hagrid.xml --cell "$(printf '2:1G\nx')"
