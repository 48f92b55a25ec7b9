/* vn-distances.c: which node distances placement uses. */
#include "vn-distances.h"

#include "vn-probe-file.h"

gboolean
vn_distances_apply(VnTopology *t, const VnConfig *c, gboolean this_host, const gchar *sysroot)
{
    VnDistances mode = c ? c->distances : VN_DISTANCES_SLIT;

    switch (mode) {
    case VN_DISTANCES_MEASURED:
        /* a saved probe measured this host, never a file standing for another */
        return this_host && vn_probe_file_apply(t, c, sysroot);
    case VN_DISTANCES_HMAT:
        if (!vn_topology_has_hmat_latency(t)) {
            vn_topology_add_source_note(t, "warning: [topology] distances = hmat ignored: the "
                                           "source publishes no HMAT latencies");
            return FALSE;
        }
        if (!vn_topology_use_hmat_distances(t, TRUE))
            return FALSE;
        vn_topology_add_source_note(t, "distances from HMAT read latencies");
        return TRUE;
    case VN_DISTANCES_SLIT:
    case VN_DISTANCES_MAX:
        break;
    }
    if (!vn_topology_use_hmat_distances(t, FALSE))
        return FALSE;
    vn_topology_add_source_note(t, "no SLIT or a uniform one: distances from HMAT read latencies");
    return TRUE;
}
