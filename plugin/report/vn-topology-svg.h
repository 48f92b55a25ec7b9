/* vn-topology-svg.h: a picture of the host for people who would rather
 * look than read.
 *
 * Nodes are boxes, wider with more CPUs and taller with more memory; a bar
 * shows the memory committed on each.  Every VM cell is drawn inside the
 * node that holds it, coloured by the VM's measured memory locality
 * (green >= 90 %, amber >= 70 %, red below, grey when not measured).
 * Every NIC serving a running VM is drawn inside the node its device sits
 * on (below the nodes when it has none): name, PCI function, queues, its
 * interrupts and the CPUs vnuma's plan gives them, and whether they are
 * there (blue in place, amber off the plan, grey unplanned).  The
 * distance matrix sits beside the nodes, each cell shaded by distance.
 * The result is a standalone SVG 1.1 document; every text is escaped.
 */
#pragma once

#include <glib.h>
#include "vn-irq.h"
#include "vn-status.h"
#include "vn-topology.h"

/* `status` (may be NULL: no VMs, no load) comes from vn_status_collect()
 * for the same topology; `nics` (may be NULL: none drawn), of
 * VnIrqNicStatus, from vn_irq_view_status() (as `vnumactl status`). */
gchar *vn_topology_svg(const VnTopology *t, const VnStatus *status, const GArray *nics);
