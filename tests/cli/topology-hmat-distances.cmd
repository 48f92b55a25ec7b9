# [topology] distances = hmat on a SLIT of 10/20 (the kernel's uniform default)
#setup printf '[topology]\ndistances = hmat\n' > "$VN_CASE_TMP/hmat.conf"
topology --sysroot tests/data/sysroot/kmem-tier --config "$VN_CASE_TMP/hmat.conf"
