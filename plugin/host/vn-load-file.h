/* vn-load-file.h: committed load from a JSON file (`--load FILE`).
 *
 *   {"dedicated_cpus": "4-7",
 *    "nodes": [{"id": 0, "committed_vcpus": 12, "committed_high_vcpus": 4,
 *               "committed_memory_mib": 16384, "cpu_busy": 0.35}, ...]}
 *
 * `id` is the kernel node number (VnNode.os_id) and is required; every
 * other field is optional.  cpu_busy is a fraction, 0..1.  dedicated_cpus
 * is a cpulist of host CPUs already owned 1:1 by placed VMs.
 * Unknown fields, unknown or repeated node ids, wrong types, negative or
 * absurd values are errors naming the file and the field.
 */
#pragma once

#include <glib.h>
#include "vn-load.h"
#include "vn-topology.h"

#define VN_LOAD_FILE_ERROR (vn_load_file_error_quark())
GQuark vn_load_file_error_quark(void);
typedef enum {
    VN_LOAD_FILE_ERROR_READ,    /* missing or unreadable file, bad JSON */
    VN_LOAD_FILE_ERROR_INVALID, /* valid JSON, wrong content */
    VN_LOAD_FILE_ERROR_MAX
} VnLoadFileError;

/* Upper bounds past which a figure is a typo rather than a host. */
#define VN_LOAD_FILE_MAX_VCPUS (1u << 20)
#define VN_LOAD_FILE_MAX_MEMORY_MIB (G_GUINT64_CONSTANT(1) << 40)

/* Adds the file's committed vCPUs and memory to `load` (so a ledger and a
 * file compose), replaces cpu_busy where the file gives it, and ORs
 * dedicated_cpus in.  On error `load` is left unchanged. */
gboolean vn_load_read_file(const gchar *path, const VnTopology *t, VnLoad *load, GError **error);
