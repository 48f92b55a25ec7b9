topology --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml --svg /nonexistent/dir/host.svg
