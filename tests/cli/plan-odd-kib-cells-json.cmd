# the same plan as JSON: memory_mib 1537 and 1536 (1536.5 MiB rounds up, 1536.499 down)
plan --json --cell 1:1573376K --cell 1:1573375K --topology tests/data/hwloc/16amd64-4distances.xml
