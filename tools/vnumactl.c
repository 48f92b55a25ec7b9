/* vnumactl: the operator's CLI, a table of virsh-style commands.
 *
 *   vnumactl [--version | --help] COMMAND [OPTIONS]
 *
 * Each command parses its own options; this file only dispatches.
 */
#include <locale.h>
#include <stdio.h>

#include "vn-config-build.h"
#include "vnumactl.h"

static int cmd_help(int argc, char **argv);

static const VnCommand commands[] = {
    { "help", cmd_help, "List the commands, or show one command's options" },
    { "topology", vn_cmd_topology,
      "Show the host's NUMA nodes: CPUs, L3 domains, memory, hugepages, load, distances" },
    { "probe", vn_cmd_probe,
      "Measure node distances (latency, bandwidth) and check the firmware's" },
    { "plan", vn_cmd_plan, "Plan a VM's placement (from flags or DOMAIN.xml); no side effect" },
    { "explain", vn_cmd_explain, "Plan a VM and show every candidate node set with its score" },
    { "rebalance", vn_cmd_rebalance,
      "Move whole guest cells off a hot node (--dry-run: only show the moves)" },
    /* define, place: domain XML -- XML helper */
    { "define", vn_cmd_define, "Place DOMAIN.xml on this host and define it in libvirt" },
    { "place", vn_cmd_place, "Place a defined domain again (rewrites its definition; next start)" },
    /* reservations, apply: the hook and ledger -- hook helper */
    { "reservations", vn_cmd_reservations,
      "Show the placements the ledger holds (reserved or running domains)" },
    { "simulate", vn_cmd_simulate,
      "Replay a VM trace on a host with vnuma and the peers' policies" },
    { "trace-gen", vn_cmd_trace_gen, "Write a synthetic VM trace with the published Azure VM mix" },
    { "status", vn_cmd_status, "Where every VM lives, its memory locality, and each node's load" },
    { "log", vn_cmd_log, "Show the history of placement decisions and moves" },
    { "apply", vn_cmd_apply,
      "Apply a running domain's reserved placement live (pins, memory nodeset)" },
    { "irq", vn_cmd_irq,
      "Place the VMs' NIC interrupts and RPS/XPS on their node (plan, apply, reset)" },
};

static const VnCommand *
command_lookup(const gchar *name)
{
    for (gsize i = 0; i < G_N_ELEMENTS(commands); i++)
        if (g_str_equal(commands[i].name, name))
            return &commands[i];
    return NULL;
}

static void
print_usage(FILE *out)
{
    fprintf(out, "Usage: vnumactl [--version] COMMAND [OPTIONS]\n\n"
                 "vnuma places libvirt/QEMU guests on NUMA hosts.\n\nCommands:\n");
    for (gsize i = 0; i < G_N_ELEMENTS(commands); i++)
        fprintf(out, "  %-14s %s\n", commands[i].name, commands[i].summary);
    fprintf(out, "\n'vnumactl COMMAND --help' shows a command's options.\n");
}

static int
run_command(const VnCommand *cmd, int argc, char **argv)
{
    g_autofree gchar *prgname = g_strdup_printf("vnumactl %s", cmd->name);

    g_set_prgname(prgname);
    return cmd->handler(argc, argv);
}

/* `vnumactl help [COMMAND]` */
static int
cmd_help(int argc, char **argv)
{
    const VnCommand *cmd;
    char *help_argv[] = { NULL, (char *)"--help", NULL };

    if (argc < 2) {
        print_usage(stdout);
        return VN_EXIT_OK;
    }
    if (argc > 2)
        return vn_cli_fail_printf("give at most one command name (see 'vnumactl help')");
    cmd = command_lookup(argv[1]);
    if (!cmd)
        return vn_cli_fail_printf("unknown command \"%s\" (see 'vnumactl help')", argv[1]);
    if (cmd->handler == cmd_help) {
        print_usage(stdout);
        return VN_EXIT_OK;
    }
    help_argv[0] = argv[1];
    return run_command(cmd, 2, help_argv);
}

int
main(int argc, char **argv)
{
    const VnCommand *cmd;

    setlocale(LC_ALL, "");
    g_set_prgname("vnumactl");
    if (argc < 2) {
        print_usage(stderr);
        return VN_EXIT_ERROR;
    }
    if (g_str_equal(argv[1], "--version") || g_str_equal(argv[1], "-V")) {
        g_print("vnumactl %s\n", VNUMA_VERSION);
        return VN_EXIT_OK;
    }
    if (g_str_equal(argv[1], "--help") || g_str_equal(argv[1], "-h"))
        return cmd_help(1, argv);
    cmd = command_lookup(argv[1]);
    if (!cmd)
        return vn_cli_fail_printf("unknown %s \"%s\" (see 'vnumactl help')",
                                  argv[1][0] == '-' ? "option" : "command", argv[1]);
    return run_command(cmd, argc - 1, argv + 1);
}
