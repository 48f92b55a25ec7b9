/* vn-dataplane.h: the VM's data path follows it.
 *
 * libvirt pins vCPUs, the emulator and IOThreads, but two parts of a VM's
 * I/O path run outside what its pins cover (reference/libvirt-facts.md
 * section 6):
 *  - vhost workers (vhost-net, vhost-scsi, vsock) named `vhost-<qemu pid>`:
 *    since Linux 6.4 threads of the QEMU process (comm "vhost-..."), before
 *    that kernel threads of their own found anywhere in /proc;
 *  - vhost-user back-ends and other data-plane processes (OVS-DPDK, SPDK,
 *    virtiofsd...), separate processes that vnuma.conf [dataplane] names
 *    per VM as specs: `pidfile:/run/x.pid` or `unit:NAME.service`.
 * This module finds them (discovery and resolution read a procroot or a
 * sysroot, so fixture trees stand in for the host) and steers them: CPU
 * affinity with sched_setaffinity(2), existing pages with migrate_pages(2).
 * Another process's memory policy cannot be set from outside; with its
 * threads on the VM's CPUs its later allocations come from those nodes
 * under the default local policy.
 *
 * Nothing here prints: steps are appended to a caller's log as lines.
 */
#pragma once

#include <sys/types.h>
#include <glib.h>
#include "vn-bitmap.h"
#include "vn-config.h"
#include "vn-dataplane-spec.h"
#include "vn-ledger.h"

/* Largest CPU number + 1 the steering accepts (Linux's NR_CPUS bound). */
#define VN_DATAPLANE_MAX_CPUS 8192

/* The tids of the vhost workers serving the QEMU process `qemu_pid`,
 * ascending, each once (GArray of pid_t): threads of that process whose
 * comm starts with "vhost-" (Linux >= 6.4), and processes anywhere in
 * /proc whose comm is exactly "vhost-<qemu_pid>" (older kernels' kthreads).
 * Reads <procroot>/proc (procroot "/" = the live host, else a fixture
 * tree).  Threads that vanish while being read are skipped.  An empty
 * array when there are none; VN_DATAPLANE_ERROR_PROC when the QEMU process
 * itself is not there. */
GArray *vn_dataplane_vhost_threads(const gchar *procroot, pid_t qemu_pid, GError **error);
/* The older kernels' vhost kthreads of every QEMU at once, from one scan
 * of <procroot>/proc: owner pid (GINT_TO_POINTER) -> GArray of pid_t.  For
 * callers that look up many VMs (vnumad's drift repair, every sample):
 * one scan, not one per VM. */
GHashTable *vn_dataplane_vhost_kthreads(const gchar *procroot, GError **error);
/* vn_dataplane_vhost_threads() with the kthreads taken from `kthreads` (a
 * vn_dataplane_vhost_kthreads() result) instead of a scan of /proc. */
GArray *vn_dataplane_vhost_threads_indexed(const gchar *procroot, pid_t qemu_pid,
                                           GHashTable *kthreads, GError **error);

/* The pids of the data-plane process(es) `spec` names, ascending, each
 * once (GArray of pid_t):
 *  - pidfile:PATH  the first line of <sysroot>PATH, a positive pid;
 *  - unit:NAME     the unit's cgroup.procs and those of its sub-cgroups
 *                  (a unit with Delegate= keeps its processes below), from
 *                  <sysroot>/sys/fs/cgroup/system.slice/NAME (cgroup v2),
 *                  else .../unified/system.slice/NAME (hybrid), else the v1
 *                  name=systemd hierarchy .../systemd/system.slice/NAME.
 * `sysroot` NULL or "" = "/".  Does not check that the processes run
 * (vn_dataplane_steer() logs the ones gone).  Errors are one line starting
 * with the spec: VN_DATAPLANE_ERROR_SPEC for a bad spec,
 * VN_DATAPLANE_ERROR_RESOLVE for a missing/unreadable/empty source. */
GArray *vn_dataplane_resolve(const gchar *spec, const gchar *sysroot, GError **error);

/* vn-dataplane-steer.c: steers each id of `pids_or_tids` (GArray of pid_t) on the live host:
 *  - whole_process FALSE: sched_setaffinity(tid, cpus) on that thread;
 *  - whole_process TRUE: the same on every thread in /proc/<pid>/task, then,
 *    when `nodes` is not NULL, migrate_pages(2) of its existing pages
 *    (from any node) to `nodes`.
 * A thread whose affinity already lies within `cpus` keeps it (a DPDK
 * poll-mode thread pinned to one of the VM's cores stays on it).
 * `cpus` must not be empty; node numbers are kernel node ids.  One line per
 * thread or process is appended to `ret_log` (GPtrArray of gchar*, may be
 * NULL), including one for a process or thread that vanished meanwhile,
 * which is not an error.  Fails with VN_DATAPLANE_ERROR_STEER on the first
 * refusal (EPERM, EINVAL: no allowed CPU in `cpus`...), after the ids
 * before it were steered. */
