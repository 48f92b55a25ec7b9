frobnicate --json
