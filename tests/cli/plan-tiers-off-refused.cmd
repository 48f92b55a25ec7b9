# the same VM with tiers off (the default): refused as before, node 0 short
plan --capabilities tests/data/caps/vircaps-x86_64-hmat.xml --vcpus 4 --memory 2G