gboolean vn_dataplane_steer(const GArray *pids_or_tids, gboolean whole_process,
                            const VnBitmap *cpus, const VnBitmap *nodes, GPtrArray *ret_log,
                            GError **error);

/* How vn_dataplane_steer_full() steers. */
typedef enum {
    VN_DATAPLANE_STEER_DEFAULT = 0,
    /* Drift repair: only an id whose affinity is not within `cpus` is
     * touched, and only it gets a line, saying where it was:
     * "thread 12: CPUs 0 -> 1", "process 34: 2 thread(s), CPUs 0 -> 1,
     * existing pages -> node(s) 1 (0 not moved)"; a process in place gets
     * no page move, an id gone meanwhile no line.  A page move the kernel
     * refuses is part of the line ("pages not moved: ..."), not an error:
     * the affinity is what drifted, and it was put back.  So the lines
     * count the ids re-steered. */
    VN_DATAPLANE_STEER_DRIFTED_ONLY = 1 << 0,
} VnDataplaneSteerFlags;

/* vn_dataplane_steer() with `flags` (unknown flags are refused). */
gboolean vn_dataplane_steer_full(const GArray *pids_or_tids, gboolean whole_process,
                                 const VnBitmap *cpus, const VnBitmap *nodes,
                                 VnDataplaneSteerFlags flags, GPtrArray *ret_log, GError **error);

/* vn-dataplane-follow.c: everything above for the running domain of
 * record `r`, as `vnumactl apply` does after the live pins:
 *  - its QEMU pid from <libvirt run dir>/NAME.pid (vn_ledger_libvirt_run_dir());
 *    its vhost workers -> the emulator's CPUs (the first cell's, as
 *    vn_live_apply() pins the emulator), or, when an interface of its
 *    status XML (<run dir>/NAME.xml) has several vhost queues, one CPU
 *    each as vn_vhost_plan() deals them (dedicated VMs: off every CPU the
 *    ledger's dedicated VMs own and [host] reserved_cpus);
 *  - each [dataplane] spec of `c` for r->name -> the union of the cells'
 *    CPUs, pages to the cells' nodes; a spec another VM names too is
 *    shared and never steered (it serves several VMs), which is logged.
 * One line per step in `ret_log` (GPtrArray of gchar*).  Every step is
 * tried; when any failed, FALSE with VN_DATAPLANE_ERROR_STEER counting
 * them (each is in the log). */
gboolean vn_dataplane_follow(const VnLedgerRecord *r, const VnConfig *c, GPtrArray *ret_log,
                             GError **error);

/* vn-dataplane-follow.c: drift repair for the running domain of record
 * `r` (vnumad's sampling timer): the same threads and processes, found
 * the same way and with the same targets as vn_dataplane_follow(), but
 * only those whose CPU affinity drifted out of their target CPUs are
 * re-steered (VN_DATAPLANE_STEER_DRIFTED_ONLY): a back-end restarted with
 * a new pid, a vhost worker of a hot-plugged NIC, an affinity changed by
 * hand.  What is in place costs one sched_getaffinity(2) and nothing
 * else.  One line per thread or process re-steered is appended to
 * `ret_resteered` ("vhost worker: thread 12: CPUs 0 -> 1", "data plane
 * pidfile:/run/x.pid: process 34: ..."), one per step that could not be
 * checked or failed to `ret_failed` (a pid file missing, the kernel
 * refusing the affinity); shared specs are skipped without a line (the
 * apply log names them).  A domain whose QEMU pid file is absent or
 * unreadable (it stopped meanwhile, or is still starting: the hook
 * applies then) is skipped: TRUE, no line.  FALSE with VN_DATAPLANE_ERROR_STEER only when
 * the record itself has no cells or CPUs to steer to.  `vhost_kthreads`:
 * a vn_dataplane_vhost_kthreads() of this sample shared by every VM
 * checked, or NULL to scan /proc for this one. */
gboolean vn_dataplane_repair(const VnLedgerRecord *r, const VnConfig *c, GHashTable *vhost_kthreads,
                             GPtrArray *ret_resteered, GPtrArray *ret_failed, GError **error);
