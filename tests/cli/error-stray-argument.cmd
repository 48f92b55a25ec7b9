topology extra
