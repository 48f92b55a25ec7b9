topology --capabilities tests/data/caps/caps-qemu-kvm.xml
