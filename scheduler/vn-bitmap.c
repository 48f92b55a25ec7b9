/* vn-bitmap.c: fixed-size bitmap for CPU and node indices. */
#include "vn-bitmap.h"

#include <string.h>

VnBitmap *
vn_bitmap_new(guint n_bits)
{
    guint n_words = (n_bits + 63) / 64;
    VnBitmap *b = g_malloc0(sizeof(VnBitmap) + (gsize)MAX(n_words, 1) * sizeof(guint64));

    b->n_bits = n_bits;
    b->n_words = MAX(n_words, 1);
    b->ref = 1;
    return b;
}

VnBitmap *
vn_bitmap_copy(const VnBitmap *b)
{
    VnBitmap *copy;

    g_return_val_if_fail(b != NULL, NULL);
    copy = g_memdup2(b, sizeof(VnBitmap) + (gsize)b->n_words * sizeof(guint64));
    copy->ref = 1;
    return copy;
}

VnBitmap *
vn_bitmap_ref(VnBitmap *b)
{
    g_return_val_if_fail(b != NULL && b->ref > 0, NULL);
    b->ref++;
    return b;
}

void
vn_bitmap_free(VnBitmap *b)
{
    if (b && --b->ref == 0)
        g_free(b);
}

void
vn_bitmap_set(VnBitmap *b, guint i)
{
    g_return_if_fail(i < b->n_bits);
    b->words[i / 64] |= G_GUINT64_CONSTANT(1) << (i % 64);
}

void
vn_bitmap_clear(VnBitmap *b, guint i)
{
    if (i < b->n_bits)
        b->words[i / 64] &= ~(G_GUINT64_CONSTANT(1) << (i % 64));
}

gboolean
vn_bitmap_test(const VnBitmap *b, guint i)
{
    return i < b->n_bits && (b->words[i / 64] >> (i % 64)) & 1;
}

void
vn_bitmap_clear_all(VnBitmap *b)
{
    memset(b->words, 0, b->n_words * sizeof(guint64));
}

VN_POPCOUNT_CLONES
guint
vn_bitmap_count(const VnBitmap *b)
{
    guint n = 0;

    for (guint w = 0; w < b->n_words; w++)
        n += (guint)__builtin_popcountll(b->words[w]);
    return n;
}

VN_POPCOUNT_CLONES
guint
vn_bitmap_count_and(const VnBitmap *a, const VnBitmap *b)
{
    guint n = 0;

    for (guint w = 0; w < MIN(a->n_words, b->n_words); w++)
        n += (guint)__builtin_popcountll(a->words[w] & b->words[w]);
    return n;
}

gboolean
vn_bitmap_is_empty(const VnBitmap *b)
{
    for (guint w = 0; w < b->n_words; w++)
        if (b->words[w])
            return FALSE;
    return TRUE;
}

gboolean
vn_bitmap_equal(const VnBitmap *a, const VnBitmap *b)
{
    guint n = MAX(a->n_words, b->n_words);

    for (guint w = 0; w < n; w++) {
        guint64 x = w < a->n_words ? a->words[w] : 0;
        guint64 y = w < b->n_words ? b->words[w] : 0;
        if (x != y)
            return FALSE;
    }
    return TRUE;
}

gboolean
vn_bitmap_intersects(const VnBitmap *a, const VnBitmap *b)
{
    guint n = MIN(a->n_words, b->n_words);

    for (guint w = 0; w < n; w++)
        if (a->words[w] & b->words[w])
            return TRUE;
    return FALSE;
}

void
vn_bitmap_or(VnBitmap *dst, const VnBitmap *src)
{
    guint n = MIN(dst->n_words, src->n_words);

    for (guint w = 0; w < n; w++)
        dst->words[w] |= src->words[w];
    /* keep bits beyond n_bits clear */
    if (dst->n_bits % 64)
        dst->words[dst->n_words - 1] &= (G_GUINT64_CONSTANT(1) << (dst->n_bits % 64)) - 1;
}

void
vn_bitmap_and(VnBitmap *dst, const VnBitmap *src)
{
    for (guint w = 0; w < dst->n_words; w++)
        dst->words[w] &= w < src->n_words ? src->words[w] : 0;
}

void
vn_bitmap_and_not(VnBitmap *dst, const VnBitmap *src)
{
    guint n = MIN(dst->n_words, src->n_words);

    for (guint w = 0; w < n; w++)
        dst->words[w] &= ~src->words[w];
}

gint
vn_bitmap_next(const VnBitmap *b, gint prev)
{
    guint i = (guint)(prev + 1);

    while (i < b->n_bits) {
        guint64 word = b->words[i / 64] >> (i % 64);
        if (word)
            return (gint)(i + (guint)__builtin_ctzll(word));
        i = (i / 64 + 1) * 64;
    }
    return -1;
}
