topology --synthetic "pack:2 core:2 pu:1" --sysroot tests/data/sysroot/no-such-host
