# trace-gen --max-memory below the smallest VM (1 vCPU x 2 GiB) is refused, naming the option
trace-gen --vms 5 --seed 1 --max-memory 1G
