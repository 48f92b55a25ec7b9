# a capture without proc/stat: CPU busy unknown, and the source says why
topology --sysroot tests/data/sysroot/16amd64-8n2c-nostat
