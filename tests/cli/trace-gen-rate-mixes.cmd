trace-gen --vms 6 --seed 7 --rate 3 --size-mix large --lifetime-mix short
