/* fuzz-numa-maps.c: /proc/<pid>/numa_maps text, parsed by
 * vn_numa_maps_parse() as vn_numa_maps_read() does for `vnumactl status`
 * and vnumad's /v1/domains.  Whatever it accepts must add up: the nodes'
 * KiB sum to the total, and the share on any one node is 0..1. */
#include "vn-fuzz.h"
#include "vn-numa-maps.h"

#define ORIGIN "fuzz/numa_maps"

static gpointer
parse(const gchar *text, const gchar *origin, GError **error)
{
    return vn_numa_maps_parse(text, origin, error);
}

static void
check_usage(gpointer data)
{
    const VnNumaUsage *u = data;
    g_autoptr(GArray) one = g_array_sized_new(FALSE, FALSE, sizeof(guint), 1);
    guint64 sum = 0;

    for (guint n = 0; n < u->n_nodes; n++) {
        gdouble share;

        sum += u->node_kib[n];
        g_array_set_size(one, 0);
        g_array_append_val(one, n);
        share = vn_numa_usage_locality(u, one);
        if (u->total_kib && (share < 0.0 || share > 1.0))
            vn_fuzz_fail("a node holds a share of the memory outside 0..1", NULL);
    }
    if (sum != u->total_kib)
        vn_fuzz_fail("the nodes' memory does not sum to the total", NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_text(ORIGIN, data, size, parse, check_usage, (GDestroyNotify)vn_numa_usage_free);
    return 0;
}
