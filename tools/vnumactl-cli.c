/* vnumactl-cli.c: option parsing, errors and output shared by commands. */
#include "vnumactl.h"
#include <string.h>

GOptionContext *
vn_cli_context_new(const gchar *summary, const GOptionEntry *entries, VnSourceOptions *source)
{
    GOptionContext *context = g_option_context_new(NULL);

    /* The source options become the main group so that --help lists
     * them with the command's own, rather than behind --help-source. */
    if (source)
        g_option_context_set_main_group(context, vn_source_option_group(source));
    if (entries)
        g_option_context_add_main_entries(context, entries, NULL);
    g_option_context_set_summary(context, summary);
    g_option_context_set_strict_posix(context, FALSE);
    return context;
}

gboolean
vn_cli_parse(GOptionContext *context, int *argc, char ***argv)
{
    g_autoptr(GError) error = NULL;

    if (!g_option_context_parse(context, argc, argv, &error)) {
        vn_cli_fail_printf("%s (see --help)", error->message);
        return FALSE;
    }
    if (*argc > 1) {
        vn_cli_fail_printf("unexpected argument \"%s\" (see --help)", (*argv)[1]);
        return FALSE;
    }
    return TRUE;
}

gboolean
vn_cli_parse_args(GOptionContext *context, int *argc, char ***argv, guint max_args,
                  const gchar **ret_arg)
{
    g_autoptr(GError) error = NULL;

    if (!g_option_context_parse(context, argc, argv, &error)) {
        vn_cli_fail_printf("%s (see --help)", error->message);
        return FALSE;
    }
    if ((guint)(*argc - 1) > max_args) {
        vn_cli_fail_printf("unexpected argument \"%s\" (see --help)", (*argv)[1 + max_args]);
        return FALSE;
    }
    *ret_arg = *argc > 1 ? (*argv)[1] : NULL;
    return TRUE;
}

int
vn_cli_fail(const GError *error)
{
    return vn_cli_fail_printf("%s", error->message);
}

/* `message` with its control characters written as escapes (\n, \t,
 * \r, \xNN): an argument or file name holding a newline, quoted in a
 * message (GLib's own included), keeps the error one line. */
static gchar *
one_line(const gchar *message)
{
    GString *s = g_string_sized_new(strlen(message));

    for (const gchar *p = message; *p; p++) {
        guchar c = (guchar)*p;
        if (c == '\n')
            g_string_append(s, "\\n");
        else if (c == '\t')
            g_string_append(s, "\\t");
        else if (c == '\r')
            g_string_append(s, "\\r");
        else if (c < 0x20 || c == 0x7f)
            g_string_append_printf(s, "\\x%02x", c);
        else
            g_string_append_c(s, (gchar)c);
    }
    return g_string_free(s, FALSE);
}

int
vn_cli_fail_printf(const gchar *fmt, ...)
{
    g_autofree gchar *message = NULL;
    g_autofree gchar *shown = NULL;
    va_list args;

    va_start(args, fmt);
    message = g_strdup_vprintf(fmt, args);
    va_end(args);
    shown = one_line(message);
    g_printerr("%s: %s\n", g_get_prgname(), shown);
    return VN_EXIT_ERROR;
}

void
vn_cli_print_warnings(const VnPlacement *p)
{
    for (guint i = 0; i < p->warnings->len; i++)
        g_printerr("%s: warning: %s\n", g_get_prgname(),
                   (const gchar *)g_ptr_array_index(p->warnings, i));
}

void
vn_cli_print_json(JsonNode *node)
{
    g_autofree gchar *text = json_to_string(node, TRUE);

    g_print("%s\n", text);
}

VnConfig *
vn_cli_host_config(GError **error)
{
    VnSourceOptions none = { 0 };
    g_autoptr(VnTopology) t = NULL;
    g_autoptr(VnConfig) config = NULL;

    if (!vn_source_load(&none, &t, NULL, &config, error))
        return NULL;
    return g_steal_pointer(&config);
}

gchar *
vn_cli_state_dir(const gchar *option, const VnConfig *config, GError **error)
{
    g_autoptr(VnConfig) loaded = NULL;

    if (option)
        return g_strdup(option);
    if (g_getenv("VNUMA_STATE_DIR"))
        return g_strdup(g_getenv("VNUMA_STATE_DIR"));
    if (config)
        return g_strdup(config->state_dir);
    loaded = vn_cli_host_config(error);
    return loaded ? g_strdup(loaded->state_dir) : NULL;
}
