/* vn-boot-id.c: the kernel's boot id below a sysroot. */
#include "vn-boot-id.h"

#include <string.h>

gchar *
vn_boot_id_read(const gchar *sysroot)
{
    g_autofree gchar *path =
        g_build_filename(sysroot, "proc", "sys", "kernel", "random", "boot_id", NULL);
    g_autofree gchar *text = NULL;
    gchar *nl;

    if (!g_file_get_contents(path, &text, NULL, NULL))
        return g_strdup("");
    if ((nl = strchr(text, '\n')))
        *nl = '\0';
    return g_strdup(g_strstrip(text));
}
