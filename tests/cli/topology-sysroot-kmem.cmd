# a captured host with a kmem node in a lower kernel memory tier and HMAT figures in sysfs
topology --sysroot tests/data/sysroot/kmem-tier --json
