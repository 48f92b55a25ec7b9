trace-gen --vms 8
