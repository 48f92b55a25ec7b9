# libvirt's capabilities sample with HMAT: node 1 is CPU-less and slower (its <interconnects>)
topology --capabilities tests/data/caps/vircaps-x86_64-hmat.xml
