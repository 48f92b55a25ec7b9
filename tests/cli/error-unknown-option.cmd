topology --frobnicate
