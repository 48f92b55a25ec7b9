# --sysroot alone: the capture is the host, nodes and memory alike (issue 12 B.5)
topology --sysroot tests/data/sysroot/16amd64-8n2c
