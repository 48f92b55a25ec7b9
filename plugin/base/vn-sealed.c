/* vn-sealed.c: see vn-sealed.h. */
#include <string.h>
#include "vn-sealed.h"

#define SEAL_TYPE "(sssay)"

GBytes *
vn_sealed_wrap(GVariant *payload, const gchar *magic)
{
    g_autoptr(GVariant) p = g_variant_ref_sink(payload);
    gsize len = g_variant_get_size(p);
    gconstpointer data = g_variant_get_data(p);
    g_autofree gchar *md5 = g_compute_checksum_for_data(G_CHECKSUM_MD5, data, len);
    g_autoptr(GVariant) seal = g_variant_ref_sink(
        g_variant_new("(sss@ay)", magic, g_variant_get_type_string(p), md5,
                      g_variant_new_fixed_array(G_VARIANT_TYPE_BYTE, data, len, 1)));
    return g_variant_get_data_as_bytes(seal);
}

guint32
vn_sealed_strings_add(GString *blob, const gchar *s)
{
    guint32 at = (guint32)blob->len;
    g_string_append_len(blob, s, (gssize)strlen(s) + 1);
    return at;
}

const gchar *
vn_sealed_strings_at(const gchar *blob, gsize len, guint32 at)
{
    if (!blob || at >= len || !memchr(blob + at, '\0', len - at))
        return NULL;
    return g_utf8_validate(blob + at, -1, NULL) ? blob + at : NULL;
}

GVariant *
vn_sealed_open(GBytes *file, const gchar *magic, const GVariantType *type)
{
    g_autoptr(GVariant) seal = NULL;
    g_autoptr(GVariant) bytes = NULL;
    const gchar *file_magic, *file_type, *file_md5;
    gconstpointer data;
    gsize len = 0;

    g_return_val_if_fail(file != NULL && magic != NULL && type != NULL, NULL);
    seal = g_variant_ref_sink(g_variant_new_from_bytes(G_VARIANT_TYPE(SEAL_TYPE), file, FALSE));
    g_variant_get(seal, "(&s&s&s@ay)", &file_magic, &file_type, &file_md5, &bytes);
    if (strcmp(file_magic, magic) != 0 || !g_variant_type_string_is_valid(file_type) ||
        !g_variant_type_equal(G_VARIANT_TYPE(file_type), type))
        return NULL;
    data = g_variant_get_fixed_array(bytes, &len, 1);
    g_autofree gchar *md5 = g_compute_checksum_for_data(G_CHECKSUM_MD5, data ? data : "", len);
    if (strcmp(md5, file_md5) != 0)
        return NULL;
    g_autoptr(GBytes) payload = g_bytes_new(data ? data : "", len);
    return g_variant_ref_sink(g_variant_new_from_bytes(type, payload, FALSE));
}
