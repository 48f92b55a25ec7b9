/* vn-boot-id.h: which boot of a host this is. */
#pragma once

#include <glib.h>

/* The first line of <sysroot>/proc/sys/kernel/random/boot_id (a UUID the
 * kernel draws at each boot), trimmed; "" when unreadable.  sysroot "/"
 * for this host. */
gchar *vn_boot_id_read(const gchar *sysroot);
