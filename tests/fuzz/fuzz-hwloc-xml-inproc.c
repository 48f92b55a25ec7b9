/* fuzz-hwloc-xml-inproc.c: an hwloc XML export read in this process by
 * vn_topology_load_hwloc_xml(), the loader vnumactl's isolated import runs
 * in its child.  fuzz-hwloc-xml takes the CLI's path, where any crash in
 * the child, vnuma's own conversion code included, comes back as "hwloc
 * crashed reading it": this target sees those crashes and covers that
 * code.  libhwloc 2.9's own crashes inside hwloc_topology_load() are
 * known (upstream); run-fuzz.sh sets them apart by their innermost vnuma
 * frame, hwloc_load_doc(). */
#include "vn-fuzz.h"
#include "vn-topology-source.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gchar *path = vn_fuzz_write("topology.xml", data, size);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnTopology) t = vn_topology_load_hwloc_xml(path, &error);

    vn_fuzz_check(t != NULL, error, path);
    if (t)
        vn_fuzz_use_topology(t, NULL);
    return 0;
}
