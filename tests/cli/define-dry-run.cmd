# define --dry-run: the rewritten XML of a template on a 4-node host
#env SOURCE_DATE_EPOCH=1795903200
define --dry-run xml-templates/db-12vcpu.xml --topology tests/data/hwloc/16amd64-4distances.xml
