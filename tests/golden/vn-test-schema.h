/* vn-test-schema.h: libvirt's domain RelaxNG schema, in-process (tests).
 *
 * The schema comes from $VN_CORPUS/libvirt-schemas/domain.rng (the same
 * files `xmllint --relaxng` uses); the system's virt-xml-validate is run
 * as a second opinion where installed. */
#pragma once

#include <glib.h>
#include <libxml/tree.h>

/* FALSE when the corpus schemas are not there (callers skip). */
gboolean vn_test_schema_available(void);
/* TRUE when `doc` is valid; else FALSE and *ret_why (first problem). */
gboolean vn_test_schema_validate(xmlDoc *doc, gchar **ret_why);
/* Runs `virt-xml-validate FILE domain`; -1 when the tool is missing,
 * else its exit status (0 = valid); its output in *ret_output. */
gint vn_test_virt_xml_validate(const gchar *xml, gchar **ret_output);

/* libvirt's own parser and validation (the test driver, test:///default,
 * in-process): TRUE when libvirt defines `xml`; else FALSE and *ret_why.
 * The domain is undefined again at once. */
gboolean vn_test_libvirt_accepts(const gchar *xml, gchar **ret_why);
