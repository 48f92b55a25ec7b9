# --load: a load file nested 100,000 deep is one line naming the file and where
#setup head -c 100000 /dev/zero | tr '\0' '[' >"$VN_CASE_TMP/deep.json"
topology --topology tests/data/hwloc/hagrid.xml --load "$VN_CASE_TMP/deep.json"
