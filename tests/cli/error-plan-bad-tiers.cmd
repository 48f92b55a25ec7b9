# bad input: an unknown tiers mode names the flag and the choices, exit 1
plan --capabilities tests/data/caps/vircaps-x86_64-hmat.xml --vcpus 4 --memory 2G --tiers fast
