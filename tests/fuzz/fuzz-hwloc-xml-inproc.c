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

static gpointer
read_topology(const gchar *path, const gchar *origin, GError **error)
{
    return vn_topology_load_hwloc_xml(path, error);
}

static void
use_topology(gpointer t)
{
    vn_fuzz_use_topology(t, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_file("topology.xml", data, size, read_topology, use_topology,
                      (GDestroyNotify)vn_topology_free);
    return 0;
}
