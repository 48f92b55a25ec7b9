/* vn-names.h: enums and their names.  Every enum has a _MAX sentinel and
 * a table of its names, which its _to_string() and _from_string() use. */
#pragma once

#include <glib.h>

/* The index of `s` among the first `n` of `names`; -1 when `s` is NULL or
 * none of them. */
gint vn_name_index(const gchar *const *names, guint n, const gchar *s);

/* Defines, for the enum `Type` with `max` values named by `names`:
 *   const gchar *PREFIX_to_string(Type v): NULL for a value out of range;
 *   gboolean PREFIX_from_string(const gchar *s, Type *ret): FALSE, *ret
 *   left alone, for a string that names none of them. */
#define VN_DEFINE_ENUM_STRINGS(Type, prefix, names, max)                                           \
    const gchar *prefix##_to_string(Type v)                                                        \
    {                                                                                              \
        return (guint)v < (max) ? (names)[v] : NULL;                                               \
    }                                                                                              \
    gboolean prefix##_from_string(const gchar *s, Type *ret)                                       \
    {                                                                                              \
        gint i = vn_name_index((names), (max), s);                                                 \
        if (i < 0)                                                                                 \
            return FALSE;                                                                          \
        *ret = (Type)i;                                                                            \
        return TRUE;                                                                               \
    }
