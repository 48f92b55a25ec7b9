/* fuzz-hwloc-xml.c: an hwloc XML export, imported as `vnumactl
 * --topology FILE` and $VNUMA_TOPOLOGY import it: vn_source_load() with
 * the file named (no config, no load), then the topology's use. */
#include "vn-fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VnSourceOptions o = { .topology_file = (gchar *)vn_fuzz_write("topology.xml", data, size) };

    vn_fuzz_load_source(&o, o.topology_file);
    return 0;
}
