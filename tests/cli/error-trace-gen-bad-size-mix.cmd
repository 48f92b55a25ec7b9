trace-gen --vms 8 --seed 7 --size-mix huge
