/* test-size.c: vn_size_parse_kib(). */
#include "vn-size.h"

typedef struct {
    const gchar *text;
    guint64 kib;
} SizeCase;

static void
test_size_good(void)
{
    static const SizeCase cases[] = {
        { "1", 1024 },
        { "2048", 2048 * 1024 },
        { "512K", 512 },
        { "512k", 512 },
        { "512KiB", 512 },
        { "512kib", 512 },
        { "4M", 4 * 1024 },
        { "4MiB", 4 * 1024 },
        { "2G", 2 * 1024 * 1024 },
        { "2gib", 2 * 1024 * 1024 },
        { "3T", G_GUINT64_CONSTANT(3) << 30 },
        { "3TiB", G_GUINT64_CONSTANT(3) << 30 },
        /* 2^64 bytes - 1 KiB: the largest size that fits */
        { "18014398509481983K", G_MAXUINT64 / 1024 },
        { "16777215T", G_GUINT64_CONSTANT(16777215) << 30 },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        guint64 kib = 0;

        g_test_message("size %s", cases[i].text);
        g_assert_true(vn_size_parse_kib(cases[i].text, &kib, &error));
        g_assert_no_error(error);
        g_assert_cmpuint(kib, ==, cases[i].kib);
    }
}

typedef struct {
    const gchar *text;
    gint code;
    const gchar *message;
} BadSizeCase;

static void
test_size_bad(void)
{
    static const BadSizeCase cases[] = {
        { "", VN_SIZE_ERROR_INVALID,
          "invalid size \"\": expected a positive whole number with an optional K, M, G or T "
          "suffix" },
        { "-1", VN_SIZE_ERROR_INVALID,
          "invalid size \"-1\": expected a positive whole number with an optional K, M, G or T "
          "suffix" },
        { "+4G", VN_SIZE_ERROR_INVALID, NULL },
        { " 4G", VN_SIZE_ERROR_INVALID, NULL },
        { "G", VN_SIZE_ERROR_INVALID, NULL },
        { "4X", VN_SIZE_ERROR_INVALID,
          "invalid size \"4X\": unknown suffix \"X\" (use K, M, G or T; a plain number is MiB)" },
        { "4GB", VN_SIZE_ERROR_INVALID, NULL },
        { "4 G", VN_SIZE_ERROR_INVALID, NULL },
        { "1.5G", VN_SIZE_ERROR_INVALID, NULL },
        { "4G ", VN_SIZE_ERROR_INVALID, NULL },
        { "0", VN_SIZE_ERROR_RANGE, "invalid size \"0\": must be more than zero" },
        { "0G", VN_SIZE_ERROR_RANGE, NULL },
        { "16777216T", VN_SIZE_ERROR_RANGE, "invalid size \"16777216T\": larger than 2^64 bytes" },
        { "18014398509481984K", VN_SIZE_ERROR_RANGE, NULL },
        { "99999999999999999999999", VN_SIZE_ERROR_RANGE, NULL },
    };

    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++) {
        g_autoptr(GError) error = NULL;
        guint64 kib = 42;

        g_test_message("size \"%s\"", cases[i].text);
        g_assert_false(vn_size_parse_kib(cases[i].text, &kib, &error));
        g_assert_error(error, VN_SIZE_ERROR, cases[i].code);
        g_assert_cmpuint(kib, ==, 42);
        g_assert_null(strchr(error->message, '\n'));
        g_assert_nonnull(strstr(error->message, cases[i].text));
        if (cases[i].message)
            g_assert_cmpstr(error->message, ==, cases[i].message);
    }
}

/* The one MiB rounding rule of the CLI and the API: nearest, halves up. */
static void
test_size_kib_to_mib(void)
{
    static const struct {
        guint64 kib, mib;
    } cases[] = {
        { 0, 0 },          { 511, 0 },
        { 512, 1 },        { 1023, 1 },
        { 1024, 1 },       { 1535, 1 },
        { 1536, 2 },       { 1049087, 1024 },
        { 1049088, 1025 }, { G_MAXUINT64, G_MAXUINT64 / 1024 + 1 },
    };
    for (gsize i = 0; i < G_N_ELEMENTS(cases); i++)
        g_assert_cmpuint(vn_size_kib_to_mib(cases[i].kib), ==, cases[i].mib);
}

int
main(int argc, char **argv)
{
    g_test_init(&argc, &argv, NULL);
    g_test_add_func("/plugin/size/good", test_size_good);
    g_test_add_func("/plugin/size/bad", test_size_bad);
    g_test_add_func("/plugin/size/kib-to-mib", test_size_kib_to_mib);
    return g_test_run();
}
