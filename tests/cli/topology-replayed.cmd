topology --synthetic "pack:2 numa:1(memory=16GiB) core:2 pu:2" --sysroot tests/data/sysroot/two-node-busy --load tests/data/load/cli-two-node.json --config tests/data/config/cli-reserved.conf
