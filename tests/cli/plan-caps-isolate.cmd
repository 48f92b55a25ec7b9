plan --capabilities tests/data/caps/caps-qemu-kvm.xml --vcpus 2 --memory 1G --dedicated --smt isolate
