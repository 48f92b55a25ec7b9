/* vn-ledger-domain.h: ledger records from domains.
 *
 * A record comes either from the placement vnuma recorded in a domain's
 * <metadata> (start of a placed VM, daemon reconnect, rebuild from status
 * XML) or from a placement just computed by vn_plan().  Rebuild reads the
 * status XML libvirt keeps for every running domain (<run_dir>/NAME.xml,
 * root <domstatus> wrapping the <domain>) so the ledger can always be
 * recovered from libvirt's own state without calling libvirt. */
#pragma once

#include <glib.h>
#include "vn-domain.h"
#include "vn-ledger.h"
#include "vn-placement.h"
#include "vn-request.h"

/* Where libvirt's QEMU driver keeps status XML (privileged daemon). */
#define VN_LIBVIRT_RUN_DIR "/run/libvirt/qemu"

/* $VNUMA_LIBVIRT_RUN_DIR if set (tests), else VN_LIBVIRT_RUN_DIR. */
const gchar *vn_ledger_libvirt_run_dir(void);

/* From the recorded placement of `meta` (must have has_placement).  The
 * priority is the metadata's hint, else normal.  `uuid` NULL uses the
 * name as key. */
VnLedgerRecord *vn_ledger_record_from_metadata(const gchar *uuid, const gchar *name,
                                               const VnDomainMetadata *meta);

/* From the recorded placement of `d` (d->meta must have has_placement),
 * as vn_ledger_record_from_metadata() with d's uuid and name, and its
 * <vcpu cpuset> as the record's allowed_cpus. */
VnLedgerRecord *vn_ledger_record_from_domain(const VnDomain *d);

/* Whether every cell of `r` runs on CPUs of `set` (a cell whose cpus do
 * not read as a list does not). */
gboolean vn_ledger_record_within(const VnLedgerRecord *r, const VnBitmap *set);

/* From a placement computed for `req` (its allowed_cpus kept). */
VnLedgerRecord *vn_ledger_record_from_placement(const gchar *uuid, const gchar *name,
                                                const VnPlacement *p, const VnRequest *req);

/* What the foreign pins of `d` (vn_domain_foreign_pins()) hold on `t`,
 * as a record with `foreign` set, one cell per host node touched:
 *   CPUs    each pinned vCPU counts on the node holding most of its pinned
 *           CPUs (the lowest such node on a tie), its CPUs there taken;
 *           vCPUs without a pin of their own run in <vcpu cpuset> when
 *           there is one, else they are counted nowhere (they float);
 *   memory  a guest cell with a <memnode> on its nodeset, the rest on the
 *           <numatune><memory> nodeset, else beside the pinned vCPUs (the
 *           kernel allocates locally), each share split evenly;
 *   dedicated when every vCPU is pinned to one CPU of its own (Nova's
 *           hw:cpu_policy=dedicated): those CPUs are then owned 1:1.
 * Nodes the host does not have are left out.  NULL when the pins touch no
 * node of `t` and say nothing of memory. */
VnLedgerRecord *vn_ledger_record_from_pins(const gchar *uuid, const gchar *name, const VnDomain *d,
                                           const VnDomainPins *pins, const VnTopology *t);

/* Reads one status XML file (or a plain <domain> file) into a domain.
 * Errors name the file. */
VnDomain *vn_ledger_load_status_xml(const gchar *path, GError **error);

/* Adds a `running` record for every domain in `run_dir` whose status XML
 * carries a vnuma placement and that the ledger does not hold yet.  Files
 * that cannot be read are skipped and named in `ret_skipped` (may be NULL),
 * one "FILE: reason" each.  Returns how many records were added. */
guint vn_ledger_rebuild(VnLedger *l, const gchar *run_dir, gint64 now, GPtrArray **ret_skipped);
