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
