/* vn-names.c: see vn-names.h. */
#include "vn-names.h"

gint
vn_name_index(const gchar *const *names, guint n, const gchar *s)
{
    for (guint i = 0; s && i < n; i++)
        if (names[i] && g_str_equal(names[i], s))
            return (gint)i;
    return -1;
}
