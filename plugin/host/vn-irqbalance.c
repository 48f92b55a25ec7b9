/* vn-irqbalance.c: irqbalance found in /proc under a sysroot. */
#include "vn-irqbalance.h"

#include <string.h>

#include "vn-names.h"

static const gchar *const mode_names[] = { "off", "policy-script", "banned-cpus", "uncoordinated" };
G_STATIC_ASSERT(G_N_ELEMENTS(mode_names) == VN_IRQBALANCE_MODE_MAX);
VN_DEFINE_ENUM_STRINGS(VnIrqbalanceMode, vn_irqbalance_mode, mode_names, VN_IRQBALANCE_MODE_MAX)

void
vn_irqbalance_free(VnIrqbalance *b)
{
    if (!b)
        return;
    g_free(b->policyscript);
    g_free(b->banned_cpus);
    g_free(b);
}

/* The NUL-separated fields of /proc/PID/<file>, as a vector. */
static GStrv
read_fields(const gchar *dir, const gchar *file)
{
    g_autofree gchar *path = g_build_filename(dir, file, NULL);
    g_autofree gchar *text = NULL;
    g_autoptr(GStrvBuilder) b = g_strv_builder_new();
    gsize len = 0;

    if (g_file_get_contents(path, &text, &len, NULL))
        for (gsize at = 0; at < len; at += strlen(text + at) + 1)
            g_strv_builder_add(b, text + at);
    return g_strv_builder_end(b);
}

static gchar *
option_value(GStrv argv, const gchar *name)
{
    gsize n = strlen(name);

    for (guint i = 0; argv[i]; i++) {
        if (g_str_equal(argv[i], name) && argv[i + 1])
            return g_strdup(argv[i + 1]);
        if (g_str_has_prefix(argv[i], name) && argv[i][n] == '=')
            return g_strdup(argv[i] + n + 1);
    }
    return NULL;
}

static void
read_process(VnIrqbalance *b, const gchar *dir)
{
    g_auto(GStrv) argv = read_fields(dir, "cmdline");
    g_auto(GStrv) env = read_fields(dir, "environ");
    g_autofree gchar *script = option_value(argv, "--policyscript");
    g_autofree gchar *base = script ? g_path_get_basename(script) : NULL;
    const gchar *banned = g_environ_getenv(env, "IRQBALANCE_BANNED_CPULIST");

    if (!script)
        script = option_value(argv, "-l");
    b->policyscript = g_steal_pointer(&script);
    b->banned_cpus = banned && *banned ? g_strdup(banned) : NULL;
    if (!base && b->policyscript)
        base = g_path_get_basename(b->policyscript);
    if (base && g_str_has_prefix(base, "vnuma"))
        b->mode = VN_IRQBALANCE_POLICY_SCRIPT;
    else if (b->banned_cpus)
        b->mode = VN_IRQBALANCE_BANNED_CPUS;
    else
        b->mode = VN_IRQBALANCE_UNCOORDINATED;
}

VnIrqbalance *
vn_irqbalance_detect(const gchar *sysroot)
{
    g_autofree gchar *proc = g_build_filename(sysroot && *sysroot ? sysroot : "/", "proc", NULL);
    g_autoptr(GDir) d = g_dir_open(proc, 0, NULL);
    VnIrqbalance *b = g_new0(VnIrqbalance, 1);
    const gchar *e;

    while (d && (e = g_dir_read_name(d))) {
        g_autofree gchar *dir = NULL, *comm_path = NULL, *comm = NULL;
        guint64 pid;

        if (!g_ascii_string_to_unsigned(e, 10, 1, G_MAXINT32, &pid, NULL))
            continue;
        dir = g_build_filename(proc, e, NULL);
        comm_path = g_build_filename(dir, "comm", NULL);
        if (!g_file_get_contents(comm_path, &comm, NULL, NULL) ||
            !g_str_equal(g_strstrip(comm), "irqbalance"))
            continue;
        b->pid = (gint64)pid;
        read_process(b, dir);
        break;
    }
    return b;
}

gchar *
vn_irqbalance_describe(const VnIrqbalance *b)
{
    switch (b->mode) {
    case VN_IRQBALANCE_POLICY_SCRIPT:
        return g_strdup_printf("running (pid %" G_GINT64_FORMAT ") with vnuma's policy script %s: "
                               "it leaves vnuma's interrupts alone",
                               b->pid, b->policyscript);
    case VN_IRQBALANCE_BANNED_CPUS:
        return g_strdup_printf("running (pid %" G_GINT64_FORMAT ") with "
                               "IRQBALANCE_BANNED_CPULIST=%s: it keeps off those CPUs but may "
                               "move vnuma's interrupts",
                               b->pid, b->banned_cpus);
    case VN_IRQBALANCE_UNCOORDINATED:
        return g_strdup_printf("running (pid %" G_GINT64_FORMAT ") without vnuma's policy script: "
                               "it will move vnuma's interrupts (see vnumactl(1), irq)",
                               b->pid);
    case VN_IRQBALANCE_OFF:
    default:
        return g_strdup("not running");
    }
}
