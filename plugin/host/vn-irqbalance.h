/* vn-irqbalance.h: whether irqbalance runs, and how it is told to keep off
 * the interrupts vnuma places.
 *
 * irqbalance (Debian 12: 1.9.2) moves every interrupt it is not told to
 * leave.  Two ways keep it off vnuma's: `--policyscript` with vnuma's
 * script (tools/vnuma-irqbalance-policy), which answers ban=true for the
 * interrupts vnuma manages; or IRQBALANCE_BANNED_CPULIST set to CPUs it
 * must never use (the operator's choice: the dedicated CPUs).  Debian's
 * unit passes /etc/default/irqbalance as environment, so both show in the
 * process's cmdline and environ under /proc. */
#pragma once

#include <glib.h>

typedef enum {
    VN_IRQBALANCE_OFF,           /* not running */
    VN_IRQBALANCE_POLICY_SCRIPT, /* running with vnuma's policy script */
    VN_IRQBALANCE_BANNED_CPUS,   /* running with IRQBALANCE_BANNED_CPULIST */
    VN_IRQBALANCE_UNCOORDINATED, /* running unrestrained: it will move vnuma's interrupts */
    VN_IRQBALANCE_MODE_MAX
} VnIrqbalanceMode;

const gchar *vn_irqbalance_mode_to_string(VnIrqbalanceMode m);
gboolean vn_irqbalance_mode_from_string(const gchar *s, VnIrqbalanceMode *ret);

typedef struct {
    VnIrqbalanceMode mode;
    gint64 pid;          /* 0 when not running */
    gchar *policyscript; /* --policyscript's value, or NULL */
    gchar *banned_cpus;  /* IRQBALANCE_BANNED_CPULIST's value, or NULL */
} VnIrqbalance;

void vn_irqbalance_free(VnIrqbalance *b);
G_DEFINE_AUTOPTR_CLEANUP_FUNC(VnIrqbalance, vn_irqbalance_free)

/* Looks for a process whose comm is "irqbalance" in <sysroot>/proc
 * (sysroot NULL or "" = "/").  A policy script counts as vnuma's when its
 * file name starts with "vnuma". */
VnIrqbalance *vn_irqbalance_detect(const gchar *sysroot);

/* One line for people: "not running", "running (pid 812) with vnuma's
 * policy script /usr/lib/vnuma/vnuma-irqbalance-policy", ... */
gchar *vn_irqbalance_describe(const VnIrqbalance *b);
