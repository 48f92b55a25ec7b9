/* fuzz-config.c: vnuma.conf, read as every command and the hook read it:
 * vn_config_load() of the file named, against the fixture host (which
 * [host] reserved_cpus must fit), then a plan with the policy it gives. */
#include "vn-fuzz.h"
#include "vn-config.h"

int
LLVMFuzzerInitialize(int *argc, char ***argv)
{
    vn_fuzz_init();
    vn_fuzz_topology();
    return 0;
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    const gchar *path = vn_fuzz_write("vnuma.conf", data, size);
    g_autoptr(GError) error = NULL;
    g_autoptr(VnConfig) c = vn_config_load(path, vn_fuzz_topology(), &error);

    vn_fuzz_check(c != NULL, error, path);
    if (c)
        vn_fuzz_use_topology(vn_fuzz_topology(), c->policy);
    return 0;
}
