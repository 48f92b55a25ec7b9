/* vn-autonuma.h: AutoNUMA (kernel.numa_balancing) as the host shows it.
 *
 *   <sysroot>/proc/sys/kernel/numa_balancing   the mode, a bitmask
 *                                              (vn-autonuma-plan.h)
 *   <sysroot>/proc/vmstat                      the host's counters since
 *                                              boot: hint faults (all and
 *                                              local), pages migrated by
 *                                              NUMA balancing, promotions
 *                                              and demotions between tiers
 *   <sysroot>/proc/<pid>/task/<tid>/sched      per thread, with SCHED_DEBUG
 *                                              (Debian's kernel has it):
 *                                              numa_pages_migrated (since
 *                                              the thread started) and
 *                                              total_numa_faults (pages
 *                                              that took hint faults, a
 *                                              huge page counting all its
 *                                              pages; a recent figure: the
 *                                              kernel halves it every scan
 *                                              period)
 * A VM's figures are the sums over its QEMU process's threads (its vCPU
 * threads take the faults).  These are counters: a rate needs two reads
 * (vnumad keeps the last one; vnumactl reports the counters).  On the
 * emulated host (Debian 12's 6.1, scenario 11-autonuma) a 64 MiB toucher
 * moved off its memory's node showed 670 hint faults in /proc/vmstat and
 * total_numa_faults 29825 with 16387 pages migrated in its sched file.
 *
 * The parsers are pure (text in, numbers out) and tested on fixture text;
 * the readers take a sysroot like every other /proc reader here, and so
 * does the one writer.
 */
#pragma once

#include <glib.h>

#define VN_AUTONUMA_ERROR (vn_autonuma_error_quark())
GQuark vn_autonuma_error_quark(void);
typedef enum {
    VN_AUTONUMA_ERROR_READ,  /* file missing or unreadable */
    VN_AUTONUMA_ERROR_PARSE, /* text does not look like the kernel's */
    VN_AUTONUMA_ERROR_WRITE, /* the sysctl cannot be written */
    VN_AUTONUMA_ERROR_MAX
} VnAutonumaError;

/* The host's counters from /proc/vmstat. */
typedef struct {
    guint64 hint_faults;       /* numa_hint_faults */
    guint64 hint_faults_local; /* numa_hint_faults_local */
    guint64 pages_migrated;    /* numa_pages_migrated */
    guint64 pte_updates;       /* numa_pte_updates: pages marked for a hint fault */
    gboolean tiering;          /* the kernel has the pgpromote/pgdemote lines (5.18+) */
    guint64 promoted;          /* pgpromote_success */
    guint64 demoted;           /* pgdemote_kswapd + pgdemote_direct (+ any other pgdemote_*) */
} VnAutonumaCounters;

/* One process's figures: its threads' sums. */
typedef struct {
    guint threads;          /* sched files read */
    guint64 numa_faults;    /* sum of total_numa_faults (recent, decaying) */
    guint64 pages_migrated; /* sum of numa_pages_migrated */
} VnAutonumaTask;

/* Per second between two reads of the counters. */
typedef struct {
    gdouble hint_faults;
    gdouble hint_faults_local;
    gdouble pages_migrated;
    gdouble promoted;
    gdouble demoted;
} VnAutonumaRates;

/* `after` minus `before` over `seconds`; FALSE when a counter went back
 * (a reboot between the reads) or seconds <= 0. */
gboolean vn_autonuma_rates(const VnAutonumaCounters *before, const VnAutonumaCounters *after,
                           gdouble seconds, VnAutonumaRates *ret_rates);

/* "off", "normal balancing", "tiering promotion only", "normal balancing
 * and tiering promotion", "unknown" (< 0 or past 3). */
const gchar *vn_autonuma_mode_describe(gint mode);

/* Parses the sysctl's text ("0".."3"); `origin` names it in errors. */
gboolean vn_autonuma_mode_parse(const gchar *text, const gchar *origin, gint *ret_mode,
                                GError **error);
/* Reads <sysroot>/proc/sys/kernel/numa_balancing (sysroot NULL = "/");
 * a kernel built without NUMA balancing has no such file (READ). */
gboolean vn_autonuma_mode_read(const gchar *sysroot, gint *ret_mode, GError **error);
/* Writes `mode` there.  VN_AUTONUMA_ERROR_WRITE naming the file and the
 * reason (a read-only /proc/sys in a container, not root). */
gboolean vn_autonuma_mode_write(const gchar *sysroot, gint mode, GError **error);

/* Parses /proc/vmstat text: the four numa_* lines are required (a kernel
 * without CONFIG_NUMA_BALANCING has none), the tiering ones optional. */
gboolean vn_autonuma_vmstat_parse(const gchar *text, const gchar *origin,
                                  VnAutonumaCounters *ret_counters, GError **error);
gboolean vn_autonuma_vmstat_read(const gchar *sysroot, VnAutonumaCounters *ret_counters,
                                 GError **error);

/* Parses one /proc/<pid>/sched text ("key : value" lines): adds its
 * numa_pages_migrated and total_numa_faults to `acc` and counts one
 * thread.  A file without them (a kernel without SCHED_DEBUG's NUMA
 * lines) is VN_AUTONUMA_ERROR_PARSE. */
gboolean vn_autonuma_sched_parse(const gchar *text, const gchar *origin, VnAutonumaTask *acc,
                                 GError **error);
/* Sums <sysroot>/proc/<pid>/task/<tid>/sched over the process's threads
 * (<sysroot>/proc/<pid>/sched alone when there is no task directory).
 * Threads that exit while being read are skipped. */
gboolean vn_autonuma_task_read(const gchar *sysroot, gint64 pid, VnAutonumaTask *ret_task,
                               GError **error);
