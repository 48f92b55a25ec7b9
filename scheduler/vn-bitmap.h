/* vn-bitmap.h: a fixed-size set of small integers (CPU or node indices).
 *
 * The scheduler core works on plain values and links GLib only, so it keeps
 * its own tiny bitmap instead of hwloc's.  Text forms (cpulists such as
 * "0-3,8") are produced and parsed in plugin/ with hwloc's list functions.
 */
#pragma once

#include <glib.h>

/* For a function that counts bits: on x86-64 a second copy built for the
 * CPU's popcnt instruction, chosen at load time where the CPU has it (the
 * x86-64 baseline has none, and __builtin_popcountll() there calls
 * libgcc's __popcountdi2, a few percent of a plan).  GCC only: clang 14
 * emits the dispatcher only in a file that calls the function, so other
 * files' calls do not link (the fuzz build). */
#if defined(__x86_64__) && defined(__GNUC__) && !defined(__clang__)
#define VN_POPCOUNT_CLONES __attribute__((target_clones("popcnt", "default")))
#else
#define VN_POPCOUNT_CLONES
#endif

typedef struct {
    guint n_bits; /* capacity: valid members are 0 .. n_bits-1 */
    guint n_words;
    guint ref; /* holders: vn_bitmap_ref() adds one, vn_bitmap_free() drops one */
    guint64 words[];
} VnBitmap;

VnBitmap *vn_bitmap_new(guint n_bits);
VnBitmap *vn_bitmap_copy(const VnBitmap *b);
/* Another holder of `b`, the same bitmap: only for a bitmap that no holder
 * changes any more (a placement's vCPU pins, which are replaced, never
 * changed in place). */
VnBitmap *vn_bitmap_ref(VnBitmap *b);
/* Drops one holder; the last one frees it. NULL is ignored. */
void vn_bitmap_free(VnBitmap *b);

void vn_bitmap_set(VnBitmap *b, guint i);
void vn_bitmap_clear(VnBitmap *b, guint i);
gboolean vn_bitmap_test(const VnBitmap *b, guint i);
void vn_bitmap_clear_all(VnBitmap *b);
guint vn_bitmap_count(const VnBitmap *b);
/* Members of both, without building the intersection. */
guint vn_bitmap_count_and(const VnBitmap *a, const VnBitmap *b);
gboolean vn_bitmap_is_empty(const VnBitmap *b);
gboolean vn_bitmap_equal(const VnBitmap *a, const VnBitmap *b);
gboolean vn_bitmap_intersects(const VnBitmap *a, const VnBitmap *b);

/* In place: dst |= src, dst &= src, dst &= ~src.  Bits of src beyond
 * dst's capacity are ignored. */
void vn_bitmap_or(VnBitmap *dst, const VnBitmap *src);
void vn_bitmap_and(VnBitmap *dst, const VnBitmap *src);
void vn_bitmap_and_not(VnBitmap *dst, const VnBitmap *src);

/* Iteration: returns the first member > prev (pass -1 to start), or -1. */
gint vn_bitmap_next(const VnBitmap *b, gint prev);

#define VN_BITMAP_FOREACH(b, i)                                                                    \
    for (gint i = vn_bitmap_next((b), -1); i >= 0; i = vn_bitmap_next((b), i))

G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnBitmap, vn_bitmap_free)
