# tiers = guest: two guest cells, the CPU-less one on the slow node; the
# JSON says tiers guest and how much is expected on each tier
plan --capabilities tests/data/caps/vircaps-x86_64-hmat.xml --vcpus 4 --memory 2G --config tests/golden/tiers-guest/vnuma.conf --json
