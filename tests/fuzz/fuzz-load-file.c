/* fuzz-load-file.c: a committed-load JSON file (`--load FILE`), read by
 * vn_load_read_file() into a load of the fixture host as vn_source_load()
 * does; an accepted load is then planned against. */
#include "vn-fuzz.h"
#include "vn-load-file.h"
#include "vn-plan.h"

static gpointer
read_load(const gchar *path, const gchar *origin, GError **error)
{
    g_autoptr(VnLoad) load = vn_fuzz_load_new();

    return vn_load_read_file(path, vn_fuzz_topology(), load, error) ? g_steal_pointer(&load) : NULL;
}

static void
plan_on(gpointer load)
{
    g_autoptr(VnRequest) r = vn_request_new();
    g_autoptr(GPtrArray) reasons = NULL;
    g_autoptr(GError) error = NULL;
    g_autoptr(VnPlacement) p = NULL;

    r->vcpus = 4;
    r->memory_kib = 4 * 1024 * 1024;
    p = vn_plan(vn_fuzz_topology(), load, vn_fuzz_policy(), r, &reasons, &error);
    vn_fuzz_check(p != NULL, error, NULL);
}

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    vn_fuzz_read_file("load.json", data, size, read_load, plan_on, (GDestroyNotify)vn_load_free);
    return 0;
}
