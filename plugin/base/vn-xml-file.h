/* vn-xml-file.h: read an untrusted XML file into a libxml2 document, safely.
 *
 * Every XML input of vnuma (hwloc topologies, libvirt capabilities and
 * domains) goes through here so the same limits apply everywhere: no
 * network access, no DTD loading, no entity expansion, a size limit, and
 * libxml2 never prints on its own.
 */
#pragma once

#include <glib.h>
#include <libxml/tree.h>

/* Files larger than this are refused (VN_XML_FILE_ERROR_TOO_LARGE). */
#define VN_XML_FILE_MAX_BYTES (64 * 1024 * 1024)

/* Reads and parses `path`.  Returns a new document (free with xmlFreeDoc,
 * or g_autoptr(xmlDoc)), or NULL with `error` set.  Error messages start
 * with the path; for malformed XML they read "PATH:LINE: libxml2 message". */
xmlDoc *vn_xml_file_read(const gchar *path, GError **error);

/* Same for XML already in memory; `name` is used in error messages. */
xmlDoc *vn_xml_file_parse(const gchar *name, const gchar *buf, gsize len, GError **error);

#define VN_XML_FILE_ERROR (vn_xml_file_error_quark())
GQuark vn_xml_file_error_quark(void);
typedef enum {
    VN_XML_FILE_ERROR_IO,        /* cannot open or read the file */
    VN_XML_FILE_ERROR_TOO_LARGE, /* over VN_XML_FILE_MAX_BYTES */
    VN_XML_FILE_ERROR_MALFORMED, /* not well-formed XML, or empty */
    VN_XML_FILE_ERROR_UNSAFE,    /* refused as hostile: entity loop or
                                  * amplification ("billion laughs"), an
                                  * attempt to fetch from the network */
    VN_XML_FILE_ERROR_MAX
} VnXmlFileError;

G_DEFINE_AUTOPTR_CLEANUP_FUNC(xmlDoc, xmlFreeDoc)
