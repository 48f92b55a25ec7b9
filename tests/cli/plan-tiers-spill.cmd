# libvirt's HMAT sample (node 0: 24 CPUs, 1 GiB; node 1: no CPUs, 2 GiB,
# slower): with [placement] tiers = spill the 4-vCPU 2 GiB VM stays on
# node 0 with 948 MiB of DRAM, the rest expected on the slow node 1
plan --capabilities tests/data/caps/vircaps-x86_64-hmat.xml --vcpus 4 --memory 2G --config tests/golden/tiers-spill/vnuma.conf
