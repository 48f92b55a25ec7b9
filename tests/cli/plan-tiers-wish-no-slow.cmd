# bad input: a domain wishing tiers='guest' on a host without a slow tier:
# placed as with tiers off, one warning line says so
#env SOURCE_DATE_EPOCH=1795903200
plan tests/golden/tiers-guest-wish-no-slow/domain.xml --topology tests/data/hwloc/40intel64-2g2n4c+pcilocality.xml
