help topology
