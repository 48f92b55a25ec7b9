topology --capabilities tests/data/caps/vircaps-x86_64-hmat.xml --json
