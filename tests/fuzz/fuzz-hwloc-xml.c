/* fuzz-hwloc-xml.c: an hwloc XML export, imported as `vnumactl
 * --topology FILE` and $VNUMA_TOPOLOGY import it: vn_source_load() with
 * the file named (no config, no load), then the topology's use. */
#include "vn-fuzz.h"
#include "vn-source.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VnSourceOptions o = { .topology_file = (gchar *)vn_fuzz_write("topology.xml", data, size) };
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(GError) error = NULL;
    gboolean ok = vn_source_load(&o, &t, NULL, NULL, &error);

    vn_fuzz_check(ok, error, o.topology_file);
    if (ok)
        vn_fuzz_use_topology(t, NULL);
    return 0;
}
