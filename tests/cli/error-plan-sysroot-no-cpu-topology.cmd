plan --sysroot tests/data/sysroot/no-cpu-topology --vcpus 2 --memory 1G
