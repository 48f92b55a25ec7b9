# guest cells of their own sizes that no node holds: the reasons name each cell
plan --cell 2:12G --cell 6:4G --dedicated --topology tests/data/hwloc/16amd64-4distances.xml
