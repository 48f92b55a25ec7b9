# trace-gen --max-memory that is not a size is refused, naming the option
trace-gen --vms 5 --seed 1 --max-memory 4x
