# plan DOMAIN.xml with hand-written pins: refused as define refuses it (not the placement printed as text)
plan tests/data/domain/pinned.xml --topology tests/data/hwloc/40intel64-2g2n4c+pcilocality.xml
