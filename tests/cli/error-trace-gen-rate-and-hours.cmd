trace-gen --vms 8 --seed 7 --rate 4 --hours 2
