# trace-gen --max-memory 4G: the mix truncated, every VM of 2 or 4 GiB
trace-gen --vms 8 --seed 1 --rate 10 --max-memory 4G
