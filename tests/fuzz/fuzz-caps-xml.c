/* fuzz-caps-xml.c: libvirt capabilities XML (`virsh capabilities`),
 * imported as `vnumactl --capabilities FILE` imports it: vn_source_load()
 * with the file named (no config, no load), then the topology's use. */
#include "vn-fuzz.h"

int
LLVMFuzzerTestOneInput(const uint8_t *data, size_t size)
{
    VnSourceOptions o = { .capabilities = (gchar *)vn_fuzz_write("capabilities.xml", data, size) };

    vn_fuzz_load_source(&o, o.capabilities);
    return 0;
}
