# a capture hwloc cannot read (libvirt keeps only core_id and the package id): refused, never this host instead
topology --sysroot tests/data/sysroot/no-cpu-topology
