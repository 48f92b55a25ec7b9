/* vn-irq-json.h: the NIC interrupt plan as JSON, for `vnumactl irq
 * --json`, `vnumactl status --json` and vnumad. */
#pragma once

#include <json-glib/json-glib.h>
#include "vn-irq.h"
#include "vn-irqbalance.h"

/* Adds members "irqbalance" {mode, pid, policyscript, banned_cpus},
 * "nics" (one object per NIC of `h`: name, kind, pci, pf, device_node,
 * users, nodes, cpus, irqs [{irq, name, node, now, planned, left}], rps
 * and xps [{queue, now, planned}] with masks in the kernel's hex form
 * `n_cpus` wide, reasons, explain [{cpu, core, state, vm, irqs}]) and
 * "problems" to the object being built.  `p` is vn_irq_plan() of `h`;
 * `ib` may be NULL (no "irqbalance"). */
void vn_irq_json_add(JsonBuilder *b, const VnIrqHost *h, const VnIrqPlan *p, const VnIrqbalance *ib,
                     guint n_cpus);

/* Adds members "irqbalance" (as above) and "nics": per NIC of `v` its
 * name, kind, pci, device_node, users, nodes and cpus planned, rx_queues,
 * tx_queues, irqs, irqs_off_plan, irqs_left, rps_off_plan, xps_off_plan,
 * steered and state (vn_irq_nic_state_to_string()); `status` is
 * vn_irq_view_status() of `v`.  For `vnumactl status --json` and vnumad's
 * GET /v1/host. */
void vn_irq_json_add_status(JsonBuilder *b, const VnIrqView *v, const GArray *status);
