/* vn-test-fixture.h: small helpers shared by the plugin unit tests. */
#pragma once

#include <glib.h>
#include "vn-config.h"
#include "vn-source.h"
#include "vn-topology.h"

/* Path of a file under tests/data ($VN_TEST_DATA); skips the test run
 * with exit 77 when the variable is not set (not run by meson). */
gchar *vn_test_data_path(const gchar *first, ...) G_GNUC_NULL_TERMINATED;

/* Writes `contents` to `dir`/`rel`, making the folders on the way; the
 * test fails when it cannot.  Returns the file's path. */
gchar *vn_test_write_file(const gchar *dir, const gchar *rel, const gchar *contents);

/* Removes `dir` and everything below it (symlinks are removed, not
 * followed); what cannot be removed is left. */
void vn_test_remove_tree(const gchar *dir);

/* A finished three-node host with sparse node numbers: node 0 has CPUs
 * 0-3, node 1 has CPUs 4-7 (two SMT threads per core, one package per
 * node), node 3 is memory-only; 16 GiB, 16 GiB and 64 GiB; distances
 * 10/21 between the CPU nodes and 30 to node 3. */
VnTopology *vn_test_topology_new(void);

/* A finished topology from tests/data/`dir`/`file`: capabilities XML in
 * "caps", a captured root in "sysroot", hwloc XML elsewhere; the test
 * fails when it does not load. */
VnTopology *vn_test_load_topology(const gchar *dir, const gchar *file);

/* The node with kernel number `os_id`; the test fails when there is none. */
const VnNode *vn_test_node_by_os(const VnTopology *t, guint os_id);

/* Loads `text` as a vnuma.conf for vn_test_topology_new()'s host (through
 * a temporary file, removed again); NULL + error when it is refused. */
VnConfig *vn_test_config_from_text(const gchar *text, GError **error);

/* What vn_source_load() gives a command: the topology, its load and the
 * config (vn_test_source_clear() frees them). */
typedef struct {
    VnTopology *t;
    VnLoad *load;
    VnConfig *config;
} VnTestSource;

/* vn_source_load() of `o` with the load and the config asked for; the
 * test fails unless it succeeds without an error. */
void vn_test_source_load(const VnSourceOptions *o, VnTestSource *s);
/* The same, with the ledger the load counted (vn_source_load_with_ledger())
 * into *ret_ledger. */
void vn_test_source_load_with_ledger(const VnSourceOptions *o, VnTestSource *s,
                                     VnLedger **ret_ledger);
void vn_test_source_clear(VnTestSource *s);
G_DEFINE_AUTO_CLEANUP_CLEAR_FUNC(VnTestSource, vn_test_source_clear)
