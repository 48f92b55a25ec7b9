# with --force it is
#env SOURCE_DATE_EPOCH=1795903200
define --dry-run --force tests/data/domain/pinned.xml --topology tests/data/hwloc/hagrid.xml
