/* vn-autonuma-report.h: AutoNUMA as `vnumactl topology`/`status`,
 * GET /v1/host and vnumad see it.
 *
 * vn_autonuma_view_new() reads, below `sysroot`, kernel.numa_balancing and
 * /proc/vmstat's counters (vn-autonuma.h) and, for every placed VM of the
 * ledger (reservations are not VMs): its memory mode from the placement
 * vnuma recorded in libvirt's status XML (<run_dir>/<name>.xml), the host
 * nodes of its cells, and the numa_faults / pages migrated of its QEMU
 * process (pid from <run_dir>/<name>.pid).  Nothing that cannot be read
 * is an error: it is unknown, with why.  The decision's inputs
 * (vn-autonuma-plan.h) and the status warning come with it.
 */
#pragma once

#include <glib.h>
#include <json-glib/json-glib.h>
#include "vn-autonuma-plan.h"
#include "vn-autonuma.h"
#include "vn-ledger.h"

typedef struct {
    const VnLedgerRecord *record; /* borrowed from the ledger */
    gchar *mode_unknown;          /* why the memory mode is not known, or NULL */
    gboolean measured;            /* its sched files were read */
    gchar *not_measured;          /* why not, when !measured */
    VnAutonumaTask task;
} VnAutonumaVmView;

typedef struct {
    gint mode;           /* kernel.numa_balancing; -1 unknown */
    gchar *mode_unknown; /* why, when mode < 0 */
    gboolean counters_known;
    VnAutonumaCounters counters;
    gchar *counters_unknown; /* why, when !counters_known */
    gboolean with_vms;       /* made with the ledger's records */
    GPtrArray *vms;          /* of VnAutonumaVmView*, ledger order */
    GArray *inputs;          /* of VnAutonumaVm, the same VMs (names borrowed) */
    gchar *warning;          /* vn_autonuma_warning(), or NULL */
} VnAutonumaView;

void vn_autonuma_view_free(VnAutonumaView *v);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnAutonumaView, vn_autonuma_view_free)

/* `records` (borrowed, must outlive the view; NULL = the host only, for
 * `vnumactl topology`).  `sysroot` NULL or "" = "/"; `run_dir` as
 * vn_ledger_libvirt_run_dir().  Never fails. */
VnAutonumaView *vn_autonuma_view_new(const gchar *sysroot, const gchar *run_dir,
                                     GPtrArray *records);

/* The "autonuma" object: "numa_balancing" (null when unknown, with
 * "numa_balancing_unknown"), "mode" (vn_autonuma_mode_describe()),
 * "counters" since boot (null when unknown, with "counters_unknown";
 * "promoted"/"demoted" null on a kernel without tiering counters),
 * "rates_per_s" (`rates`, or null: vnumactl reads the counters once), and
 * with VMs: "vms" (name, memory_mode or null, nodes, bound, numa_faults,
 * pages_migrated, threads, not_measured) and "warning" (or null). */
JsonNode *vn_autonuma_to_json(const VnAutonumaView *v, const VnAutonumaRates *rates);

/* Text lines for vnumactl: the host (mode and counters), and with VMs a
 * row per VM and the warning.  Newly allocated, ends with a newline. */
gchar *vn_autonuma_to_text(const VnAutonumaView *v);

/* One line: the rates between two reads `seconds` apart ("rates over 2.0
 * s: promoted 12.50/s, demoted 0.00/s, hint_faults ...").  Newly
 * allocated, ends with a newline. */
gchar *vn_autonuma_rates_to_text(const VnAutonumaRates *r, gdouble seconds);
