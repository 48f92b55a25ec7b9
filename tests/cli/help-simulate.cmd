simulate --help
