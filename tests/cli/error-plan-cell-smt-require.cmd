plan --topology tests/data/hwloc/192em64t-24n8c2t.xml --dedicated --smt require --cell 3:4G --cell 1:4G
