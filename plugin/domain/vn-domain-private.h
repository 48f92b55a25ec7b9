/* vn-domain-private.h: helpers shared by the vn-domain-*.c files only.
 *
 * Tree editing keeps the document's own layout: a new element is indented
 * like its siblings (libvirt writes two spaces per level), a removed element
 * takes the whitespace before it along, so remove + add at the same place
 * gives back the same bytes.
 */
#pragma once

#include <glib.h>
#include <libxml/tree.h>
#include "vn-domain.h"

/* Host CPU (and node) ids a cpuset or nodeset of the domain may name:
 * above libvirt's own limit, so every set libvirt accepts reads.  libvirt
 * parses <vcpu cpuset>, <vcpupin>, <emulatorpin>, <iothreadpin> and
 * <numatune> nodesets with virBitmapParse(..., VIR_DOMAIN_CPUMASK_LEN),
 * 16384 in src/conf/domain_conf.h (1024 before).  A set is read into a
 * bitmap of this many bits (8 KiB), and vn_cpulist_parse() refuses longer
 * numbers before hwloc allocates anything. */
#define VN_DOMAIN_CPUSET_BITS 65536

/* First element child of `parent` named `name` (no namespace), or NULL. */
xmlNode *vn_xml_child(const xmlNode *parent, const gchar *name);
/* First element child in namespace `href` named `name`, or NULL. */
xmlNode *vn_xml_child_ns(const xmlNode *parent, const gchar *href, const gchar *name);
/* Element children named `name`, in document order (array owns nothing). */
GPtrArray *vn_xml_children(const xmlNode *parent, const gchar *name);
/* Attribute value (no namespace) as a new string, or NULL. */
gchar *vn_xml_prop(const xmlNode *node, const gchar *name);
/* Text content, stripped, as a new string. */
gchar *vn_xml_text(const xmlNode *node);

/* Spaces per indentation level found in the document (0: unformatted). */
guint vn_xml_indent_unit(const xmlDoc *doc);
/* Depth of `node`: the root element is 0. */
guint vn_xml_depth(const xmlNode *node);
/* Links `child` into `parent` after `after` (NULL: after the last element
 * child), adding indentation text.  Returns child. */
xmlNode *vn_xml_add(xmlNode *parent, xmlNode *child, xmlNode *after);
/* Links `child` before the first element child of `parent`. */
xmlNode *vn_xml_add_start(xmlNode *parent, xmlNode *child);
/* Creates and adds a new element `name` (no namespace). */
xmlNode *vn_xml_add_new(xmlNode *parent, const gchar *name, xmlNode *after);
/* Replaces `old` by a new empty element of the same name, in place. */
xmlNode *vn_xml_replace_new(xmlNode *old);
/* Unlinks and frees `node` and the whitespace text just before it. */
void vn_xml_remove(xmlNode *node);
/* Removes `node` if it has no element children and no attributes. */
void vn_xml_remove_if_empty(xmlNode *node);
void vn_xml_set_uint(xmlNode *node, const gchar *name, guint64 value);
void vn_xml_set_bitmap(xmlNode *node, const gchar *name, const VnBitmap *b);

/* Unit handling (vn-domain-units.c): libvirt's scaled integers.
 * `unit` NULL means `default_unit`.  Errors name `what`. */
gboolean vn_domain_parse_scaled_kib(const gchar *value, const gchar *unit,
                                    const gchar *default_unit, const gchar *what, guint64 *ret_kib,
                                    GError **error);
/* Reads <elem unit=...>value</elem> or value/unit attributes. */
gboolean vn_domain_parse_uint(const gchar *text, guint64 max, const gchar *what, guint64 *ret,
                              GError **error);

/* TRUE when `buf` quotes attributes with ' more often than with ". */
gboolean vn_domain_quote_style(const gchar *buf, gsize len);

/* Parsers of the parts (each file pairs them with their writer). */
gboolean vn_domain_parse_cpu_numa(VnDomain *d, xmlNode *root, GError **error);
gboolean vn_domain_parse_hugepages(VnDomain *d, xmlNode *root, GError **error);
gboolean vn_domain_parse_devices(VnDomain *d, xmlNode *root, GError **error);
gboolean vn_domain_parse_metadata(VnDomain *d, xmlNode *root, GError **error);
xmlNode *vn_domain_metadata_element(xmlNode *root);
/* Formats `m` into `parent` after `after` (NULL: last). */
xmlNode *vn_domain_metadata_format_into(const VnDomainMetadata *m, xmlNode *parent, xmlNode *after);

/* What the writer computes once and every part uses. */
typedef struct {
    const VnTopology *t;
    const VnPlacement *p;
    const VnDomainWriteOptions *o;
    gboolean keep_cells; /* user's guest cells stay as they are */
    guint n_cells;
    GPtrArray *cell_vcpus; /* of VnBitmap*: guest vCPUs per cell */
    GArray *cell_ids;      /* of guint: guest cell ids */
    GArray *cell_memory;   /* of guint64 KiB */
    GPtrArray *vcpu_pins;  /* of VnBitmap*, per guest vCPU */
    gboolean write_numa;   /* guest <cpu><numa> is written/kept */
} VnDomainWriteCtx;

/* The first element vnuma's metadata does not account for, described
 * ("<cputune><vcpupin vcpu='0'>"), or NULL when all are vnuma's. */
gchar *vn_domain_cputune_handwritten(xmlNode *root, const VnDomainMetadata *m);
gchar *vn_domain_numatune_handwritten(xmlNode *root, const VnDomainMetadata *m);
/* Writers of the parts. */
void vn_domain_write_cputune(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c);
void vn_domain_write_numatune(xmlNode *root, const VnDomainWriteCtx *c);
void vn_domain_write_cpu_numa(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c);
void vn_domain_write_hugepages(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c);
void vn_domain_write_metadata(xmlNode *root, const VnDomain *d, const VnDomainWriteCtx *c);

/* Top-level anchor: the last existing child among `names` (NULL-ended),
 * so new elements land where libvirt itself would put them. */
xmlNode *vn_domain_anchor(xmlNode *root, const gchar *const *names);
/* The top-level element `name`, created after the anchor if missing. */
xmlNode *vn_domain_ensure(xmlNode *root, const gchar *name, const gchar *const *after);

void vn_domain_cell_clear(gpointer p);
void vn_domain_device_free(gpointer p);
