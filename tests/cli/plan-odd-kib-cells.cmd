# plan with cells of odd KiB sizes: the text rounds each cell's MiB as the JSON does (nearest, halves up)
plan --cell 1:1573376K --cell 1:1573375K --topology tests/data/hwloc/16amd64-4distances.xml
