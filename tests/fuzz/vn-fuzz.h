/* vn-fuzz.h: what the fuzz targets share (tests/fuzz/README.md).
 *
 * Each fuzz-*.c defines libFuzzer's two entry points and calls vnuma's
 * real reader of one kind of input; the same file links either with
 * libFuzzer (-Dfuzz=true, clang) or with vn-fuzz-replay.c, which runs it
 * over the regression corpus in the unit suite of any build.
 *
 * Nothing here touches the host: inputs that vnuma reads from a path are
 * written into a private temporary directory, topologies come from the
 * fixtures in tests/data, and /sys is read below a fixture sysroot.
 */
#pragma once

#include <glib.h>
#include <stddef.h>
#include <stdint.h>
#include "vn-load.h"
#include "vn-source.h"
#include "vn-topology.h"

/* A target that needs nothing but vn_fuzz_init() leaves
 * LLVMFuzzerInitialize out: vn-fuzz.c holds a weak one that calls it. */
int LLVMFuzzerInitialize(int *argc, char ***argv);
int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size);

/* Once per process: GLib warnings and criticals abort() (a
 * g_return_if_fail hit by input is a finding), the environment
 * variables through which vnuma would look at this host's files are
 * cleared, and the fixture host (vn_fuzz_topology()) is loaded. */
void vn_fuzz_init(void);

/* The input as a NUL-terminated string (a copy; an embedded NUL ends it
 * early, as it would for a reader of a C string). */
gchar *vn_fuzz_text(const uint8_t *data, size_t size);

/* Writes the input to `name` in this process's temporary directory and
 * returns the path (owned here, valid until the next call with `name`).
 * The directory is removed at exit. */
const gchar *vn_fuzz_write(const gchar *name, const uint8_t *data, size_t size);
/* That temporary directory. */
const gchar *vn_fuzz_dir(void);

/* A path below the source tree: tests/data/... */
gchar *vn_fuzz_source_path(const gchar *relative);

/* The fixture host (tests/data/hwloc/64amd64-4p2n4ca2co.xml: 8 nodes
 * whose kernel numbers are out of hwloc's order), its default policy and
 * an empty load, loaded once. */
const VnTopology *vn_fuzz_topology(void);
const VnPolicy *vn_fuzz_policy(void);
VnLoad *vn_fuzz_load_new(void);

/* What the commands do with a topology a source accepted: its JSON
 * (`vnumactl topology --json`) and plans of a small VM and of a VM split
 * over two guest cells with `policy` (NULL: its default one) and no load.
 * Checks the planner's error contract. */
void vn_fuzz_use_topology(const VnTopology *t, const VnPolicy *policy);
/* Imports the topology source `o` names as vnumactl does (vn_source_load(),
 * no config, no load), checks the error contract against `origin` and
 * uses what it accepted. */
void vn_fuzz_load_source(const VnSourceOptions *o, const gchar *origin);

/* A target's reader: the input (its path, or its text) read into a
 * value, NULL with `error` set when refused; `origin` names the input. */
typedef gpointer (*VnFuzzReadFunc)(const gchar *input, const gchar *origin, GError **error);
/* What the target checks in, and does with, a value its reader accepted. */
typedef void (*VnFuzzUseFunc)(gpointer value);
/* The body most targets share: the input written to the file `name` in
 * the temporary directory (vn_fuzz_read_file(): its path is both the
 * input and the origin) or taken as text whose origin is `name`
 * (vn_fuzz_read_text()), read by `read`, the error contract checked
 * against the origin, and what was accepted handed to `use`, then freed
 * with `free_func`. */
void vn_fuzz_read_file(const gchar *name, const uint8_t *data, size_t size, VnFuzzReadFunc read,
                       VnFuzzUseFunc use, GDestroyNotify free_func);
void vn_fuzz_read_text(const gchar *name, const uint8_t *data, size_t size, VnFuzzReadFunc read,
                       VnFuzzUseFunc use, GDestroyNotify free_func);

/* The error contract of every reader: it fails with an error or succeeds
 * without one, and the error is one non-empty line of UTF-8 that names
 * `origin` (the input's name given to the reader; NULL: not checked).
 * Aborts with what was broken otherwise. */
void vn_fuzz_check(gboolean ok, const GError *error, const gchar *origin);
/* Aborts with `what` (a finding that is not a crash by itself). */
G_NORETURN void vn_fuzz_fail(const gchar *what, const GError *error);
