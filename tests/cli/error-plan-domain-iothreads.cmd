# <iothreads>65535</iothreads>: read at once (the free ids in one pass),
# refused by the request's limit of 256 IOThreads
plan tests/data/domain/iothreads-65535.xml --topology tests/data/hwloc/64amd64-4p2n4ca2co.xml
