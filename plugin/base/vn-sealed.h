/* vn-sealed.h: a GVariant kept in a file of vnuma's own (the topology
 * and ledger caches), sealed so that a damaged or foreign file is told
 * apart from a good one.
 *
 * The file is one GVariant "(sssay)": a magic string naming what it
 * holds, the payload's type string, the MD5 of the payload's bytes (an
 * integrity check against a torn or damaged file, not a defence against
 * a forger: whoever can write the state directory can write the ledger
 * itself), and the payload, a serialized GVariant of that type.  Reading
 * costs one pass over the bytes; the payload is then read as untrusted
 * data all the same (GVariant's own bounds checks). */
#pragma once
#include <glib.h>

/* `payload` (floating or not; consumed if floating) sealed under `magic`. */
GBytes *vn_sealed_wrap(GVariant *payload, const gchar *magic);

/* The payload of `file` (a new reference) when it was sealed under
 * `magic` with a payload of `type` and its bytes are whole; NULL
 * otherwise (any bytes may be passed). */
GVariant *vn_sealed_open(GBytes *file, const gchar *magic, const GVariantType *type);

/* The caches' string tables: NUL-terminated strings in one byte blob
 * ("ay"), each referred to by its offset. */
guint32 vn_sealed_strings_add(GString *blob, const gchar *s);
/* The string at `at` of `blob` (`len` bytes, any content): NULL unless it
 * starts inside the blob, ends there with a NUL and is UTF-8. */
const gchar *vn_sealed_strings_at(const gchar *blob, gsize len, guint32 at);
