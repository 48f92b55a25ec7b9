trace-gen --vms 8 --seed 7 --lifetime-mix forever
