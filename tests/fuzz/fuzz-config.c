/* fuzz-config.c: vnuma.conf, read as every command and the hook read it:
 * vn_config_load() of the file named, against the fixture host (which
 * [host] reserved_cpus must fit), then a plan with the policy it gives. */
#include "vn-fuzz.h"
#include "vn-config.h"

static gpointer
read_config(const gchar *path, const gchar *origin, GError **error)
{
    return vn_config_load(path, vn_fuzz_topology(), error);
}

static void
use_config(gpointer c)
{
    vn_fuzz_use_topology(vn_fuzz_topology(), ((VnConfig *)c)->policy);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_file("vnuma.conf", data, size, read_config, use_config,
                      (GDestroyNotify)vn_config_free);
    return 0;
}
